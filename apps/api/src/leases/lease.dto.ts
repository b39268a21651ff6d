import { applyDecorators } from '@nestjs/common';
import { IsArray, IsDefined, IsIn, IsOptional, IsString, MaxLength, ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';
import { BEFORE_END_ACTIONS } from '#plugins/physical-host/host.reservation.js';
import { RESERVATION_TYPES } from '#plugins/reservation-types.js';
import { IsFlavorId } from '../flavors/flavor.validators.js';
import { IsIntLike, MAX_INT32 } from '../http/int-like.js';
import { IsNotBlank, IsUuid } from '../http/text.validators.js';
import { type JsonSchema, ref } from '../openapi/json-schema.js';
import {
  CheckedByParser,
  Documented,
  DocumentedOptional,
  DocumentedWhenGiven,
  FLAVOR_ID,
  INT_LIKE,
  REQUEST_DATE,
  RequestSchema,
  UUID,
  notBlank,
} from '../openapi/dto-properties.js';

const missing = (name: string) => ({ message: `Missing parameter ${name}` });
const malformed = (name: string) => ({ message: `Malformed parameter ${name}` });
const LEASE_NAME_LENGTH = { message: 'Malformed parameter name: at most 80 characters' };
const notBlankMessage = (name: string) => ({ message: `Malformed parameter ${name} (must not be empty or blank)` });
const NETWORK_UUID = { message: 'Malformed parameter network_id (must be a network UUID)' };

const instances = `Instances, 1 to ${MAX_INT32}.`;

/** POST /v1/leases. Dates stay raw here: their format is checked with luxon (Blazar's exact messages). */
@RequestSchema({ description: 'A new lease. Dates are checked in this order: start, end, before-end, then each reservation.' })
export class CreateLeaseDto {
  @IsDefined(missing('name'))
  @MaxLength(80, LEASE_NAME_LENGTH)
  @IsNotBlank(notBlankMessage('name'))
  @IsString(malformed('name'))
  @Documented(notBlank(80))
  name!: string;

  @IsDefined(missing('start_date'))
  @Documented(REQUEST_DATE)
  @CheckedByParser()
  start_date!: unknown;

  @IsDefined(missing('end_date'))
  @Documented(REQUEST_DATE)
  @CheckedByParser()
  end_date!: unknown;

  @IsOptional()
  @DocumentedOptional({
    ...REQUEST_DATE,
    description: 'When the before-end action runs; by default `minutes_before_end_lease` before the end.',
  })
  @CheckedByParser()
  before_end_date?: unknown;

  @IsOptional()
  @IsArray(malformed('reservations'))
  @DocumentedOptional({ type: 'array', items: ref('ReservationRequest') })
  @CheckedByParser()
  reservations?: unknown[];

  @IsOptional()
  @IsArray(malformed('events'))
  @DocumentedOptional({ type: 'array', description: 'Accepted for compatibility with upstream clients, which send `[]`; ignored.' })
  events?: unknown[];
}

/** PUT /v1/leases/{id}: every field optional; unknown keys (upstream mass-assigns them) are ignored, but one known field must be given. */
@RequestSchema({ description: 'Changes to a lease; absent (or null) fields are left unchanged, unknown keys are ignored.' })
export class UpdateLeaseDto {
  @IsOptional()
  @MaxLength(80, LEASE_NAME_LENGTH)
  @IsNotBlank(notBlankMessage('name'))
  @IsString(malformed('name'))
  @DocumentedOptional(notBlank(80))
  name?: string;

  @IsOptional()
  @DocumentedOptional(REQUEST_DATE)
  @CheckedByParser()
  start_date?: unknown;

  @IsOptional()
  @DocumentedOptional(REQUEST_DATE)
  @CheckedByParser()
  end_date?: unknown;

  @IsOptional()
  @DocumentedOptional(REQUEST_DATE)
  @CheckedByParser()
  before_end_date?: unknown;

  @IsOptional()
  @IsArray(malformed('reservations'))
  @DocumentedOptional({ type: 'array', items: ref('ReservationUpdateDto') })
  @CheckedByParser()
  reservations?: unknown[];
}

const RESOURCE_TYPES = RESERVATION_TYPES.map((module) => module.resourceType);

@RequestSchema()
export class ReservationTypeDto {
  @IsDefined(missing('resource_type'))
  @IsString(malformed('resource_type'))
  @Documented({
    type: 'string',
    description: `Supported: ${RESOURCE_TYPES.map((type) => `\`${type}\``).join(', ')}; others are refused (400).`,
    examples: [...RESOURCE_TYPES],
  })
  resource_type!: string;
}

/**
 * The optional physical:host fields, the same in a new lease and in an update. Declared in each
 * class rather than inherited, so that class-validator (which checks own properties first) and the
 * schema list them in one order.
 */
const HOST_RESERVATION_FIELDS = {
  hypervisor_properties: () =>
    applyDecorators(
      IsOptional(),
      IsString(malformed('hypervisor_properties')),
      DocumentedOptional({
        type: 'string',
        description: 'A Blazar query on host fields, e.g. `["==", "$vcpus", "8"]` (JSON text); empty for none.',
      }),
    ),
  resource_properties: () =>
    applyDecorators(
      IsOptional(),
      IsString(malformed('resource_properties')),
      DocumentedOptional({
        type: 'string',
        description: 'A Blazar query on extra capabilities, e.g. `["==", "$gpu", "true"]` (JSON text); empty for none.',
      }),
    ),
  before_end: () =>
    applyDecorators(
      IsOptional(),
      IsIn(BEFORE_END_ACTIONS as string[], malformed('before_end')),
      DocumentedOptional({ enum: [...BEFORE_END_ACTIONS] }),
    ),
};

@RequestSchema()
export class HostReservationDto {
  @IsDefined(missing('min'))
  @IsIntLike(malformed('min'))
  @Documented({ ...INT_LIKE, description: `Fewest hosts, 1 to ${MAX_INT32}; an integer or a string holding one.` })
  min!: number | string;

  @IsDefined(missing('max'))
  @IsIntLike(malformed('max'))
  @Documented({ ...INT_LIKE, description: `Most hosts, \`min\` to ${MAX_INT32}; an integer or a string holding one.` })
  max!: number | string;

  @HOST_RESERVATION_FIELDS.hypervisor_properties() hypervisor_properties?: string;
  @HOST_RESERVATION_FIELDS.resource_properties() resource_properties?: string;
  @HOST_RESERVATION_FIELDS.before_end() before_end?: string;
}

