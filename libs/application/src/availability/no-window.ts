import type { DomainError } from '#domain/index.js';
import { MAX_ATTEMPTS_PER_SEARCH } from './window-search.js';

/**
 * Why a search found no window: the request never fits, even where nothing is booked; bookings fill the
 * range; the search ran out of tries; or the range is shorter than the duration.
 */
export type NoWindowCode = 'NEVER_FITS' | 'ALL_BOOKED' | 'SEARCH_STOPPED' | 'RANGE_TOO_SHORT';

/** What was asked: the range searched (ISO-8601 UTC, after `now` and the horizon applied) and the duration. */
export interface AskedRange {
  readonly notBefore: string;
  readonly notAfter: string;
  readonly durationMinutes: number;
}

/** The admission's own refusal at the start judged, as a lease asking for that window would get it in a 409. */
export interface Blocker {
  readonly code: string;
  readonly message: string;
  readonly at: string;
}

/** Each reservation's `requested`, `matching` and `free` at the start judged, as a window reports them. */
export interface JudgedReservation {
  readonly resourceType: string;
  readonly requested: number;
  readonly matching: number;
  readonly free: number;
}

export interface NoWindow {
  readonly code: NoWindowCode;
  readonly message: string;
  readonly asked: AskedRange;
  /** Empty when no start was judged (a range too short, a search that stopped). */
  readonly reservations: readonly JudgedReservation[];
  readonly blockedBy: Blocker | null;
  /** A start after the range where the request fits (nothing booked stands in the way any more); null: none known. */
  readonly fitsAt: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Blazar's `YYYY-MM-DD HH:MM`, as counter-offer's `requestDate`, which would import the queries back. */
const requestDate = (value: string): string => `${value.slice(0, 10)} ${value.slice(11, 16)}`;

const blocker = (refusal: DomainError | null, at: number): Blocker | null =>
  refusal === null ? null : { code: refusal.code, message: refusal.message, at: iso(at) };

export const rangeTooShort = (asked: AskedRange): NoWindow => ({
  code: 'RANGE_TOO_SHORT',
  message: `No window of ${asked.durationMinutes} minutes fits between ${requestDate(asked.notBefore)} and ${requestDate(asked.notAfter)}`,
  asked,
  reservations: [],
  blockedBy: null,
  fitsAt: null,
});

export const searchStopped = (asked: AskedRange, stoppedAt: string): NoWindow => ({
  code: 'SEARCH_STOPPED',
  message: `No window found before the search stopped at ${requestDate(stoppedAt)} (at most ${MAX_ATTEMPTS_PER_SEARCH} tries a search): ask again from there`,
  asked,
  reservations: [],
  blockedBy: null,
  fitsAt: null,
});

export const neverFits = (asked: AskedRange, reservations: readonly JudgedReservation[], refusal: DomainError, at: number): NoWindow => ({
  code: 'NEVER_FITS',
  message: `No window: the request is refused even where nothing is booked (${requestDate(iso(at))}): ${refusal.message}`,
  asked,
  reservations,
  blockedBy: blocker(refusal, at),
  fitsAt: null,
});

export const allBooked = (
  asked: AskedRange,
  reservations: readonly JudgedReservation[],
  refusal: DomainError | null,
  fitsAt: number | null,
): NoWindow => {
  const at = requestDate(asked.notBefore);
  const why = refusal === null ? '' : ` (at ${at}: ${refusal.message})`;
  const when = fitsAt === null ? '' : ` It fits from ${requestDate(iso(fitsAt))}, when nothing booked stands in the way.`;
  return {
    code: 'ALL_BOOKED',
    message: `No window of ${asked.durationMinutes} minutes from ${at} to ${requestDate(asked.notAfter)}: bookings stand in the way${why}.${when}`,
    asked,
    reservations,
    blockedBy: blocker(refusal, Date.parse(asked.notBefore)),
    fitsAt: fitsAt === null ? null : iso(fitsAt),
  };
};
