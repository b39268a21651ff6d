import { DateTime } from 'luxon';
import { invalid } from '../../../../libs/domain/src/index.js';

const BLAZAR_INPUT_FORMAT = 'yyyy-MM-dd HH:mm';

/**
 * Parses a Blazar request date: exactly `YYYY-MM-DD HH:MM` (UTC) or `now`, which is the current
 * minute, as upstream truncates it. Returns ISO-8601 UTC.
 */
export const parseBlazarDate = (value: unknown, now: DateTime): string => {
  if (value === 'now') return now.toUTC().startOf('minute').toISO() as string;
  const text = typeof value === 'string' ? value : String(value);
  const parsed = typeof value === 'string' ? DateTime.fromFormat(value, BLAZAR_INPUT_FORMAT, { zone: 'utc' }) : null;
  if (parsed === null || !parsed.isValid) {
    throw invalid('INVALID_DATE', `${text} is an invalid date. Required format: %Y-%m-%d %H:%M`);
  }
  return parsed.toISO() as string;
};
