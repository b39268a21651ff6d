import { type DomainError, conflict } from '#domain/shared/errors.js';
import { type Calendar, wholeHostFreeFor } from '#domain/host/host.capacity.js';
import { type Interval, overlapping, overlaps } from '#domain/shared/interval.js';
import { type HostQuery, matchesHost } from '../query/blazar-query.js';
import type { HostSnapshot } from './host-snapshot.js';

export interface HostAllocationRequest {
  readonly min: number;
  readonly max: number;
  /** Already combined hypervisor_properties and resource_properties. */
  readonly query: HostQuery;
  /** [start, end) epoch ms of the lease. */
  readonly window: Interval;
  /** Margin added on both sides of the window (Blazar's [DEFAULT]cleaning_time). */
  readonly cleaningTimeMs: number;
  /** On update: this reservation's own bookings don't make a host busy. */
  readonly reservationId?: string;
  /** On update: hosts the reservation already holds, preferred in this order while still free. */
  readonly keepHostIds?: readonly string[];
}

export type HostAllocationResult =
  | { readonly ok: true; readonly hostIds: readonly string[] }
  | { readonly ok: false; readonly matching: number; readonly free: number; readonly requested: number };

export type HostAllocationFailure = Extract<HostAllocationResult, { readonly ok: false }>;

/**
 * Picks up to `max` (at least `min`) reservable hosts that match the query and have no booking
 * (whole host or instance slots) in the lease window widened by the cleaning time.
 * O(M · (Q + log L + K) + F log F) for M hosts, Q conditions, L bookings per host, K bookings near the
 * window and F free candidates: each calendar is binary-searched.
 * Unlike upstream, hosts never used before are not preferred over free hosts used before, and no
 * randomisation: the order is kept hosts first, then host id ascending.
 */
export const allocateHosts = (request: HostAllocationRequest, hosts: readonly HostSnapshot[]): HostAllocationResult => {
  const { matching, free } = hostSupply(request, hosts);
  if (free.length < request.min) {
    return { ok: false, matching, free: free.length, requested: request.min };
  }
  return { ok: true, hostIds: preferenceOrder(free, request.keepHostIds ?? []).slice(0, Math.max(0, request.max)) };
};

/** Hosts in compareHostIds order (the policy's own order after kept hosts), by place, and each by id. */
export interface HostsInIdOrder {
  readonly count: number;
  /** The host at `place` (0 to count - 1) in id order; undefined for a place that holds no host now. */
  at(place: number): HostSnapshot | undefined;
  /** The calendar of the host at `place` (its snapshot's bookings), without making the snapshot. */
  calendarAt(place: number): Calendar | undefined;
  /** Undefined for an id not among them. */
  byId(id: string): HostSnapshot | undefined;
  /**
   * The places, ascending, of a superset of the hosts the query matches (a capability index's answer), or null to
   * visit every place. Absent: every place.
   */
  placesMatching?(query: HostQuery): readonly number[] | null;
}

/** The places an allocation visits, in order. */
interface Places {
  readonly count: number;
  placeAt(index: number): number;
}

/** The places to visit for a query: the index's, or every place. */
const placesFor = (hosts: HostsInIdOrder, query: HostQuery): Places => {
  const places = hosts.placesMatching?.(query) ?? null;
  return places === null
    ? { count: hosts.count, placeAt: (index) => index }
    : { count: places.length, placeAt: (index) => places[index] as number };
};

/**
 * allocateHosts' answer (failures included) from hosts already in id order: the scan stops once enough
 * hosts are free, instead of testing every host and sorting the free ones; only a failure counts the
 * matching hosts (one more pass).
 */
export const allocateHostsInIdOrder = (request: HostAllocationRequest, hosts: HostsInIdOrder): HostAllocationResult => {
  const candidate = (host: HostSnapshot) => host.columns.reservable && matchesHost(request.query, host);
  const free = wholeHostFreeFor(request.window, request.cleaningTimeMs, request.reservationId);
  const kept = new Set<string>();
  for (const id of request.keepHostIds ?? []) {
    const host = hosts.byId(id);
    if (host !== undefined && free(host) && candidate(host)) kept.add(id);
  }
  const chosen = [...kept];
  // past max the answer is cut anyway; below min it is a failure, which has looked at every host
  const enough = Math.max(request.min, request.max, 0);
  const places = placesFor(hosts, request.query);
  for (let index = 0; index < places.count && chosen.length < enough; index++) {
    const place = places.placeAt(index);
    // most hosts passed over are busy: their calendars say so before any snapshot is made
    const calendar = hosts.calendarAt(place);
    if (calendar === undefined || !free(calendar)) continue;
    const host = hosts.at(place);
    if (host !== undefined && !kept.has(host.id) && candidate(host)) chosen.push(host.id);
  }
  if (chosen.length < request.min)
    return { ok: false, matching: countMatching(hosts, places, candidate), free: chosen.length, requested: request.min };
  return { ok: true, hostIds: chosen.slice(0, Math.max(0, request.max)) };
};

