import type { FlavorCatalogState, FlavorViewer, HostReplacement, Reservation } from '#domain/index.js';
import type { BookingWindow, ReservationCalendars } from './calendars.port.js';

/** The lease window an admission books in (for healing: from now on). */
export interface AdmissionSchedule {
  readonly leaseId: string;
  readonly startDate: string;
  readonly endDate: string;
}

/** What one admission decides with: the calendars, the window, who asks, the flavor catalog and new ids. */
export interface AdmissionContext {
  readonly calendars: ReservationCalendars;
  readonly schedule: AdmissionSchedule;
  /** Private catalog flavors are visible to admins only. */
  readonly caller: FlavorViewer;
  readonly flavors: FlavorCatalogState;
  /** New ids (the application's: UUIDs, deterministic in specifications). */
  readonly newId: () => string;
}

/** What healing one reservation came to: its new allocations, what replaced what, what is still held down. */
export interface Healing<R extends Reservation = Reservation> {
  readonly reservation: R;
  readonly replacements: readonly HostReplacement[];
  readonly unhealedHostIds: readonly string[];
}

/**
 * How much of what a request asks for the calendars hold over the context's window: `matching`
 * resources (hosts, or floating IPs registered on the network) and how many units are `free`
 * (hosts, instances of the requested size under its affinity, addresses).
 */
export interface ReservationSupply {
  readonly matching: number;
  readonly free: number;
}

/**
 * One resource type's part of a lease (as EffectsRegistry is for its effects): pure decisions that
 * choose resources with the type's allocation policy and book them on the context's calendars.
 */
export interface ReservationAdmission<R extends Reservation, Q, C> {
  /** A new reservation for the request, its resources booked. */
  admit(context: AdmissionContext, request: Q): R;
  /** An existing reservation under the lease's (possibly new) dates and the change (the type's wire `C`); `started`: the lease runs. */
  readmit(context: AdmissionContext, reservation: R, change: C | undefined, started: boolean): R;
  /**
   * Replaces the reservation's hosts that are `down` with free ones over the context's window. What
   * cannot be replaced is kept (it may come back) and reported unhealed. Null: nothing held is down.
   */
  heal(context: AdmissionContext, reservation: R, down: ReadonlySet<string>): Healing<R> | null;
  /** What the request could be given over the context's window, by the same policy as admit (nothing booked). */
  supply(context: AdmissionContext, request: Q): ReservationSupply;
  /** Frees everything the reservation holds. */
  release(context: AdmissionContext, reservation: R): void;
}

/** The window of one reservation of the context's lease. */
export const bookingWindow = (context: AdmissionContext, reservationId: string, propertyNames: readonly string[]): BookingWindow => ({
  ...context.schedule,
  reservationId,
  propertyNames,
});
