import { IsDefined, IsString, MaxLength } from 'class-validator';
import { IsNotBlank } from '../http/text.validators.js';
import { CheckedByParser, Documented, RequestSchema, notBlank } from '../openapi/dto-properties.js';
import type { JsonSchema } from '../openapi/json-schema.js';

const DATE: JsonSchema = {
  type: 'string',
  description: "`YYYY-MM-DD HH:MM` in UTC (as a lease's dates), `now`, or ISO 8601 with a zone (checked by the request parser).",
  examples: ['2030-01-01 08:00', '2030-01-01T08:00:00Z'],
};

/** POST /v1/os-hosts/{id}/maintenance (and every maintained kind's): a Leasehold extension, so a key it does not declare is refused. */
@RequestSchema({ description: 'A maintenance window: the resource is offered to no new lease for [start, end).' })
export class ScheduleMaintenanceDto {
  @IsDefined({ message: 'Missing parameter start' })
  @IsString({ message: 'Malformed parameter start' })
  @Documented(DATE)
  @CheckedByParser()
  start!: string;

  @IsDefined({ message: 'Missing parameter end' })
  @IsString({ message: 'Malformed parameter end' })
  @Documented(DATE)
  @CheckedByParser()
  end!: string;

  @IsDefined({ message: 'Missing parameter reason' })
  @MaxLength(255, { message: 'Malformed parameter reason (at most 255 characters)' })
  @IsNotBlank({ message: 'Malformed parameter reason (must not be empty or blank)' })
  @IsString({ message: 'Malformed parameter reason' })
  @Documented(notBlank(255))
  reason!: string;
}
