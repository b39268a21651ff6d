import {
  type ExistingLease,
  LAST_INSTANT_MS,
  MINUTE_MS,
  type Reservation,
  invalid,
  leaseStream,
  requireExisting,
  scheduleForUpdate,
  toMs,
  truncateToMinute,
} from '#domain/index.js';
import type { AdmissionContext, ReservationSupply } from '#plugins/admission/admission.port.js';
import type { ReservationTypeAvailability, WholeHostSweep } from '#plugins/availability/availability.port.js';
import type { HostQuery } from '#plugins/query/blazar-query.js';
import { ADMISSION_REGISTRY, type AdmissionRegistry, Admissions } from '#plugins/admission/admission.registry.js';
import { type ReservationRequest, reservationType } from '#plugins/reservation-types.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import type { ApplicationContext } from '../application-context.js';
import { type Caller, authorize, leaseTarget } from '../caller.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { calendarIndexOf } from './calendar-index.js';
import { bookingsOnHeld } from './calendar-kinds.js';
import { HostSweeper, matchingHosts } from './host-sweep.js';
import { type Attempt, type WindowQuery, WindowSearch } from './window-search.js';
import { headroomRuleFor } from '../guardrails/freepool-headroom.js';

/** How far ahead a search looks when the caller does not say (and a counter-offer always). */
export const DEFAULT_HORIZON_DAYS = 90;
export const DEFAULT_LIMIT = 5;
export const MAX_LIMIT = 50;

const DAY_MS = 24 * 60 * MINUTE_MS;

/** Where a search from `start` that the caller did not bound stops: the default horizon, or the last instant a date may be. */
const horizonFrom = (start: number): number => Math.min(start + DEFAULT_HORIZON_DAYS * DAY_MS, LAST_INSTANT_MS);

/** A lease request's reservations, how long, and between when (ISO-8601 UTC; null: now, and `notBefore` + 90 days). */
export interface AvailabilityRequest {
  readonly reservations: readonly ReservationRequest[];
  readonly durationMinutes: number;
  readonly notBefore: string | null;
  readonly notAfter: string | null;
  readonly limit: number;
}

/** What one reservation of the request could be given in a window (see ReservationSupply). */
export interface ReservationAvailability extends ReservationSupply {
  readonly resourceType: ReservationRequest['resourceType'];
  /** As the type counts it (`availability.requested`): min for hosts, amount for instances and floating IPs. */
  readonly requested: number;
}

/** The windows found, and where a search that ran out of attempts stopped (null: it did not). */
export interface Availability {
  readonly windows: readonly AvailabilityWindow[];
  readonly searchedUntil: string | null;
}

export interface AvailabilityWindow {
  readonly startDate: string;
  readonly endDate: string;
  readonly reservations: readonly ReservationAvailability[];
}

/** How far a lease can be prolonged on what it holds now. */
export interface LeaseExtension {
  readonly leaseId: string;
  readonly endDate: string;
  /** Null: nothing booked later stands in the way (up to the last instant a date may be, LAST_INSTANT_MS). */
  readonly maxEndDate: string | null;
  /** End of the earliest booking that stands in the way (null when none does). */
  readonly conflictEndDate: string | null;
}

export interface Window {
  readonly startDate: string;
  readonly endDate: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** What a reservation's or request's type adds to the search. */
const availabilityOf = ({ resourceType }: Reservation | ReservationRequest): ReservationTypeAvailability<Reservation, ReservationRequest> =>
  reservationType(resourceType).availability;

/** A request whose type a sweep answers. */
interface SweptRequest {
  readonly request: ReservationRequest;
  readonly sweep: WholeHostSweep<ReservationRequest>;
}

const sweptRequests = (reservations: readonly ReservationRequest[]): SweptRequest[] =>
  reservations.flatMap((request) => {
    const { sweep } = availabilityOf(request);
    return sweep === null ? [] : [{ request, sweep }];
  });

/**
 * Where and when a lease request would be admitted: answered from the write side's index (the
 * calendars admission decides on, caught up to the log's head), by trying the admission itself, so a
 * window it offers is admitted unless someone books in between.
 */
export class AvailabilityQueries {
  private readonly admissions: Admissions;
  private readonly search: WindowSearch;

  constructor(
    private readonly app: ApplicationContext,
    registry: AdmissionRegistry = ADMISSION_REGISTRY,
  ) {
    this.admissions = new Admissions(registry);
    this.search = new WindowSearch(app);
  }