/** python-blazarclient sends affinity as the strings "True", "False" or "None"; JSON clients send true/false/null. */
export const AFFINITY_STRINGS: Readonly<Record<string, boolean | null>> = { true: true, false: false, none: null, null: null };

export const toAffinity = (value: unknown): { readonly value: boolean | null } | undefined => {
  if (value === null || typeof value === 'boolean') return { value };
  if (typeof value === 'string' && Object.hasOwn(AFFINITY_STRINGS, value.trim().toLowerCase())) {
    return { value: AFFINITY_STRINGS[value.trim().toLowerCase()] as boolean | null };
  }
  return undefined;
};

const IsAffinity = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy({ name: 'isAffinity', validator: { validate: (value: unknown) => toAffinity(value) !== undefined } }, options);

/** The strings toAffinity accepts, any case, surrounding blanks allowed. */
const AFFINITY_PATTERN = `^\\s*(${Object.keys(AFFINITY_STRINGS)
  .map((word) => [...word].map((c) => `[${c}${c.toUpperCase()}]`).join(''))
  .join('|')})\\s*$`;

const AFFINITY: JsonSchema = {
  anyOf: [{ type: ['boolean', 'null'] }, { type: 'string', pattern: AFFINITY_PATTERN }],
  description: 'true (one host), false (one host each) or null (anywhere); also the strings "True", "False", "None" the clients send.',
};

const AFFINITY_MESSAGE = { message: 'Malformed parameter affinity (must be a bool value or None)' };

/** virtual:instance (upstream requires every key; affinity and resource_properties default to None and ""). */
@RequestSchema({ description: '`virtual:instance`: `amount` instances of this size, carved from reservable hosts within their capacity.' })
export class InstanceReservationDto {
  @IsDefined(missing('vcpus'))
  @IsIntLike(malformed('vcpus'))
  @Documented({ ...INT_LIKE, description: `1 to ${MAX_INT32}.` })
  vcpus!: number | string;

  @IsDefined(missing('memory_mb'))
  @IsIntLike(malformed('memory_mb'))
  @Documented({ ...INT_LIKE, description: `1 to ${MAX_INT32}.` })
  memory_mb!: number | string;

  @IsDefined(missing('disk_gb'))
  @IsIntLike(malformed('disk_gb'))
  @Documented({ ...INT_LIKE, description: `0 to ${MAX_INT32}.` })
  disk_gb!: number | string;

  @IsDefined(missing('amount'))
  @IsIntLike(malformed('amount'))
  @Documented({ ...INT_LIKE, description: instances })
  amount!: number | string;

  @ValidateIf((o: InstanceReservationDto) => o.affinity !== undefined)
  @IsAffinity(AFFINITY_MESSAGE)
  @DocumentedWhenGiven(AFFINITY)
  affinity?: unknown;

