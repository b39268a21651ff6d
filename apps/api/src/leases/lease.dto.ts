import { IsArray, IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';
import { RESERVATION_TYPES } from '#plugins/reservation-types.js';
import { IsNotBlank } from '../http/text.validators.js';
import { ref } from '../openapi/json-schema.js';
import { CheckedByParser, Documented, DocumentedOptional, REQUEST_DATE, RequestSchema, notBlank } from '../openapi/dto-properties.js';

const missing = (name: string) => ({ message: `Missing parameter ${name}` });
const malformed = (name: string) => ({ message: `Malformed parameter ${name}` });
const LEASE_NAME_LENGTH = { message: 'Malformed parameter name: at most 80 characters' };
const notBlankMessage = (name: string) => ({ message: `Malformed parameter ${name} (must not be empty or blank)` });

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