  async windows(caller: Caller, request: AvailabilityRequest, now: string): Promise<Availability> {
    authorize(caller, ACTIONS.availabilityGet);
    const notBefore = Math.max(
      truncateToMinute(now),
      request.notBefore === null ? 0 : Math.ceil(toMs(request.notBefore) / MINUTE_MS) * MINUTE_MS,
    );
    const notAfter = request.notAfter === null ? horizonFrom(notBefore) : Math.min(toMs(request.notAfter), LAST_INSTANT_MS);
    // a search from the last minute on finds nothing, as one whose windows could only end after it
    if (request.notAfter === null && notAfter <= notBefore) return { windows: [], searchedUntil: null };
    if (notAfter <= notBefore) throw invalid('INVALID_RANGE', 'not_after must be later than not_before (and than now)');
    await this.app.index.catchUp();
    return this.find(caller, request.reservations, request.durationMinutes * MINUTE_MS, notBefore, notAfter, request.limit);
  }

  /**
   * The counter-offer for a refused new lease: the earliest windows of its duration from its requested
   * start, within the default horizon. Run after the refusal, outside the write lock.
   */
  async alternativesForCreate(
    caller: Caller,
    reservations: readonly ReservationRequest[],
    startDate: string,
    endDate: string,
    limit: number,
  ): Promise<Window[]> {
    await this.app.index.catchUp();
    const start = Math.ceil(toMs(startDate) / MINUTE_MS) * MINUTE_MS;
    const { windows } = this.find(caller, reservations, toMs(endDate) - toMs(startDate), start, horizonFrom(start), limit);
    return windows.map(({ startDate: s, endDate: e }) => ({ startDate: s, endDate: e }));
  }

  /**
   * The counter-offer for a refused change of a lease that has not started: the earliest windows of
   * its new duration from its new start where the same change (readmission with the same patches)
   * would be admitted. A started lease cannot move: none.
   */
  async alternativesForUpdate(
    caller: Caller,
    existing: ExistingLease,
    attemptAt: (admissions: Admissions) => Attempt,
    window: Window,
    limit: number,
  ): Promise<Window[]> {
    if (existing.status !== 'Pending') return [];
    await this.app.index.catchUp();
    const start = Math.ceil(toMs(window.startDate) / MINUTE_MS) * MINUTE_MS;
    const duration = toMs(window.endDate) - toMs(window.startDate);
    const { reservations } = existing.lease;
    const query = {
      attempt: attemptAt(this.admissions),
      alone: null,
      earliestPossible: null,
      possibleAdmits: false,
      scopes: reservations.flatMap((reservation) => availabilityOf(reservation).heldScopes(reservation)),
      durationMs: duration,
      notBefore: start,
      notAfter: horizonFrom(start),
      limit,
      caller,
      enteringMatters: reservations.length > 1,
    };
    return this.search.windows(query).starts.map((s) => ({ startDate: iso(s), endDate: iso(s + duration) }));
  }

  /** How far the lease can be prolonged on the hosts and addresses it holds now (as a started lease keeps them). */
  async extension(caller: Caller, leaseId: string, now: string): Promise<LeaseExtension> {
    const loaded = await this.app.handler.load(leaseDecider, leaseStream(leaseId));
    const existing = requireExisting(loaded.state, leaseId);
    authorize(caller, ACTIONS.leaseExtension, leaseTarget(existing.lease));
    const { startDate, endDate, reservations } = existing.lease;
    const end = toMs(endDate);
    // the lease must still be changeable at all (not ended, not busy), as an update would judge it
    scheduleForUpdate(
      existing,
      { name: null, startDate: null, endDate: iso(end + MINUTE_MS), beforeEndDate: null, reservationIds: [] },
      now,
    );
    // no later end can be asked for
    if (end >= LAST_INSTANT_MS) return { leaseId, endDate, maxEndDate: endDate, conflictEndDate: null };
    await this.app.index.catchUp();
    const attempt: Attempt = (context) => {
      for (const reservation of reservations) this.admissions.readmit(context, reservation, undefined, true);
    };
    const fits = (until: number): boolean => this.search.admits({ attempt, caller }, toMs(startDate), until);
    for (const { point, bookingEnd } of this.blockingPoints(reservations, end)) {
      if (!fits(point + MINUTE_MS)) return { leaseId, endDate, maxEndDate: iso(point), conflictEndDate: iso(bookingEnd) };
    }
    return { leaseId, endDate, maxEndDate: null, conflictEndDate: null };
  }

  private find(
    caller: Caller,
    reservations: readonly ReservationRequest[],
    durationMs: number,
    notBefore: number,
    notAfter: number,
    limit: number,
  ): Availability {
    const { starts, searchedUntil } = this.search.windows(this.windowQuery(caller, reservations, durationMs, notBefore, notAfter, limit));
    const supplyAt = this.supplies(caller, reservations, durationMs, notAfter - durationMs);
    const windows = starts.map((start) => {
      const supply = supplyAt(start);
      return {
        startDate: iso(start),
        endDate: iso(start + durationMs),
        reservations: reservations.map((request, i) => ({
          resourceType: request.resourceType,
          requested: availabilityOf(request).requested(request),
          ...(supply[i] as ReservationSupply),
        })),
      };
    });
    return { windows, searchedUntil: searchedUntil === null ? null : iso(searchedUntil) };
  }

