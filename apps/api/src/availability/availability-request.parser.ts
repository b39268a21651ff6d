import { Duration, type DateTime } from 'luxon';
import { invalid } from '#domain/index.js';
import { type AvailabilityRequest, DEFAULT_LIMIT, MAX_LIMIT } from '#application/availability/availability.queries.js';
import { parseBlazarDate } from '../http/blazar-dates.js';
import { toIntLike } from '../http/int-like.js';
import { validateBody } from '../http/validate-body.js';
import { parseReservation } from '../leases/lease-request.parser.js';
import { AvailabilityQueryDto } from './availability.dto.js';

/** Ten years: no lease is longer, and every sum of dates stays exact. */
const MAX_DURATION_MINUTES = 10 * 366 * 24 * 60;

const malformed = (name: string, why: string) => invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (${why})`);

/** Minutes, as an integer (or int-like string) or an ISO 8601 duration of whole minutes. */
const parseDuration = (value: unknown): number => {
  const fromIso = typeof value === 'string' && value.startsWith('P') ? Duration.fromISO(value) : null;
  const minutes = fromIso === null ? toIntLike(value) : fromIso.isValid ? fromIso.as('minutes') : null;
  if (minutes === null || !Number.isInteger(minutes) || minutes < 1 || minutes > MAX_DURATION_MINUTES) {
    throw malformed('duration', `whole minutes from 1 to ${MAX_DURATION_MINUTES}, as an integer or an ISO 8601 duration`);
  }
  return minutes;
};

const parseLimit = (value: unknown): number => {
  if (value === undefined || value === null) return DEFAULT_LIMIT;
  const limit = toIntLike(value);
  if (limit === null || limit < 1 || limit > MAX_LIMIT) throw malformed('limit', `an integer from 1 to ${MAX_LIMIT}`);
  return limit;
};

const optionalDate = (value: unknown, now: DateTime): string | null =>
  value === undefined || value === null ? null : parseBlazarDate(value, now);

/** POST /v1/availability body -> request; each reservation judged exactly as in POST /v1/leases. */
export const parseAvailabilityQuery = (body: unknown, now: DateTime): AvailabilityRequest => {
  const dto = validateBody(AvailabilityQueryDto, body);
  if (dto.reservations.length === 0) throw malformed('reservations', 'at least one reservation');
  return {
    durationMinutes: parseDuration(dto.duration),
    notBefore: optionalDate(dto.not_before, now),
    notAfter: optionalDate(dto.not_after, now),
    limit: parseLimit(dto.limit),
    reservations: dto.reservations.map(parseReservation),
  };
};

const SEARCH_PARAMETERS = new Set(['duration', 'not_before', 'not_after', 'limit']);

/**
 * GET /v1/availability?resource_type=...: one reservation written as query parameters (its fields
 * named as in a lease request), and the search's own parameters.
 */
export const parseAvailabilityParameters = (query: Readonly<Record<string, string | undefined>>, now: DateTime): AvailabilityRequest => {
  const reservation: Record<string, unknown> = {};
  const search: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (SEARCH_PARAMETERS.has(key)) search[key] = value;
    else reservation[key] = value;
  }
  return parseAvailabilityQuery({ ...search, reservations: [reservation] }, now);
};
