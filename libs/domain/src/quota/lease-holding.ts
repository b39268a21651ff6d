import { toMs } from '../shared/interval.js';
import type { LeaseEvent } from '../lease/lease.events.js';
import type { LeaseData, LeaseState } from '../lease/lease.state.js';
import type { Reservation } from '../lease/lease.types.js';
import type { HeldQuota, LeaseHolding, QuotaAmounts } from './quota.types.js';

/** What one reservation holds of each quota (its type module's `quota.amounts`). */
export type ReservationAmounts = (reservation: Reservation) => QuotaAmounts;

/** Every quota any of `amounts` names, summed. */
const sum = (amounts: readonly QuotaAmounts[]): QuotaAmounts => {
  const total: Partial<Record<HeldQuota, number>> = {};
  for (const each of amounts)
    for (const [name, amount] of Object.entries(each) as [HeldQuota, number][]) total[name] = (total[name] ?? 0) + amount;
  return total;
};

/** A lease as it stands (not deleted): its whole window. */
export const leaseHolding = (amountsOf: ReservationAmounts, lease: LeaseData): LeaseHolding => ({
  leaseId: lease.leaseId,
  projectId: lease.projectId,
  start: toMs(lease.startDate),
  end: toMs(lease.endDate),
  amounts: sum(lease.reservations.map(amountsOf)),
});

/** A lease state as quotas count it; null for none or a deleted one (a decision never stands on one). */
export const holdingOfState = (amountsOf: ReservationAmounts, state: LeaseState): LeaseHolding | null =>
  state.status === 'Initial' || state.status === 'Deleted' ? null : leaseHolding(amountsOf, state.lease);

/** What the quota index keeps of a lease: its holding, per reservation, and whether its start began. */
export interface TrackedLease {
  readonly leaseId: string;
  readonly projectId: string;
  readonly start: number;
  readonly end: number;
  readonly reservations: Readonly<Record<string, QuotaAmounts>>;
  readonly started: boolean;
}

export const trackedHolding = (tracked: TrackedLease): LeaseHolding => ({
  leaseId: tracked.leaseId,
  projectId: tracked.projectId,
  start: tracked.start,
  end: tracked.end,
  amounts: sum(Object.values(tracked.reservations)),
});

const withReservation = (amountsOf: ReservationAmounts, tracked: TrackedLease, r: Reservation): TrackedLease => ({
  ...tracked,
  reservations: { ...tracked.reservations, [r.id]: amountsOf(r) },
});

/**
 * Folds a lease's events into what quotas count. Every lease not deleted counts over its window,
 * whatever its status (its bookings stay on the calendars until it is deleted, a lease in error
 * too); a deleted lease that never began to start held nothing; one deleted after it began held
 * its resources until the delete.
 */
export const trackLease = (amountsOf: ReservationAmounts, tracked: TrackedLease | null, event: LeaseEvent): TrackedLease | null => {
  if (event.type === 'Lease.Created') {
    const { leaseId, projectId, startDate, endDate, reservations } = event.data;
    const base: TrackedLease = { leaseId, projectId, start: toMs(startDate), end: toMs(endDate), reservations: {}, started: false };
    return reservations.reduce((lease, r) => withReservation(amountsOf, lease, r), base);
  }
  if (tracked === null) return null;
  switch (event.type) {
    case 'Lease.Rescheduled':
      return { ...tracked, start: toMs(event.data.startDate), end: toMs(event.data.endDate) };
    case 'Reservation.Changed':
    case 'Reservation.Healed':
      return withReservation(amountsOf, tracked, event.data.reservation);
    case 'Lease.StartRequested':
      return { ...tracked, started: true };
    case 'Lease.Deleted':
      return tracked.started ? { ...tracked, end: Math.max(tracked.start, Math.min(tracked.end, toMs(event.data.at))) } : null;
    default:
      return tracked;
  }
};
