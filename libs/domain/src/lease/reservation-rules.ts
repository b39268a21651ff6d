import type { Reservation, ResourceType } from './reservation-type-map.js';

/**
 * What the lease decider asks of a reservation's type: each type module (libs/plugins) implements these
 * for its own reservations, and the decider is built with them (`leaseDeciderWith`).
 */
export interface ReservationRules<R extends Reservation = Reservation> {
  /**
   * Refuses, with a typed domain error, a change the type does not allow: `next` as the change would record
   * the reservation, against `current` as recorded; `started`: the lease began to start.
   */
  checkChange(current: R, next: R, started: boolean): void;
  /** The hosts a healing may replace (what HealReservation names); null: the type's reservations are never healed. */
  healedHostIds(reservation: R): readonly string[] | null;
  /** Whether the tenant asked to be reminded, at the before-end date, that the lease ends. */
  remindsBeforeEnd(reservation: R): boolean;
}

/** The rules of each type, as the lease decider is given them. */
export type ReservationRulesOf = (type: ResourceType) => ReservationRules;
