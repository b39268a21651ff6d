import { DateTime } from 'luxon';
import type { AuditFilter } from '#application/audit/write-refusals.js';
import { parseInstant } from '../http/blazar-dates.js';

export interface AuditQuery {
  readonly start?: string;
  readonly end?: string;
  readonly projectId?: string;
}

/** Without `end`, until now; without `start`, the day before `end`. */
export const parseAuditQuery = ({ start, end, projectId }: AuditQuery, now: DateTime): AuditFilter => {
  const until = end === undefined ? (now.toUTC().toISO() as string) : parseInstant('end', end, now);
  const from =
    start === undefined
      ? (DateTime.fromISO(until, { zone: 'utc' }).minus({ days: 1 }).toISO() as string)
      : parseInstant('start', start, now);
  return { start: from, end: until, projectId: projectId ?? null };
};
