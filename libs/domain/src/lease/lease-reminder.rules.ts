import { invalid } from '../shared/errors.js';
import type { LeaseEvent } from './lease.events.js';
import type { LeaseData } from './lease.state.js';
import type { Reservation } from './lease.types.js';
import type { ReservationRulesOf } from './reservation-rules.js';

/** The reservations whose tenant asked to be reminded of the end (a host reservation's before_end `notify`). */
const remindedReservationIds = (rulesOf: ReservationRulesOf, reservations: readonly Reservation[]): string[] =>
  reservations.flatMap((r) => (rulesOf(r.resourceType).remindsBeforeEnd(r) ? [r.id] : []));

/**
 * A reminder goes out at the before-end date: without one (none given and the operator's
 * minutes_before_end_lease is 0) it would silently never go out, so the request is refused.
 */
export const checkReminderDate = (
  rulesOf: ReservationRulesOf,
  reservations: readonly Reservation[],
  beforeEndDate: string | null,
): void => {
  if (beforeEndDate === null && remindedReservationIds(rulesOf, reservations).length > 0) {
    throw invalid(
      'BEFORE_END_NOTIFY_WITHOUT_DATE',
      'before_end notify needs a before_end_date: this cloud sets no default one (minutes_before_end_lease is 0)',
    );
  }
};

/** Recorded with Lease.BeforeEndRequested, so the reminder goes out exactly once, when the phase begins. */
export const endingSoonEvents = (rulesOf: ReservationRulesOf, lease: LeaseData, at: string): LeaseEvent[] => {
  const reservationIds = remindedReservationIds(rulesOf, lease.reservations);
  if (reservationIds.length === 0) return [];
  const { leaseId, projectId, endDate } = lease;
  return [{ type: 'Lease.EndingSoonNotified', data: { leaseId, projectId, endDate, reservationIds, at } }];
};
