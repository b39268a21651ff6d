import { type FlavorViewer, MINUTE_MS, isDomainError } from '#domain/index.js';
import type { AdmissionContext, AdmissionSchedule, ReservationSupply } from '#plugins/admission/admission.port.js';
import type { CalendarScope } from '#plugins/availability/availability.port.js';
import { RESERVATION_TYPES, type ReservationRequest } from '#plugins/reservation-types.js';
import type { ApplicationContext } from '../application-context.js';
import type { BookingPlan } from '../write-model/booking-plan.js';
import { admissionContext, bookingPlan } from '../write-model/lease-admission.js';
import { calendarIndexOf } from './calendar-index.js';
import { relevantCalendars } from './calendar-kinds.js';
import { CandidateStarts } from './candidate-starts.js';
import { headroomRuleFor, headroomShortfalls } from '../guardrails/freepool-headroom.js';

/** What a refusal for lack of capacity is: a type's shortage, a calendar's own guard, or the freepool headroom rule. */
const CAPACITY_CODES: ReadonlySet<string> = new Set([
  ...RESERVATION_TYPES.flatMap((module) => module.availability.shortages),
  'HOST_ALREADY_BOOKED',
  'FLOATING_IP_ALREADY_BOOKED',
  'FREEPOOL_HEADROOM',
]);

export const isCapacityRefusal = (error: unknown): boolean =>
  isDomainError(error) && error.kind === 'conflict' && CAPACITY_CODES.has(error.code);

/**
 * One admission tried at one window: the very decisions a lease write takes (admit, or readmit on an
 * update), on fresh working copies of the calendars; it throws what the write would throw.
 */
export type Attempt = (context: AdmissionContext) => void;

export interface WindowQuery {
  readonly attempt: Attempt;
  /**
   * Each reservation's attempt on its own, when the request is of new reservations: one that fails even
   * on calendars with nothing booked fails at every start (alone, a reservation's admission only gets
   * harder as bookings are added, and in the request it also meets the others' bookings), so the
   * search ends at once.
   */
  readonly alone: readonly Attempt[] | null;
  /**
   * The earliest start at or after `from` at which the request could fit at all (a bound: its host
   * reservations alone, each from a sweep over the calendars), null when none could before the
   * search's end; null instead of a function: no such knowledge.
   */
  readonly earliestPossible: ((from: number) => number | null) | null;
  /** Whether the request is admitted wherever `earliestPossible` says it could be (no attempt needed there). */
  readonly possibleAdmits: boolean;
  /** The calendars that can change the answer: those its reservations may use (each type's `availability.scopes`). */
  readonly scopes: readonly CalendarScope[];
  /** Whole minutes. */
  readonly durationMs: number;
  /** Epoch ms on a minute: the earliest start. */
  readonly notBefore: number;
  /** Epoch ms: no window ends later. */
  readonly notAfter: number;
  readonly limit: number;
  readonly caller: FlavorViewer;
  /**
   * The answer may change when a booking enters the window, not only when one leaves it: only with
   * several reservations, whose policies' preferences (packing slots next to others) can interact.
   */
  readonly enteringMatters: boolean;
}

const SEARCH_LEASE = 'availability-search';

/**
 * Most admissions one search tries: each costs a pass over the matching calendars, and a request that
 * does not fit for a long time could otherwise hold the process for seconds. A search that runs out
 * says where it stopped: every start before that was tried (or could not differ from one tried).
 */
export const MAX_ATTEMPTS_PER_SEARCH = 250;

/** The starts found, earliest first, and where the search stopped short (null: it covered the range or found enough). */
export interface SearchResult {
  readonly starts: readonly number[];
  readonly searchedUntil: number | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The earliest windows in which a request would be admitted at once, found by asking the admission
 * itself. An admission at [s, s+D) depends only on the bookings within the cleaning time of that
 * window, so its answer can change only at a minute where a booking leaves it (its end, or end plus
 * cleaning time) or, when `enteringMatters`, enters it. Those minutes, with `notBefore`, are the only
 * starts worth trying: between two of them the answer stays what it was at the earlier one. They are
 * read in order from the calendars' sorted lists, and `earliestPossible` skips past the ones where
 * the host reservations alone could not fit, so a search tries few admissions.
 */
export class WindowSearch {
  constructor(private readonly app: ApplicationContext) {}

  /** Whether the attempt admits the request in [start, end): false on a refusal for lack of capacity; any other refusal is thrown. */
  admits(query: Pick<WindowQuery, 'attempt' | 'caller'>, start: number, end: number): boolean {
    const plan = bookingPlan(this.app);
    try {
      query.attempt(this.context(plan, query.caller, start, end));
      return !this.breaksHeadroom(plan, query.caller, start, end);
    } catch (error) {
      if (isCapacityRefusal(error)) return false;
      throw error;
    }
  }