const countMatching = (hosts: HostsInIdOrder, places: Places, candidate: (host: HostSnapshot) => boolean): number => {
  let matching = 0;
  for (let index = 0; index < places.count; index++) {
    const host = hosts.at(places.placeAt(index));
    if (host !== undefined && candidate(host)) matching++;
  }
  return matching;
};

/** What the policy chooses among: how many reservable hosts match, and which of them are free for the window. */
export const hostSupply = (
  request: Pick<HostAllocationRequest, 'query' | 'window' | 'cleaningTimeMs' | 'reservationId'>,
  hosts: readonly HostSnapshot[],
): { readonly matching: number; readonly free: readonly HostSnapshot[] } => {
  const candidates = hosts.filter((host) => host.columns.reservable && matchesHost(request.query, host));
  return {
    matching: candidates.length,
    free: candidates.filter(wholeHostFreeFor(request.window, request.cleaningTimeMs, request.reservationId)),
  };
};

/**
 * The earliest start from which `needed` more of the matching hosts busy in the request's window could
 * be free: each busy host no earlier than its nearby bookings' and maintenance windows' last end plus the cleaning time. A
 * bound, not a promise (later bookings may still stand in the way); null when fewer are busy.
 */
export const hostsFreeFrom = (
  request: Pick<HostAllocationRequest, 'query' | 'window' | 'cleaningTimeMs'>,
  hosts: readonly HostSnapshot[],
  needed: number,
): number | null => {
  const widened = { start: request.window.start - request.cleaningTimeMs, end: request.window.end + request.cleaningTimeMs };
  const freeFrom: number[] = [];
  for (const host of hosts) {
    if (!host.columns.reservable || !matchesHost(request.query, host)) continue;
    const near = [...overlapping(host.bookings, widened, host.longestBookingMs), ...host.maintenance.filter((m) => overlaps(m, widened))];
    if (near.length > 0) freeFrom.push(Math.max(...near.map((b) => b.end)) + request.cleaningTimeMs);
  }
  if (needed < 1 || freeFrom.length < needed) return null;
  return freeFrom.sort((a, b) => a - b)[needed - 1] ?? null;
};

const preferenceOrder = (free: readonly HostSnapshot[], keepHostIds: readonly string[]): string[] => {
  const rank = new Map<string, number>();
  for (const id of keepHostIds) if (!rank.has(id)) rank.set(id, rank.size);
  const ids = free.map((host) => host.id);
  const kept = ids.filter((id) => rank.has(id)).sort((a, b) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0));
  const others = ids.filter((id) => !rank.has(id)).sort(compareHostIds);
  return [...kept, ...others];
};

/** Only the digits 0-9 (a loop, not a regular expression: sorts call this for every comparison). */
const isDecimal = (id: string): boolean => {
  if (id.length === 0) return false;
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
};

/** Without leading zeros, keeping one digit. */
const withoutLeadingZeros = (digits: string): string => {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  return i === 0 ? digits : digits.slice(i);
};

/** Decimal ids by value (exact at any length), before any other id; those by string. A total order. */
export const compareHostIds = (a: string, b: string): number => {
  const aDecimal = isDecimal(a);
  const bDecimal = isDecimal(b);
  if (aDecimal !== bDecimal) return aDecimal ? -1 : 1;
  const byValue = aDecimal ? compareDecimals(a, b) : 0;
  return byValue !== 0 ? byValue : compareStrings(a, b);
};

const compareDecimals = (a: string, b: string): number => {
  const x = withoutLeadingZeros(a);
  const y = withoutLeadingZeros(b);
  return x.length !== y.length ? x.length - y.length : compareStrings(x, y);
};

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Upstream answers 500 "Not enough hosts available"; we answer 409 and say why. */
export const notEnoughHostsError = (failure: HostAllocationFailure): DomainError =>
  conflict('NOT_ENOUGH_HOSTS', `Not enough hosts available: ${describeShortage(failure)}, ${failure.requested} requested (min)`);

const describeShortage = ({ matching, free }: HostAllocationFailure): string => {
  if (matching === 0) return 'no reservable host matches the requested properties';
  const hosts = matching === 1 ? '1 reservable host matches' : `${matching} reservable hosts match`;
  return `${hosts} the requested properties and ${free} of them ${free === 1 ? 'is' : 'are'} free for the whole lease (cleaning time included)`;
};
