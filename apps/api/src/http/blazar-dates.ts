import { DateTime } from 'luxon';
import { LAST_INSTANT_MS, LAST_REQUEST_DATE, invalid } from '#domain/index.js';

/**
 * What upstream's `datetime.strptime(value, '%Y-%m-%d %H:%M')` accepts, in ASCII: a 4-digit year,
 * month, day, hour and minute with or without their leading zero (a day may also be padded with a
 * space), hour 0-23, minute 0-59, and the space between date and time repeatable. luxon alone would
 * take hour 24 as the next day's midnight; Python refuses it.
 */
export const BLAZAR_DATE_PATTERN =
  '^(\\d{4})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9]) +(2[0-3]|[01]\\d|\\d):([0-5]\\d|\\d)$';

const BLAZAR_DATE = new RegExp(BLAZAR_DATE_PATTERN);

/** The calendar date and time written in `text`, or null (wrong shape, hour 24, 31 April, year 0). */
const dateOf = (text: string): DateTime | null => {
  const match = BLAZAR_DATE.exec(text);
  if (match === null) return null;
  const [year, month, day, hour, minute] = match.slice(1).map((part) => Number.parseInt(part.trim(), 10)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const parsed = DateTime.utc(year, month, day, hour, minute);
  return parsed.isValid && year >= 1 ? parsed : null;
};

/**
 * Parses a Blazar request date: `YYYY-MM-DD HH:MM` (UTC) as upstream reads it, or `now`, which is
 * the current minute, as upstream truncates it. Returns ISO-8601 UTC.
 */
export const parseBlazarDate = (value: unknown, now: DateTime): string => {
  if (value === 'now') return now.toUTC().startOf('minute').toISO() as string;
  const parsed = typeof value === 'string' ? dateOf(value) : null;
  if (parsed === null) throw invalid('INVALID_DATE', `${String(value)} is an invalid date. Required format: %Y-%m-%d %H:%M`);
  return parsed.toISO() as string;
};

/** ISO 8601 with an explicit UTC designator or offset: a date the caller did not place in a zone is Blazar's (UTC) form. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A query's instant: Blazar's `YYYY-MM-DD HH:MM` (UTC) or `now`, or ISO 8601 with a zone, at most
 * LAST_INSTANT_MS (a zone west of UTC can carry a 4-digit year past it). Returns ISO-8601 UTC.
 */
export const parseInstant = (name: string, value: string, now: DateTime): string => {
  if (BLAZAR_DATE.test(value) || value === 'now') return parseBlazarDate(value, now);
  const parsed = ISO_INSTANT.test(value) ? DateTime.fromISO(value, { setZone: true }) : null;
  if (parsed === null || !parsed.isValid) {
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (must be %Y-%m-%d %H:%M in UTC, or ISO 8601 with a zone)`);
  }
  if (parsed.toMillis() > LAST_INSTANT_MS) {
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (must not be after ${LAST_REQUEST_DATE} UTC)`);
  }
  return parsed.toUTC().toISO();
};