  /**
   * What each reservation could be given at windows asked in order: those a sweep answers from it (the
   * host policy's own count, without a pass over every host per window), the others from their policies.
   */
  private supplies(
    caller: Caller,
    reservations: readonly ReservationRequest[],
    durationMs: number,
    lastStart: number,
  ): (start: number) => ReservationSupply[] {
    const sweepers = reservations.map((request) => {
      const { sweep } = availabilityOf(request);
      return sweep === null ? null : this.hostSweeper(sweep.demand(request), durationMs, lastStart);
    });
    const others = reservations.filter((_, i) => sweepers[i] === null);
    return (start) => {
      const supplied =
        others.length === 0
          ? []
          : this.search.supply(others, caller, start, start + durationMs, (context, request) => this.admissions.supply(context, request));
      let next = 0;
      return reservations.map((_, i) => sweepers[i]?.supplyAt(start) ?? (supplied[next++] as ReservationSupply));
    };
  }

  private hostSweeper(
    { query, min }: { readonly query: HostQuery; readonly min: number },
    durationMs: number,
    lastStart: number,
  ): HostSweeper {
    const { hosts } = calendarIndexOf(this.app.index);
    const cleaningMs = this.app.settings.cleaningTimeMinutes * MINUTE_MS;
    return new HostSweeper(hosts, { matching: matchingHosts(hosts, query), min, durationMs, cleaningMs, lastStart });
  }

  private windowQuery(
    caller: Caller,
    reservations: readonly ReservationRequest[],
    durationMs: number,
    notBefore: number,
    notAfter: number,
    limit: number,
  ): WindowQuery {
    const admit =
      (requests: readonly ReservationRequest[]): Attempt =>
      (context: AdmissionContext) => {
        for (const request of requests) this.admissions.admit(context, request);
      };
    const swept = sweptRequests(reservations);
    // one reservation a sweep answers, alone: where its sweep finds enough hosts free, its policy admits it
    // (unless the freepool headroom rule judges the caller's leases too: the sweep does not count it)
    const possibleAdmits = reservations.length === 1 && swept.length === 1 && headroomRuleFor(this.app.settings, caller) === null;
    // the sweep already ends a search for swept reservations that never fit: with others, the attempts
    // at each window would meet any other refusal of theirs. Alone, what it proves (no refusal but for
    // capacity) does not depend on how much it asks for: one host instead of two hundred makes it cheap.
    const tried = possibleAdmits
      ? swept.map(({ request, sweep }) => sweep.single(request))
      : reservations.filter((request) => availabilityOf(request).sweep === null);
    return {
      attempt: admit(reservations),
      alone: tried.map((request) => admit([request])),
      earliestPossible: this.sweptEarliestPossible(swept, durationMs, notAfter - durationMs),
      possibleAdmits,
      scopes: reservations.flatMap((request) => availabilityOf(request).scopes(request)),
      durationMs,
      notBefore,
      notAfter,
      limit,
      caller,
      enteringMatters: reservations.length > 1,
    };
  }

  /**
   * For reservations a sweep answers: alone, each needs `min` matching hosts free, which a sweep over the
   * hosts' calendars finds; the whole request fits no earlier than a start where each of them does.
   */
  private sweptEarliestPossible(
    swept: readonly SweptRequest[],
    durationMs: number,
    lastStart: number,
  ): ((from: number) => number | null) | null {
    if (swept.length === 0) return null;
    const sweepers = swept.map(({ request, sweep }) => this.hostSweeper(sweep.demand(request), durationMs, lastStart));
    return (from) => {
      let start = from;
      for (let moved = true; moved;) {
        moved = false;
        for (const sweeper of sweepers) {
          const earliest = sweeper.earliestFrom(start);
          if (earliest === null) return null;
          if (earliest > start) [start, moved] = [earliest, true];
        }
      }
      return start;
    };
  }

  /**
   * Minutes after the lease's end where a longer lease first meets another booking on what it holds
   * (its start, or its start less the cleaning time), in order, each with that booking's end.
   */
  private blockingPoints(reservations: readonly Reservation[], end: number): { readonly point: number; readonly bookingEnd: number }[] {
    const held = new Set(reservations.map((r) => r.id));
    const cleaningMs = this.app.settings.cleaningTimeMinutes * MINUTE_MS;
    const points: { readonly point: number; readonly bookingEnd: number }[] = [];
    for (const booking of bookingsOnHeld(this.app.index, reservations)) {
      if (held.has(booking.reservationId)) continue;
      for (const point of [booking.start - cleaningMs, booking.start]) {
        const minute = Math.floor(point / MINUTE_MS) * MINUTE_MS;
        if (minute >= end) points.push({ point: minute, bookingEnd: booking.end });
      }
    }
    return points.sort((a, b) => a.point - b.point || a.bookingEnd - b.bookingEnd);
  }
}
