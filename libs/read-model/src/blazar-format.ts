import { DateTime } from 'luxon';

/** Lease, event and allocation dates: `%Y-%m-%dT%H:%M:%S.%f`, which python-blazarclient parses back. */
export const toBlazarDate = (iso: string): string =>
  DateTime.fromISO(iso, { zone: 'utc' }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'000'");

/** created_at/updated_at: Python's `isoformat(' ')`, microseconds only when non-zero. */
export const toBlazarTimestamp = (iso: string): string => {
  const time = DateTime.fromISO(iso, { zone: 'utc' });
  return time.millisecond === 0 ? time.toFormat('yyyy-MM-dd HH:mm:ss') : time.toFormat("yyyy-MM-dd HH:mm:ss.SSS'000'");
};

export const toBlazarTimestampOrNull = (iso: string | null): string | null => (iso === null ? null : toBlazarTimestamp(iso));
