import { type Resources, freeSlotCount, slotCapacity } from '#domain/host/host.capacity.js';
import type { AllocationRatios } from '#domain/host/host.types.js';
import { type DomainError, conflict } from '#domain/shared/errors.js';
import { type Interval, someOverlapping } from '#domain/shared/interval.js';
import type { Affinity, SlotAllocation } from './instance.reservation.js';
import { compareHostIds } from '../physical-host/host-allocation.policy.js';
import type { HostSnapshot } from '../physical-host/host-snapshot.js';
import { type HostQuery, matchesHost } from '../query/blazar-query.js';

export interface InstanceAllocationRequest {
  readonly amount: number;
  /** What one instance takes. */
  readonly demand: Resources;
  readonly affinity: Affinity;
  /** The reservation's resource_properties, parsed. */
  readonly query: HostQuery;
  /** [start, end) epoch ms of the lease. */
  readonly window: Interval;
  /** Margin that keeps slots away from whole-host bookings (Blazar's [DEFAULT]cleaning_time). */
  readonly cleaningTimeMs: number;
  readonly ratios: AllocationRatios;
  /** On update: this reservation's own bookings do not count as used. */
  readonly reservationId?: string;
  /** On update: the slots the reservation holds now, kept where they still fit. */
  readonly current?: readonly SlotAllocation[];
  /** A started reservation has instances on its slots: every current slot must be kept. */
  readonly keepAll?: boolean;
}

export type InstanceAllocationResult =
  | { readonly ok: true; readonly allocations: readonly SlotAllocation[] }
  | {
      readonly ok: false;
      readonly requested: number;
      /** Reservable hosts that match the properties and could hold one instance of this size at all. */
      readonly matching: number;
      /** Instances of this size that fit on them for the whole window, however placed. */
      readonly available: number;
      readonly affinity: Affinity;
      readonly reason: 'shortage' | 'current_slots';
    };

export type InstanceAllocationFailure = Extract<InstanceAllocationResult, { readonly ok: false }>;

interface Candidate {
  readonly id: string;
  readonly free: number;
  /** Already carries instance slots in the window: preferred, to keep whole hosts free (upstream packs too). */
  readonly shared: boolean;
  readonly current: number;
}

const totalsOf = (host: HostSnapshot): Resources => ({
  vcpus: host.columns.vcpus,
  memoryMb: host.columns.memory_mb,
  diskGb: host.columns.local_gb,
});

const fitsOnce = (capacity: Resources, demand: Resources): boolean =>
  demand.vcpus <= capacity.vcpus && demand.memoryMb <= capacity.memoryMb && demand.diskGb <= capacity.diskGb;

/** Kept hosts first (most current slots first), then hosts already sharing slots, then host id. */
const preference = (a: Candidate, b: Candidate): number =>
  b.current - a.current || Number(b.shared) - Number(a.shared) || compareHostIds(a.id, b.id);

const byHostId = (allocations: SlotAllocation[]): SlotAllocation[] => allocations.sort((a, b) => compareHostIds(a.hostId, b.hostId));

/**
 * Carves `amount` instance slots from reservable hosts matching the properties, never beyond a host's
 * capacity (totals x allocation ratios) at any instant of the window, never next to a whole-host
 * booking. Affinity true: all on one host; false: each on its own host; null: packed, fewest hosts
 * first. On update the current slots are kept where they fit (all of them when `keepAll`).
 * O(M · (Q + log L + K log K)) for M hosts, Q conditions, L bookings per host, K near the window.
 */
export const allocateInstances = (request: InstanceAllocationRequest, hosts: readonly HostSnapshot[]): InstanceAllocationResult => {
  const currentOf = new Map((request.current ?? []).map((a) => [a.hostId, a.count]));
  const { candidates, matching } = slotCandidates(request, hosts, currentOf);
  candidates.sort(preference);
  const failure = (reason: 'shortage' | 'current_slots'): InstanceAllocationFailure => ({
    ok: false,
    requested: request.amount,
    matching,
    available: availableInstances(candidates, request.affinity, request.keepAll === true),
    affinity: request.affinity,
    reason,
  });
  if (request.keepAll === true && !keepsCurrent(candidates, currentOf)) return failure('current_slots');
  const allocations = pick(request, candidates);
  return allocations === null ? failure('shortage') : { ok: true, allocations: byHostId(allocations) };
};

type SlotSupplyRequest = Omit<InstanceAllocationRequest, 'amount' | 'affinity' | 'current' | 'keepAll'>;

