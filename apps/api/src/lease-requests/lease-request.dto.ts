import { IsArray, IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsNotBlank } from '../http/text.validators.js';
import { ref } from '../openapi/json-schema.js';
import {
  CheckedByParser,
  Documented,
  DocumentedOptional,
  INT_LIKE,
  REQUEST_DATE,
  RequestSchema,
  notBlank,
} from '../openapi/dto-properties.js';

/** POST /v1/lease-requests: a Leasehold extension, so a key it does not declare is refused; each reservation is a lease's. */
@RequestSchema({
  description:
    'A lease asked for without dates: `duration` long, starting no earlier than `not_before` and no later than `start_by` (docs/queue.md).',
})
export class CreateLeaseRequestDto {
  @IsDefined({ message: 'Missing parameter name' })
  @MaxLength(80, { message: 'Malformed parameter name: at most 80 characters' })
  @IsNotBlank({ message: 'Malformed parameter name (must not be empty or blank)' })
  @IsString({ message: 'Malformed parameter name' })
  @Documented(notBlank(80))
  name!: string;

  @IsDefined({ message: 'Missing parameter reservations' })
  @IsArray({ message: 'Malformed parameter reservations' })
  @Documented({ type: 'array', items: ref('ReservationRequest'), description: "At least one; every type, mixed, as a lease's." })
  @CheckedByParser()
  reservations!: unknown[];

  @IsDefined({ message: 'Missing parameter duration' })
  @Documented({
    anyOf: [INT_LIKE, { type: 'string', pattern: '^P' }],
    description: 'Minutes (an integer, at least 1), or an ISO 8601 duration (`PT2H`, `P1DT12H`) of whole minutes.',
  })
  @CheckedByParser()
  duration!: unknown;

  @IsOptional()
  @DocumentedOptional({ ...REQUEST_DATE, description: 'Earliest start (UTC `YYYY-MM-DD HH:MM` or `now`); default now.' })
  @CheckedByParser()
  not_before?: unknown;

  @IsOptional()
  @DocumentedOptional({ ...REQUEST_DATE, description: 'Latest acceptable start; default 90 days after not_before.' })
  @CheckedByParser()
  start_by?: unknown;
}
