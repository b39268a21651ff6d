import { IsArray, IsDefined, IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { BEFORE_END_ACTIONS } from '../../../../libs/domain/src/index.js';
import { IsIntLike } from '../http/int-like.js';

const missing = (name: string) => ({ message: `Missing parameter ${name}` });
const malformed = (name: string) => ({ message: `Malformed parameter ${name}` });

/** POST /v1/leases. Dates stay raw here: their format is checked with luxon (Blazar's exact messages). */
export class CreateLeaseDto {
  @IsDefined(missing('name'))
  @IsString(malformed('name'))
  @MaxLength(80, { message: 'Malformed parameter name: at most 80 characters' })
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

/** PUT /v1/leases/{id}: every field optional; unknown keys (upstream mass-assigns them) are ignored. */
export class UpdateLeaseDto {
  @IsOptional()
  @IsString(malformed('name'))
  @MaxLength(80, { message: 'Malformed parameter name: at most 80 characters' })
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
}
