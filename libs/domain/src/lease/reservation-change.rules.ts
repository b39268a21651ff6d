import { conflictField } from '../shared/errors.js';
import type { Reservation } from './lease.types.js';
import type { ReservationRulesOf } from './reservation-rules.js';

/**
 * What a change of an existing reservation may touch, as upstream's plugins decide it. Each type's admission
 * asks its rules before allocating (so a request gets the error it always got); the lease decider asks them
 * again of the reservation it records.
 */

/** A reservation named by a change, with the resource type the change says it has (null: not said). */
export interface TypedChange {
  readonly id: string;
  readonly resourceType: string | null;
}

const resourceTypeChanged = () => conflictField('CANT_UPDATE_PARAMETER', '{field:resourceType} cannot be updated');

/** A reservation keeps the type it was made with (409). Changes of reservations the lease lacks are judged elsewhere. */
export const checkResourceTypes = (reservations: readonly Reservation[], changes: readonly TypedChange[]): void => {
  for (const change of changes) {
    const reservation = reservations.find((r) => r.id === change.id);
    if (change.resourceType !== null && reservation !== undefined && change.resourceType !== reservation.resourceType)
      throw resourceTypeChanged();
  }
};

/** A change as it would be recorded (`next`) against the reservation recorded (`current`): same type, then the type's own rules. */
export const checkReservationChange = (rulesOf: ReservationRulesOf, current: Reservation, next: Reservation, started: boolean): void => {
  if (next.resourceType !== current.resourceType) throw resourceTypeChanged();
  rulesOf(current.resourceType).checkChange(current, next, started);
};
