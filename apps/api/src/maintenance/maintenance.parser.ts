import type { DateTime } from 'luxon';
import type { MaintenanceRequest } from '#application/maintenance/maintenance.use-cases.js';
import { parseInstant } from '../http/blazar-dates.js';
import { validateExtensionBody } from '../http/validate-body.js';
import { ScheduleMaintenanceDto } from './maintenance.dto.js';

/**
 * A window's body: its dates in any form a lease or a query accepts (Blazar's `YYYY-MM-DD HH:MM` in UTC, `now`,
 * ISO 8601 with a zone). That the end follows the start and is to come is the domain's rule, checked on decision.
 */
export const parseScheduleMaintenance = (body: unknown, now: DateTime): MaintenanceRequest => {
  const dto = validateExtensionBody(ScheduleMaintenanceDto, body);
  return { startDate: parseInstant('start', dto.start, now), endDate: parseInstant('end', dto.end, now), reason: dto.reason };
};
