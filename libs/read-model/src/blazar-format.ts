import { DateTime } from 'luxon';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const DASH = '-'.charCodeAt(0);
const COLON = ':'.charCodeAt(0);
const DOT = '.'.charCodeAt(0);
const T = 'T'.charCodeAt(0);
const Z = 'Z'.charCodeAt(0);

/** The punctuation of `YYYY-MM-DDTHH:mm:ss.sssZ` where it stands (compared one by one: this runs millions of times). */
const punctuated = (iso: string): boolean =>
  iso.charCodeAt(4) === DASH &&
  iso.charCodeAt(7) === DASH &&
  iso.charCodeAt(10) === T &&
  iso.charCodeAt(13) === COLON &&
  iso.charCodeAt(16) === COLON &&
  iso.charCodeAt(19) === DOT &&
  iso.charCodeAt(23) === Z;

/** The decimal number written in iso[from, to), or -1 unless every character there is an ASCII digit. */
const number = (iso: string, from: number, to: number): number => {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = iso.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
};

const below = (value: number, limit: number): boolean => value >= 0 && value < limit;

/**
 * `Date.prototype.toISOString()` text of a real instant (`YYYY-MM-DDTHH:mm:ss.sssZ`, no 30 February,
 * no hour 24), which every stored instant is: its fields are read by position, far faster than
 * luxon's parse and format (a replay formats millions of them), and without a regular expression or
 * a substring per field. Anything else (an offset, fewer digits, 30 February) goes through luxon.
 */
const canonical = (iso: string): boolean => {
  if (iso.length !== 24 || !punctuated(iso)) return false;
  const year = number(iso, 0, 4);
  const month = number(iso, 5, 7);
  const day = number(iso, 8, 10);
  if (year < 0 || number(iso, 20, 23) < 0) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day >= 1 && day <= days && below(number(iso, 11, 13), 24) && below(number(iso, 14, 16), 60) && below(number(iso, 17, 19), 60);
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
