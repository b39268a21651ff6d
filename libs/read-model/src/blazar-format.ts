import { DateTime } from 'luxon';

/**
 * What `Date.prototype.toISOString` writes, as the store and the deciders record every date: these are
 * formatted by slicing (a replay formats several per event; luxon's parser took most of a fold's time),
 * any other ISO-8601 form through luxon.
 */
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Lease, event and allocation dates: `%Y-%m-%dT%H:%M:%S.%f`, which python-blazarclient parses back. */
export const toBlazarDate = (iso: string): string =>
  CANONICAL.test(iso) ? `${iso.slice(0, 23)}000` : DateTime.fromISO(iso, { zone: 'utc' }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'000'");

const luxonTimestamp = (iso: string): string => {
  const time = DateTime.fromISO(iso, { zone: 'utc' });
  return time.millisecond === 0 ? time.toFormat('yyyy-MM-dd HH:mm:ss') : time.toFormat("yyyy-MM-dd HH:mm:ss.SSS'000'");
};

/** created_at/updated_at: Python's `isoformat(' ')`, microseconds only when non-zero. */
export const toBlazarTimestamp = (iso: string): string => {
  if (!CANONICAL.test(iso)) return luxonTimestamp(iso);
  const seconds = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  return iso.slice(20, 23) === '000' ? seconds : `${seconds}.${iso.slice(20, 23)}000`;
};

export const toBlazarTimestampOrNull = (iso: string | null): string | null => (iso === null ? null : toBlazarTimestamp(iso));
