import { DateTime } from 'luxon';

const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * `Date.prototype.toISOString()` text of a real instant, which every stored instant is: its fields
 * are read by position, far faster than luxon's parse and format (a replay formats millions of
 * them). Anything else (an offset, fewer digits, 30 February) goes through luxon.
 */
const canonical = (iso: string): boolean => CANONICAL.test(iso) && realDate(iso);

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const digits = (iso: string, from: number, to: number): number => Number(iso.slice(from, to));

/** The fields of a CANONICAL text name a real instant (no 30 February, no hour 24), without making a Date. */
const realDate = (iso: string): boolean => {
  const [year, month, day] = [digits(iso, 0, 4), digits(iso, 5, 7), digits(iso, 8, 10)];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day >= 1 && day <= days && digits(iso, 11, 13) < 24 && digits(iso, 14, 16) < 60 && digits(iso, 17, 19) < 60;
};

const luxonDate = (iso: string): string => DateTime.fromISO(iso, { zone: 'utc' }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'000'");

const luxonTimestamp = (iso: string): string => {
  const time = DateTime.fromISO(iso, { zone: 'utc' });
  return time.millisecond === 0 ? time.toFormat('yyyy-MM-dd HH:mm:ss') : time.toFormat("yyyy-MM-dd HH:mm:ss.SSS'000'");
};

/** Lease, event and allocation dates: `%Y-%m-%dT%H:%M:%S.%f`, which python-blazarclient parses back. */
export const toBlazarDate = (iso: string): string => (canonical(iso) ? `${iso.slice(0, 23)}000` : luxonDate(iso));

/** created_at/updated_at: Python's `isoformat(' ')`, microseconds only when non-zero. */
export const toBlazarTimestamp = (iso: string): string => {
  if (!canonical(iso)) return luxonTimestamp(iso);
  const seconds = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  const millis = iso.slice(20, 23);
  return millis === '000' ? seconds : `${seconds}.${millis}000`;
};

export const toBlazarTimestampOrNull = (iso: string | null): string | null => (iso === null ? null : toBlazarTimestamp(iso));
