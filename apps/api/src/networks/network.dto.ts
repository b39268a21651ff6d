import { IsDefined, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { NETWORK_TYPES, type NetworkType } from '#plugins/network/network-segment.types.js';
import { NETWORK_VIEW_KEYS } from '#plugins/network/network-segment.view.js';
import { IsIntLike } from '../http/int-like.js';
import { IsNotBlank } from '../http/text.validators.js';
import { CAPABILITY_VALUE, notNamed } from '../hosts/host.dto.js';
import { Documented, DocumentedOptional, INT_LIKE, RequestSchema, notBlank } from '../openapi/dto-properties.js';

const malformed = (name: string) => ({ message: `Malformed parameter ${name}` });

/** The keys registration reads as the segment's own fields rather than as extra capabilities. */
export const NETWORK_FIELD_KEYS: readonly string[] = ['network_type', 'physical_network', 'segment_id'];

/** Keys no extra capability may have: the view's own fields (the segment's, its id and timestamps). */
export const NOT_CAPABILITIES: readonly string[] = NETWORK_VIEW_KEYS;

/**
 * POST /v1/networks (Chameleon's network segments): the segment, and every other key an extra capability, as Chameleon
 * reads them.
 */
@RequestSchema({
  description:
    'A network segment to set aside for reservations: `physical_network` is required for vlan and flat and absent (or null) for the tunnel types; `segment_id` is required but for flat (1-4094 for vlan, 1-16777215 for vxlan and geneve, 1-4294967295 for gre). Every other key is an extra capability, except the view fields `id`, `created_at` and `updated_at` (refused).',
  propertyNames: notNamed(NOT_CAPABILITIES.filter((key) => !NETWORK_FIELD_KEYS.includes(key))),
  additionalProperties: CAPABILITY_VALUE,
})
export class RegisterNetworkDto {
  @IsDefined({ message: 'Missing parameter network_type' })
  @IsIn(NETWORK_TYPES, { message: `Malformed parameter network_type (must be one of ${NETWORK_TYPES.join(', ')})` })
  @Documented({ enum: [...NETWORK_TYPES], description: "Neutron's `provider:network_type`." })
  network_type!: NetworkType;

  @IsOptional()
  @MaxLength(255, malformed('physical_network'))
  @IsNotBlank({ message: 'Malformed parameter physical_network (must not be empty or blank)' })
  @IsString(malformed('physical_network'))
  @DocumentedOptional({ ...notBlank(255), description: "Neutron's `provider:physical_network`: required for vlan and flat." })
  physical_network?: string | null;

  @IsOptional()
  @IsIntLike({ message: 'Malformed parameter segment_id (must be an integer)' })
  @DocumentedOptional({ ...INT_LIKE, description: "Neutron's `provider:segmentation_id`: the VLAN tag or tunnel id; none for flat." })
  segment_id?: number | string | null;
}