  /** Whether the freepool headroom rule would refuse this caller's lease at [start, end), as the lease's own decision judges it. */
  private breaksHeadroom(plan: BookingPlan, caller: FlavorViewer, start: number, end: number): boolean {
    const rule = headroomRuleFor(this.app.settings, caller);
    if (rule === null) return false;
    return (
      headroomShortfalls(rule, { before: plan.registeredHosts(), after: plan.workingHosts() }, SEARCH_LEASE, {
        fromMs: start,
        toMs: end,
        nowMs: start,
      }).length > 0
    );
  }

  /** Non-overlapping windows, each the earliest start at or after the previous one's end, at most `limit`. */
  windows(query: WindowQuery): SearchResult {
    const candidates = this.candidateStarts(query);
    const fitsAlone = this.fitsAlone(query, candidates);
    // a search that tries no admission still meets any other refusal of the request's
    if (query.possibleAdmits && !fitsAlone()) return { starts: [], searchedUntil: null };
    const found: number[] = [];
    const budget = { left: MAX_ATTEMPTS_PER_SEARCH };
    let from = query.notBefore;
    while (found.length < query.limit) {
      // once a window was found, each reservation fits alone: only the first window's search may ask
      const next = this.earliestFrom(query, from, candidates, budget, found.length === 0 ? fitsAlone : () => true);
      if (next === null) break;
      if ('stoppedAt' in next) return { starts: found, searchedUntil: next.stoppedAt };
      found.push(next.start);
      from = next.start + query.durationMs;
    }
    return { starts: found, searchedUntil: null };
  }

  /** What each request could be given at [start, end), on the calendars as they stand. */
  supply(
    requests: readonly ReservationRequest[],
    caller: FlavorViewer,
    start: number,
    end: number,
    supplyOf: (context: AdmissionContext, request: ReservationRequest) => ReservationSupply,
  ): ReservationSupply[] {
    const context = this.context(bookingPlan(this.app), caller, start, end);
    return requests.map((request) => supplyOf(context, request));
  }

  /**
   * Whether each reservation alone fits where nothing relevant is booked any more, asked at most once
   * and only when needed: a request admitted at its first try needs no such proof.
   */
  private fitsAlone(query: WindowQuery, candidates: CandidateStarts): () => boolean {
    let answer: boolean | null = query.alone === null ? true : null;
    return () => {
      if (answer === null) {
        const emptyFrom = candidates.emptyFrom(query.notBefore);
        answer = (query.alone ?? []).every((attempt) =>
          this.admits({ attempt, caller: query.caller }, emptyFrom, emptyFrom + query.durationMs),
        );
      }
      return answer;
    };
  }

  private earliestFrom(
    query: WindowQuery,
    from: number,
    candidates: CandidateStarts,
    budget: { left: number },
    fitsAlone: () => boolean,
  ): { readonly start: number } | { readonly stoppedAt: number } | null {
    const lastStart = query.notAfter - query.durationMs;
    let start: number | null = from;
    for (;;) {
      if (start === null || start > lastStart) return null;
      const possible = query.earliestPossible === null ? start : query.earliestPossible(start);
      if (possible === null || possible > lastStart) return null;
      if (query.possibleAdmits) return { start: possible };
      start = possible;
      if (budget.left-- <= 0) return { stoppedAt: start };
      if (this.admits(query, start, start + query.durationMs)) return { start };
      if (!fitsAlone()) return null;
      start = candidates.next(start);
    }
  }

  /** Where the answer may change: the sorted bookings of the relevant resources, read lazily. */
  private candidateStarts(query: WindowQuery): CandidateStarts {
    const { durationMs, enteringMatters } = query;
    return new CandidateStarts(relevantCalendars(calendarIndexOf(this.app.index), query.scopes), {
      durationMs,
      cleaningMs: this.app.settings.cleaningTimeMinutes * MINUTE_MS,
      enteringMatters,
      lastStart: query.notAfter - durationMs,
    });
  }

  private context(plan: BookingPlan, caller: FlavorViewer, start: number, end: number): AdmissionContext {
    const schedule: AdmissionSchedule = { leaseId: SEARCH_LEASE, startDate: iso(start), endDate: iso(end) };
    let ids = 0;
    return { ...admissionContext(this.app, plan, schedule, caller), newId: () => `${SEARCH_LEASE}-${++ids}` };
  }
}