  @IsOptional()
  @IsString(malformed('resource_properties'))
  @DocumentedOptional({ type: 'string', description: 'A Blazar query on host extra capabilities (JSON text); empty for none.' })
  resource_properties?: string;
}

/** flavor:instance: an existing flavor and a number of instances. */
@RequestSchema({ description: '`flavor:instance`: `amount` instances of a catalog flavor (sizes and extra specs come from the flavor).' })
export class FlavorInstanceReservationDto {
  @IsDefined(missing('flavor_id'))
  @IsFlavorId(malformed('flavor_id'))
  @Documented(FLAVOR_ID)
  flavor_id!: string | number;

  @IsDefined(missing('amount'))
  @IsIntLike(malformed('amount'))
  @Documented({ ...INT_LIKE, description: instances })
  amount!: number | string;

  @ValidateIf((o: FlavorInstanceReservationDto) => o.affinity !== undefined)
  @IsAffinity(AFFINITY_MESSAGE)
  @DocumentedWhenGiven(AFFINITY)
  affinity?: unknown;
}

const REQUIRED_FLOATINGIPS: JsonSchema = {
  type: 'array',
  items: { type: 'string' },
  description: 'IPv4/IPv6 addresses that must be part of the reservation; at most `amount`, no repeats.',
};

/** virtual:floatingip: `amount` addresses of an external network, some of them named. */
@RequestSchema({
  description: '`virtual:floatingip`: `amount` registered addresses of the network, including every `required_floatingips` address.',
})
export class FloatingIpReservationDto {
  @IsDefined(missing('network_id'))
  @IsUuid(NETWORK_UUID)
  @IsString(malformed('network_id'))
  @Documented(UUID)
  network_id!: string;

  @IsDefined(missing('amount'))
  @IsIntLike(malformed('amount'))
  @Documented({ ...INT_LIKE, description: `Addresses, 1 to ${MAX_INT32}.` })
  amount!: number | string;

  @IsOptional()
  @IsArray(malformed('required_floatingips'))
  @IsString({ each: true, ...malformed('required_floatingips') })
  @DocumentedOptional(REQUIRED_FLOATINGIPS)
  required_floatingips?: string[];
}

@RequestSchema({
  description:
    'Changes to one reservation of the lease, found by `id`; `resource_type` cannot change (409); fields of another reservation type are refused (400).',
})
export class ReservationUpdateDto {
  @IsDefined({ message: 'Missing parameter reservation ID' })
  @IsString(malformed('id'))
  @Documented({ type: 'string' })
  id!: string;

  @IsOptional()
  @IsString(malformed('resource_type'))
  @DocumentedOptional({ type: 'string' })
  resource_type?: string;

  @ValidateIf((o: ReservationUpdateDto) => o.min !== undefined)
  @IsIntLike(malformed('min'))
  @DocumentedWhenGiven(INT_LIKE)
  min?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.max !== undefined)
  @IsIntLike(malformed('max'))
  @DocumentedWhenGiven(INT_LIKE)
  max?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.amount !== undefined)
  @IsIntLike(malformed('amount'))
  @DocumentedWhenGiven(INT_LIKE)
  amount?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.vcpus !== undefined)
  @IsIntLike(malformed('vcpus'))
  @DocumentedWhenGiven(INT_LIKE)
  vcpus?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.memory_mb !== undefined)
  @IsIntLike(malformed('memory_mb'))
  @DocumentedWhenGiven(INT_LIKE)
  memory_mb?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.disk_gb !== undefined)
  @IsIntLike(malformed('disk_gb'))
  @DocumentedWhenGiven(INT_LIKE)
  disk_gb?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.affinity !== undefined)
  @IsAffinity(AFFINITY_MESSAGE)
  @DocumentedWhenGiven(AFFINITY)
  affinity?: unknown;

  @IsOptional()
  @IsFlavorId(malformed('flavor_id'))
  @DocumentedOptional(FLAVOR_ID)
  flavor_id?: string | number;

  @IsOptional()
  @IsUuid(NETWORK_UUID)
  @IsString(malformed('network_id'))
  @DocumentedOptional(UUID)
  network_id?: string;

  @IsOptional()
  @IsArray(malformed('required_floatingips'))
  @IsString({ each: true, ...malformed('required_floatingips') })
  @DocumentedOptional(REQUIRED_FLOATINGIPS)
  required_floatingips?: string[];

  @HOST_RESERVATION_FIELDS.hypervisor_properties() hypervisor_properties?: string;
  @HOST_RESERVATION_FIELDS.resource_properties() resource_properties?: string;
  @HOST_RESERVATION_FIELDS.before_end() before_end?: string;
}
