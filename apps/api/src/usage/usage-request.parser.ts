import { DateTime } from 'luxon';
import { invalid } from '#domain/index.js';
import { parseInstant } from '../http/blazar-dates.js';

/** A report date; `now` is refused: a report's window is part of what makes it reproducible. */
export const reportDate = (name: string, value: string | undefined): string => {
  if (value === undefined) throw invalid('MISSING_PARAMETER', `Missing parameter ${name}`);
  if (value === 'now') throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (a report needs a fixed date, not now)`);
  return parseInstant(name, value, DateTime.fromMillis(0, { zone: 'utc' }));
};

/** A report date that may be left out (null: not given; GraphQL may also leave an argument undefined). */
export const optionalReportDate = (name: string, value: string | null | undefined): string | null =>
  value === undefined || value === null ? null : reportDate(name, value);
