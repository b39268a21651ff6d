import { type DomainError, conflict, invalid } from '#domain/shared/errors.js';
import { type Interval, isFree, widen } from '#domain/shared/interval.js';
import { clearOfMaintenance } from '#domain/shared/maintenance.js';
import type { FloatingIpAllocation } from './floating-ip.reservation.js';
import type { FloatingIpSnapshot } from './floating-ip-snapshot.js';

export interface FloatingIpAllocationRequest {
  readonly networkId: string;
  readonly amount: number;
  /** Addresses that must be part of the allocation (already canonical). */
  readonly requiredAddresses: readonly string[];
  readonly window: Interval;
  readonly cleaningTimeMs: number;
  /** On update: this reservation's own bookings do not make an address busy. */
  readonly reservationId?: string;
  /** On update: the addresses held now, kept where still free (all of them when `keepAll`). */
  readonly current?: readonly string[];
  readonly keepAll?: boolean;
}

export type FloatingIpAllocationResult =
  | { readonly ok: true; readonly allocations: readonly FloatingIpAllocation[] }
  | {
      readonly ok: false;
      readonly requested: number;
      readonly registered: number;
      readonly free: number;
      readonly busyRequired: readonly string[];
      /** The required addresses among busyRequired that a maintenance window keeps from the lease. */
      readonly inMaintenance: readonly string[];
    };

export type FloatingIpAllocationFailure = Extract<FloatingIpAllocationResult, { readonly ok: false }>;

const compareAddresses = (a: FloatingIpSnapshot, b: FloatingIpSnapshot): number =>
  a.address < b.address ? -1 : a.address > b.address ? 1 : 0;

/**
 * Picks `amount` addresses registered on the network and free for the window (widened by the
 * cleaning time, and clear of their maintenance windows): required ones first, then the ones held now, then never-booked ones (upstream's
 * preference), then the rest, by address. Unregistered required addresses are the caller's error.
 */
export const allocateFloatingIps = (
  request: FloatingIpAllocationRequest,
  ips: readonly FloatingIpSnapshot[],
): FloatingIpAllocationResult => {
  const onNetwork = ips.filter((ip) => ip.networkId === request.networkId);
  for (const address of request.requiredAddresses) {
    if (!onNetwork.some((ip) => ip.address === address)) {
      throw invalid('FLOATING_IP_NOT_REGISTERED', `Floating IP ${address} is not a reservable floating IP of network ${request.networkId}`);
    }
  }
  const own = (b: { readonly reservationId: string }): boolean => b.reservationId === request.reservationId;
  const free = freeOf(request, onNetwork);
  const freeAddresses = new Set(free.map((ip) => ip.address));
  const current = new Set(request.current ?? []);
  const mustHave = new Set([...request.requiredAddresses, ...(request.keepAll === true ? current : [])]);
  const busyRequired = [...mustHave].filter((address) => !freeAddresses.has(address));
  const inMaintenance = onNetwork
    .filter(
      (ip) => busyRequired.includes(ip.address) && !clearOfMaintenance(ip, request.window, request.cleaningTimeMs, request.reservationId),
    )
    .map((ip) => ip.address);
  const rank = (ip: FloatingIpSnapshot): number =>
    mustHave.has(ip.address) ? 0 : current.has(ip.address) ? 1 : ip.bookings.every(own) ? 2 : 3;
  const chosen = [...free].sort((a, b) => rank(a) - rank(b) || compareAddresses(a, b)).slice(0, request.amount);
  if (busyRequired.length > 0 || chosen.length < request.amount || mustHave.size > request.amount) {
    return { ok: false, requested: request.amount, registered: onNetwork.length, free: free.length, busyRequired, inMaintenance };
  }
  const allocations = chosen.sort(compareAddresses).map((ip) => ({ floatingIpId: ip.id, address: ip.address }));
  return { ok: true, allocations };
};

const freeOf = (
  request: Pick<FloatingIpAllocationRequest, 'window' | 'cleaningTimeMs' | 'reservationId'>,
  ips: readonly FloatingIpSnapshot[],
): FloatingIpSnapshot[] => {
  const window = widen(request.window, request.cleaningTimeMs);
  return ips.filter(
    (ip) =>
      isFree(ip.bookings, window, (b) => b.reservationId === request.reservationId) &&
      clearOfMaintenance(ip, request.window, request.cleaningTimeMs, request.reservationId),
  );
};

/** What the policy chooses among: the addresses registered on the network, and how many of them are free for the window. */
export const floatingIpSupply = (
  request: Pick<FloatingIpAllocationRequest, 'networkId' | 'window' | 'cleaningTimeMs'>,
  ips: readonly FloatingIpSnapshot[],
): { readonly registered: number; readonly free: number } => {
  const onNetwork = ips.filter((ip) => ip.networkId === request.networkId);
  return { registered: onNetwork.length, free: freeOf(request, onNetwork).length };
};

/** Upstream answers 400 NotEnoughFloatingIPAvailable; a shortage of capacity is a 409 here, like hosts. */
export const notEnoughFloatingIpsError = (failure: FloatingIpAllocationFailure): DomainError => {
  if (failure.inMaintenance.length > 0) {
    return conflict(
      'FLOATING_IP_IN_MAINTENANCE',
      `Not enough floating IPs available: ${failure.inMaintenance.join(', ')} in maintenance during part of this period`,
    );
  }
  if (failure.busyRequired.length > 0) {
    return conflict(
      'NOT_ENOUGH_FLOATING_IPS',
      `Not enough floating IPs available: ${failure.busyRequired.join(', ')} already reserved for this period`,
    );
  }
  return conflict(
    'NOT_ENOUGH_FLOATING_IPS',
    `Not enough floating IPs available: ${failure.registered} registered on the network, ${failure.free} free for the whole lease, ${failure.requested} requested`,
  );
};
