import { Duration, type DateTime } from 'luxon';
import { invalid } from '#domain/index.js';
import { type AvailabilityRequest, DEFAULT_LIMIT, MAX_LIMIT } from '#application/availability/availability.queries.js';
import { type ReservationRequest, isResourceType } from '#plugins/reservation-types.js';
import type { FieldPath } from '../http/input-rules.js';
import { parseBlazarDate } from '../http/blazar-dates.js';
import { toIntLike } from '../http/int-like.js';
import { declaredFields, refuseUnknownFields, validateBody, validateExtensionBody } from '../http/validate-body.js';
import { ReservationTypeDto } from '../leases/lease.dto.js';
import { parseReservation } from '../leases/lease-request.parser.js';
import { reservationDto } from '../leases/reservation.dto.js';
import { AvailabilityQueryDto } from './availability.dto.js';

/**
 * One reservation of the search, judged as in POST /v1/leases, but without the leniency Blazar's route keeps: a key its type does not
 * read (another type's field, a typo) is refused rather than ignored.
 */
const parseSearchedReservation = (raw: unknown, at: FieldPath): ReservationRequest => {
  const { resource_type: type } = validateBody(ReservationTypeDto, raw, 'reservation');
  if (isResourceType(type)) {
    const known = ['resource_type', ...declaredFields(reservationDto(type))];
    refuseUnknownFields(raw as Readonly<Record<string, unknown>>, known, at, `not a field of a ${type} reservation`);
  }
  return parseReservation(raw);
};

/** Ten years: no lease is longer, and every sum of dates stays exact. */
const MAX_DURATION_MINUTES = 10 * 366 * 24 * 60;

const malformed = (name: string, why: string) => invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (${why})`);

/** Minutes, as an integer (or int-like string) or an ISO 8601 duration of whole minutes. */
export const parseDuration = (value: unknown): number => {
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

/**
 * POST /v1/availability body -> request; each reservation judged as in POST /v1/leases, and named in a refusal by `reservationAt`
 * (GET's reservation is the query string itself).
 */
export const parseAvailabilityQuery = (
  body: unknown,
  now: DateTime,
  reservationAt: (index: number) => FieldPath = (index) => ['reservations', index],
): AvailabilityRequest => {
  const dto = validateExtensionBody(AvailabilityQueryDto, body);
  if (dto.reservations.length === 0) throw malformed('reservations', 'at least one reservation');
  return {
    durationMinutes: parseDuration(dto.duration),
    notBefore: optionalDate(dto.not_before, now),
    notAfter: optionalDate(dto.not_after, now),
    limit: parseLimit(dto.limit),
    reservations: dto.reservations.map((raw, index) => parseSearchedReservation(raw, reservationAt(index))),
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
  return parseAvailabilityQuery({ ...search, reservations: [reservation] }, now, () => []);
};
