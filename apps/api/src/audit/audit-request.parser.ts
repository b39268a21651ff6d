import { DateTime } from 'luxon';
import { invalid } from '#domain/index.js';
import type { AuditFilter } from '#application/audit/write-refusals.js';
import { BLAZAR_DATE_PATTERN, parseBlazarDate } from '../http/blazar-dates.js';

/** ISO 8601 with an explicit UTC designator or offset: a date the caller did not place in a zone is Blazar's (UTC) form. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

const instant = (name: string, value: string, now: DateTime): string => {
  if (new RegExp(BLAZAR_DATE_PATTERN).test(value) || value === 'now') return parseBlazarDate(value, now);
  const parsed = ISO_INSTANT.test(value) ? DateTime.fromISO(value, { setZone: true }) : null;
  if (parsed === null || !parsed.isValid) {
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (must be %Y-%m-%d %H:%M in UTC, or ISO 8601 with a zone)`);
  }
  return parsed.toUTC().toISO();
};

export interface AuditQuery {
  readonly start?: string;
  readonly end?: string;
  readonly projectId?: string;
}

/** Without `end`, until now; without `start`, the day before `end`. */
export const parseAuditQuery = ({ start, end, projectId }: AuditQuery, now: DateTime): AuditFilter => {
  const until = end === undefined ? (now.toUTC().toISO() as string) : instant('end', end, now);
  const from = start === undefined ? (DateTime.fromISO(until, { zone: 'utc' }).minus({ days: 1 }).toISO() as string) : instant('start', start, now);
  return { start: from, end: until, projectId: projectId ?? null };
};
