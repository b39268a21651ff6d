import { IsArray, IsDefined, IsIn, IsOptional, IsString, MaxLength, ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';
import { BEFORE_END_ACTIONS } from '../../../../libs/domain/src/index.js';
import { IsFlavorId } from '../flavors/flavor.validators.js';
import { IsIntLike } from '../http/int-like.js';
import { IsNotBlank, IsUuid } from '../http/text.validators.js';

const missing = (name: string) => ({ message: `Missing parameter ${name}` });
const malformed = (name: string) => ({ message: `Malformed parameter ${name}` });
const LEASE_NAME_LENGTH = { message: 'Malformed parameter name: at most 80 characters' };
const notBlank = (name: string) => ({ message: `Malformed parameter ${name} (must not be empty or blank)` });
const NETWORK_UUID = { message: 'Malformed parameter network_id (must be a network UUID)' };

/** POST /v1/leases. Dates stay raw here: their format is checked with luxon (Blazar's exact messages). */
export class CreateLeaseDto {
  @IsDefined(missing('name'))
  @MaxLength(80, LEASE_NAME_LENGTH)
  @IsNotBlank(notBlank('name'))
  @IsString(malformed('name'))
  name!: string;

  @IsDefined(missing('start_date'))
  start_date!: unknown;

  @IsDefined(missing('end_date'))
  end_date!: unknown;

  @IsOptional()
  before_end_date?: unknown;

  @IsOptional()
  @IsArray(malformed('reservations'))
  reservations?: unknown[];

  @IsOptional()
  @IsArray(malformed('events'))
  events?: unknown[];
}

/** PUT /v1/leases/{id}: every field optional; unknown keys (upstream mass-assigns them) are ignored, but one known field must be given. */
export class UpdateLeaseDto {
  @IsOptional()
  @MaxLength(80, LEASE_NAME_LENGTH)
  @IsNotBlank(notBlank('name'))
  @IsString(malformed('name'))
  name?: string;

  @IsOptional()
  start_date?: unknown;

  @IsOptional()
  end_date?: unknown;

  @IsOptional()
  before_end_date?: unknown;

  @IsOptional()
  @IsArray(malformed('reservations'))
  reservations?: unknown[];
}

export class ReservationTypeDto {
  @IsDefined(missing('resource_type'))
  @IsString(malformed('resource_type'))
  resource_type!: string;
}

/** The optional physical:host fields, shared by create and update. */
class HostReservationPropertiesDto {
  @IsOptional()
  @IsString(malformed('hypervisor_properties'))
  hypervisor_properties?: string;

  @IsOptional()
  @IsString(malformed('resource_properties'))
  resource_properties?: string;

  @IsOptional()
  @IsIn(BEFORE_END_ACTIONS as string[], malformed('before_end'))
  before_end?: string;
}

export class HostReservationDto extends HostReservationPropertiesDto {
  @IsDefined(missing('min'))
  @IsIntLike(malformed('min'))
  min!: number | string;

  @IsDefined(missing('max'))
  @IsIntLike(malformed('max'))
  max!: number | string;
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

const AFFINITY_MESSAGE = { message: 'Malformed parameter affinity (must be a bool value or None)' };

/** virtual:instance (upstream requires every key; affinity and resource_properties default to None and ""). */
export class InstanceReservationDto {
  @IsDefined(missing('vcpus'))
  @IsIntLike(malformed('vcpus'))
  vcpus!: number | string;

  @IsDefined(missing('memory_mb'))
  @IsIntLike(malformed('memory_mb'))
  memory_mb!: number | string;

  @IsDefined(missing('disk_gb'))
  @IsIntLike(malformed('disk_gb'))
  disk_gb!: number | string;

  @IsDefined(missing('amount'))
  @IsIntLike(malformed('amount'))
  amount!: number | string;

  @ValidateIf((o: InstanceReservationDto) => o.affinity !== undefined)
  @IsAffinity(AFFINITY_MESSAGE)
  affinity?: unknown;

  @IsOptional()
  @IsString(malformed('resource_properties'))
  resource_properties?: string;
}

/** flavor:instance: an existing flavor and a number of instances. */
export class FlavorInstanceReservationDto {
  @IsDefined(missing('flavor_id'))
  @IsFlavorId(malformed('flavor_id'))
  flavor_id!: string | number;

  @IsDefined(missing('amount'))
  @IsIntLike(malformed('amount'))
  amount!: number | string;

  @ValidateIf((o: FlavorInstanceReservationDto) => o.affinity !== undefined)
  @IsAffinity(AFFINITY_MESSAGE)
  affinity?: unknown;
}

/** virtual:floatingip: `amount` addresses of an external network, some of them named. */
export class FloatingIpReservationDto {
  @IsDefined(missing('network_id'))
  @IsUuid(NETWORK_UUID)
  @IsString(malformed('network_id'))
  network_id!: string;

  @IsDefined(missing('amount'))
  @IsIntLike(malformed('amount'))
  amount!: number | string;

  @IsOptional()
  @IsArray(malformed('required_floatingips'))
  @IsString({ each: true, ...malformed('required_floatingips') })
  required_floatingips?: string[];
}

export class ReservationUpdateDto extends HostReservationPropertiesDto {
  @IsDefined({ message: 'Missing parameter reservation ID' })
  @IsString(malformed('id'))
  id!: string;

  @IsOptional()
  @IsString(malformed('resource_type'))
  resource_type?: string;

  @ValidateIf((o: ReservationUpdateDto) => o.min !== undefined)
  @IsIntLike(malformed('min'))
  min?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.max !== undefined)
  @IsIntLike(malformed('max'))
  max?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.amount !== undefined)
  @IsIntLike(malformed('amount'))
  amount?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.vcpus !== undefined)
  @IsIntLike(malformed('vcpus'))
  vcpus?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.memory_mb !== undefined)
  @IsIntLike(malformed('memory_mb'))
  memory_mb?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.disk_gb !== undefined)
  @IsIntLike(malformed('disk_gb'))
  disk_gb?: number | string;

  @ValidateIf((o: ReservationUpdateDto) => o.affinity !== undefined)
  @IsAffinity(AFFINITY_MESSAGE)
  affinity?: unknown;

  @IsOptional()
  @IsFlavorId(malformed('flavor_id'))
  flavor_id?: string | number;

  @IsOptional()
  @IsUuid(NETWORK_UUID)
  @IsString(malformed('network_id'))
  network_id?: string;

  @IsOptional()
  @IsArray(malformed('required_floatingips'))
  @IsString({ each: true, ...malformed('required_floatingips') })
  required_floatingips?: string[];
}
