import { IsArray, IsDefined, IsOptional } from 'class-validator';
import { type JsonSchema, ref } from '../openapi/json-schema.js';
import { CheckedByParser, Documented, DocumentedOptional, INT_LIKE, REQUEST_DATE, RequestSchema } from '../openapi/dto-properties.js';

const DURATION: JsonSchema = {
  anyOf: [INT_LIKE, { type: 'string', pattern: '^P' }],
  description: 'Minutes (an integer, at least 1), or an ISO 8601 duration (`PT2H`, `P1DT12H`) of whole minutes.',
};

/** POST /v1/availability: the reservations of a lease request, how long, and between when. */
@RequestSchema({
  description:
    'A lease request without dates: when could it be admitted? Unknown keys are refused (400), here and in a reservation (a key its type does not read).',
  additionalProperties: false,
})
export class AvailabilityQueryDto {
  @IsDefined({ message: 'Missing parameter reservations' })
  @IsArray({ message: 'Malformed parameter reservations' })
  @Documented({ type: 'array', items: ref('ReservationRequest') })
  @CheckedByParser()
  reservations!: unknown[];

  @IsDefined({ message: 'Missing parameter duration' })
  @Documented(DURATION)
  @CheckedByParser()
  duration!: unknown;

  @IsOptional()
  @DocumentedOptional({ ...REQUEST_DATE, description: 'Earliest start (UTC `YYYY-MM-DD HH:MM` or `now`); default and at least: now.' })
  @CheckedByParser()
  not_before?: unknown;

  @IsOptional()
  @DocumentedOptional({ ...REQUEST_DATE, description: 'Latest end (UTC `YYYY-MM-DD HH:MM`); default: 90 days after not_before.' })
  @CheckedByParser()
  not_after?: unknown;

  @IsOptional()
  @DocumentedOptional({ ...INT_LIKE, description: 'How many windows, 1 to 50; default 5.' })
  @CheckedByParser()
  limit?: unknown;
}
