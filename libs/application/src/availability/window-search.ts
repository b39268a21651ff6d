import { type FlavorViewer, MINUTE_MS, isDomainError } from '#domain/index.js';
import type { AdmissionContext, AdmissionSchedule, ReservationSupply } from '#plugins/admission/admission.port.js';
import type { ReservationRequest } from '#plugins/admission/admission.registry.js';
import { matchesHost } from '#plugins/query/blazar-query.js';
import type { ApplicationContext } from '../application-context.js';
import type { BookingPlan } from '../write-model/booking-plan.js';
import { admissionContext, bookingPlan } from '../write-model/lease-admission.js';
import { toHostSnapshot } from '../write-model/write-index.js';

/** What a refusal for lack of capacity is: the policies' shortages, or a calendar's own guard. */
const CAPACITY_CODES = new Set(['NOT_ENOUGH_HOSTS', 'NOT_ENOUGH_FLOATING_IPS', 'HOST_ALREADY_BOOKED', 'FLOATING_IP_ALREADY_BOOKED']);

export const isCapacityRefusal = (error: unknown): boolean => isDomainError(error) && error.kind === 'conflict' && CAPACITY_CODES.has(error.code);

/**
 * One admission tried at one window: the very decisions a lease write takes (admit, or readmit on an
 * update), on fresh working copies of the calendars; it throws what the write would throw.
 */
export type Attempt = (context: AdmissionContext) => void;

/** Which calendars can change the answer: the hosts the request's host or slot reservations may use, the floating IPs of its networks. */
export interface Relevance {
  readonly hosts: 'all' | 'none' | readonly ReservationRequest[];
  readonly networkIds: readonly string[];
}

export interface WindowQuery {
  readonly attempt: Attempt;
  readonly relevance: Relevance;
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

const iso = (ms: number): string => new Date(ms).toISOString();

/** The first minute at or after `ms`. */
const minuteFrom = (ms: number): number => Math.ceil(ms / MINUTE_MS) * MINUTE_MS;

/** The first minute strictly after `ms`. */
const minuteAfter = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS + MINUTE_MS;

/** Index of the first member of the sorted `values` greater than `value`. */
const firstAbove = (values: readonly number[], value: number): number => {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((values[mid] as number) > value) high = mid;
    else low = mid + 1;
  }
  return low;
};

/**
 * The earliest windows in which a request would be admitted at once, found by asking the admission
 * itself. An admission at [s, s+D) depends only on the bookings within the cleaning time of that
 * window, so its answer can change only at a minute where a booking leaves it (its end, or end plus
 * cleaning time) or, when `enteringMatters`, enters it. Those minutes, with `notBefore`, are the only
 * starts worth trying: between two of them the answer stays what it was at the earlier one.
 */
export class WindowSearch {
  constructor(private readonly app: ApplicationContext) {}

  /** Whether the attempt admits the request in [start, end): false on a refusal for lack of capacity; any other refusal is thrown. */
  admits(query: Pick<WindowQuery, 'attempt' | 'caller'>, start: number, end: number): boolean {
    const plan = bookingPlan(this.app);
    try {
      query.attempt(this.context(plan, query.caller, start, end));
      return true;
    } catch (error) {
      if (isCapacityRefusal(error)) return false;
      throw error;
    }
  }

  /** Non-overlapping windows, each the earliest start at or after the previous one's end, at most `limit`. */
  windows(query: WindowQuery): number[] {
    const starts = this.candidateStarts(query);
    const found: number[] = [];
    let from = query.notBefore;
    while (found.length < query.limit) {
      const start = this.earliestFrom(query, from, starts);
      if (start === null) break;
      found.push(start);
      from = start + query.durationMs;
    }
    return found;
  }

  /** What each request could be given at [start, end), on the calendars as they stand. */
  supply(requests: readonly ReservationRequest[], caller: FlavorViewer, start: number, end: number, supplyOf: (context: AdmissionContext, request: ReservationRequest) => ReservationSupply): ReservationSupply[] {
    const context = this.context(bookingPlan(this.app), caller, start, end);
    return requests.map((request) => supplyOf(context, request));
  }

  private earliestFrom(query: WindowQuery, from: number, starts: readonly number[]): number | null {
    const tries = [from, ...starts.slice(firstAbove(starts, from))];
    for (const start of tries) {
      if (start + query.durationMs > query.notAfter) return null;
      if (this.admits(query, start, start + query.durationMs)) return start;
    }
    return null;
  }

  /** Sorted distinct minutes after `notBefore` where the admission's answer may change. */
  private candidateStarts(query: WindowQuery): number[] {
    const cleaningMs = this.app.settings.cleaningTimeMinutes * MINUTE_MS;
    const duration = query.durationMs;
    const points = new Set<number>();
    const add = (booking: { readonly start: number; readonly end: number }): void => {
      points.add(minuteFrom(booking.end));
      points.add(minuteFrom(booking.end + cleaningMs));
      if (query.enteringMatters) {
        points.add(minuteAfter(booking.start - duration));
        points.add(minuteAfter(booking.start - duration - cleaningMs));
      }
    };
    for (const host of this.relevantHosts(query.relevance)) for (const booking of host.bookings) add(booking);
    const networks = new Set(query.relevance.networkIds);
    for (const ip of this.app.index.registeredFloatingIps()) if (networks.has(ip.networkId)) for (const booking of ip.bookings) add(booking);
    const last = query.notAfter - duration;
    return [...points].filter((point) => point > query.notBefore && point <= last).sort((a, b) => a - b);
  }

  private relevantHosts({ hosts }: Relevance) {
    const registered = this.app.index.registeredHosts();
    if (hosts === 'none') return [];
    if (hosts === 'all') return registered;
    return registered.filter((host) => {
      const snapshot = toHostSnapshot(host);
      return snapshot.columns.reservable && hosts.some((request) => !('query' in request) || matchesHost(request.query, snapshot));
    });
  }

  private context(plan: BookingPlan, caller: FlavorViewer, start: number, end: number): AdmissionContext {
    const schedule: AdmissionSchedule = { leaseId: SEARCH_LEASE, startDate: iso(start), endDate: iso(end) };
    let ids = 0;
    return { ...admissionContext(this.app, plan, schedule, caller), newId: () => `${SEARCH_LEASE}-${++ids}` };
  }
}

/** Which calendars matter to a request for new reservations. */
export const relevanceOf = (requests: readonly ReservationRequest[]): Relevance => {
  const hostLike = requests.filter((request) => request.resourceType !== 'virtual:floatingip');
  return {
    hosts: hostLike.length === 0 ? 'none' : hostLike,
    networkIds: requests.flatMap((request) => (request.resourceType === 'virtual:floatingip' ? [request.networkId] : [])),
  };
};
