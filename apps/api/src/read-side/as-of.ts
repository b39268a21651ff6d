import { DateTime } from 'luxon';
import { invalid } from '#domain/index.js';
import { parseInstant } from '../http/blazar-dates.js';

/**
 * The instant of an `as_of` query parameter (a Leasehold extension) as ISO-8601 UTC: Blazar's
 * `YYYY-MM-DD HH:MM` (UTC) or `now`, or ISO 8601 with a zone. Refused (400) when it is neither, is
 * given more than once, or lies after `now`: nothing is recorded there yet.
 */
export const parseAsOf = (value: unknown, now: DateTime): string => {
  if (typeof value !== 'string') throw invalid('MALFORMED_PARAMETER', 'Malformed parameter as_of (must be given once)');
  const instant = parseInstant('as_of', value, now);
  if (DateTime.fromISO(instant).toMillis() > now.toMillis()) {
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter as_of (${value} is in the future: nothing is recorded after now)`);
  }
  return instant;
};
