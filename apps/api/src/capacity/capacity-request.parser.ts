import { DateTime, Duration } from 'luxon';
import { invalid } from '#domain/index.js';
import type { CapacityRequest } from '#application/queries/capacity.queries.js';
import { parseInstant } from '../http/blazar-dates.js';
import { toIntLike } from '../http/int-like.js';

/** Ten years: no lease is longer. */
const MAX_MINUTES = 10 * 366 * 24 * 60;
const HOUR = 60;
const DAY = 24 * HOUR;

/** What GET /v1/capacity reads, as the query string gave it. */
export interface CapacityParameters {
  readonly start?: string;
  readonly end?: string;
  readonly step?: string;
  readonly duration?: string;
  readonly failure_domain?: string;
}

const malformed = (name: string, why: string) => invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (${why})`);

/** A date of the report's frame: required, and fixed (`now` would make the report a moving target). */
const frameDate = (name: string, value: string | undefined): string => {
  if (value === undefined) throw invalid('MISSING_PARAMETER', `Missing parameter ${name}`);
  if (value === 'now') throw malformed(name, 'a report needs a fixed date, not now');
  return parseInstant(name, value, DateTime.fromMillis(0, { zone: 'utc' }));
};

/** Whole minutes, as an integer or an ISO 8601 duration (`PT1H`, `P1D`). */
const minutes = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  const fromIso = value.startsWith('P') ? Duration.fromISO(value) : null;
  const parsed = fromIso === null ? toIntLike(value) : fromIso.isValid ? fromIso.as('minutes') : null;
  if (parsed === null || !Number.isInteger(parsed) || parsed < 1 || parsed > MAX_MINUTES) {
    throw malformed(name, `whole minutes from 1 to ${MAX_MINUTES}, as an integer or an ISO 8601 duration`);
  }
  return parsed;
};

/** GET /v1/capacity's query -> request: `start` and `end` required, `step` 1 hour and `duration` 1 day unless given. */
export const parseCapacityQuery = (query: CapacityParameters): CapacityRequest => ({
  start: frameDate('start', query.start),
  end: frameDate('end', query.end),
  stepMinutes: minutes('step', query.step, HOUR),
  requestMinutes: minutes('duration', query.duration, DAY),
  failureDomain: query.failure_domain ?? null,
});