/** Reservable hosts matching the properties that could hold one instance at all, with the slots free on each, in host order. */
const slotCandidates = (
  request: SlotSupplyRequest,
  hosts: readonly HostSnapshot[],
  currentOf: ReadonlyMap<string, number>,
): { readonly candidates: Candidate[]; readonly matching: number } => {
  const question = {
    window: request.window,
    cleaningTimeMs: request.cleaningTimeMs,
    demand: request.demand,
    reservationId: request.reservationId,
  };
  const candidates: Candidate[] = [];
  let matching = 0;
  for (const host of hosts) {
    if (!host.columns.reservable || !matchesHost(request.query, host)) continue;
    const capacity = slotCapacity(totalsOf(host), request.ratios);
    if (!fitsOnce(capacity, request.demand)) continue;
    matching++;
    const free = freeSlotCount(host, capacity, question);
    const shared = someOverlapping(
      host.bookings,
      request.window,
      host.longestBookingMs,
      (b) => b.slots !== null && b.reservationId !== request.reservationId,
    );
    candidates.push({ id: host.id, free, shared, current: currentOf.get(host.id) ?? 0 });
  }
  return { candidates, matching };
};

/** Instances of this size the policy could place for the window under the affinity, however placed. */
const availableInstances = (candidates: readonly Candidate[], affinity: Affinity, keepAll: boolean): number =>
  affinity === true ? Math.max(0, ...usableForAffinity(candidates, keepAll).map((c) => c.free)) : countAvailable(candidates, affinity);

/** What the policy chooses among: hosts that could hold one such instance, and how many instances fit for the window under the affinity. */
export const instanceSupply = (
  request: SlotSupplyRequest & Pick<InstanceAllocationRequest, 'affinity'>,
  hosts: readonly HostSnapshot[],
): { readonly matching: number; readonly available: number } => {
  const { candidates, matching } = slotCandidates(request, hosts, new Map());
  return { matching, available: availableInstances(candidates, request.affinity, false) };
};

/** With affinity, a started reservation may only grow on the host it holds. */
const usableForAffinity = (candidates: readonly Candidate[], keepAll: boolean): readonly Candidate[] =>
  keepAll && candidates.some((c) => c.current > 0) ? candidates.filter((c) => c.current > 0) : candidates;

const countAvailable = (candidates: readonly Candidate[], affinity: Affinity): number =>
  affinity === false ? candidates.filter((c) => c.free > 0).length : candidates.reduce((sum, c) => sum + c.free, 0);

/** Every host the reservation holds slots on is still a candidate with room for all of them. */
const keepsCurrent = (candidates: readonly Candidate[], currentOf: ReadonlyMap<string, number>): boolean =>
  [...currentOf.entries()].every(([hostId, count]) => (candidates.find((c) => c.id === hostId)?.free ?? 0) >= count);

const pick = (request: InstanceAllocationRequest, candidates: readonly Candidate[]): SlotAllocation[] | null => {
  const { amount, affinity } = request;
  if (affinity === true) {
    const host = usableForAffinity(candidates, request.keepAll === true).find((c) => c.free >= amount);
    return host === undefined ? null : [{ hostId: host.id, count: amount }];
  }
  if (affinity === false) {
    const hosts = candidates.filter((c) => c.free >= 1).slice(0, amount);
    return hosts.length < amount ? null : hosts.map((c) => ({ hostId: c.id, count: 1 }));
  }
  const chosen: SlotAllocation[] = [];
  let left = amount;
  // current slots first, up to what the reservation holds there, then pack the rest
  for (const round of ['current', 'any'] as const) {
    for (const c of candidates) {
      if (left === 0) break;
      const already = chosen.find((a) => a.hostId === c.id)?.count ?? 0;
      const limit = round === 'current' ? Math.min(c.current, c.free) : c.free;
      const take = Math.min(left, limit - already);
      if (take <= 0) continue;
      const others = chosen.filter((a) => a.hostId !== c.id);
      chosen.length = 0;
      chosen.push(...others, { hostId: c.id, count: already + take });
      left -= take;
    }
  }
  return left > 0 ? null : chosen;
};

/** Upstream answers 500 "Not enough hosts available"; we answer 409 and say why. */
export const notEnoughInstanceSlotsError = (failure: InstanceAllocationFailure): DomainError => {
  if (failure.reason === 'current_slots') {
    return conflict(
      'NOT_ENOUGH_HOSTS',
      'Not enough hosts available: the hosts of this started reservation cannot keep its instances over the new dates',
    );
  }
  const where =
    failure.matching === 0
      ? 'no reservable host matches the requested properties and size'
      : failure.affinity === true
        ? `at most ${failure.available} such instance(s) fit on any single host (affinity requires one host)`
        : failure.affinity === false
          ? `${failure.available} host(s) have room for one such instance (anti-affinity requires one host each)`
          : `${failure.available} such instance(s) fit on the ${failure.matching} matching host(s)`;
  return conflict('NOT_ENOUGH_HOSTS', `Not enough hosts available: ${where} for the whole lease, ${failure.requested} requested`);
};
