import type { Command } from '../shared/decider.js';
import type { LeaseEventIds, LeasePhase, Leftover, Reservation, ReservationOutcome } from './lease.types.js';

export interface LeaseScheduleInput {
  readonly startDate: string;
  readonly endDate: string;
  /** Explicit before-end date from the request, or null for the configured default. */
  readonly beforeEndDate: string | null;
}

export type CreateLease = Command<
  'CreateLease',
  LeaseScheduleInput & {
    readonly leaseId: string;
    readonly name: string;
    readonly projectId: string;
    readonly userId: string;
    readonly trustId: string | null;
    /** Reservations with their allocations already chosen by the plugins' policies. */
    readonly reservations: readonly Reservation[];
    readonly eventIds: LeaseEventIds;
    /** Blazar's [manager]minutes_before_end_lease; 0 disables the default before-end event. */
    readonly minutesBeforeEnd: number;
    readonly now: string;
  }
>;

/** Fields left null are unchanged. */
export interface LeaseChanges {
  readonly name: string | null;
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly beforeEndDate: string | null;
  /** Ids of reservations the request touches (validated against the lease). */
  readonly reservationIds: readonly string[];
}

export type UpdateLease = Command<
  'UpdateLease',
  LeaseChanges & {
    readonly leaseId: string;
    /** New full state of each touched reservation, allocations included. */
    readonly reservations: readonly Reservation[];
    readonly now: string;
  }
>;

export type BeginLeasePhase = Command<'BeginLeasePhase', { readonly leaseId: string; readonly phase: LeasePhase; readonly now: string }>;

export type CompleteLeasePhase = Command<
  'CompleteLeasePhase',
  { readonly leaseId: string; readonly phase: LeasePhase; readonly outcomes: readonly ReservationOutcome[]; readonly now: string }
>;

/** An active reservation's change, as the reactor acted it out on the cloud (outcome per pending change). */
export interface UpdateOutcome {
  readonly sequence: number;
  readonly outcome: ReservationOutcome;
}

export type CompleteReservationUpdates = Command<
  'CompleteReservationUpdates',
  { readonly leaseId: string; readonly updates: readonly UpdateOutcome[]; readonly now: string }
>;

/** What a reconciliation of one active reservation found: the steps it had to redo (drift), or its failure. */
export type RecordReconciliation = Command<
  'RecordReconciliation',
  { readonly leaseId: string; readonly outcome: ReservationOutcome; readonly now: string }
>;

/** What a reclamation check of an ended lease found still in the cloud (empty: nothing). */
export type RecordLeftovers = Command<
  'RecordLeftovers',
  { readonly leaseId: string; readonly leftovers: readonly Leftover[]; readonly now: string }
>;

export type DeleteLease = Command<'DeleteLease', { readonly leaseId: string; readonly now: string }>;

/** A failed host of the reservation and what took its place (empty: nothing could). */
export interface HostReplacement {
  readonly hostId: string;
  readonly by: readonly string[];
}

/**
 * Healing of one reservation holding hosts that went down: the allocation policies chose the
 * replacements (already booked on their calendars); failed hosts nothing could replace are kept.
 */
export type HealReservation = Command<
  'HealReservation',
  {
    readonly leaseId: string;
    /** The reservation with its allocations after healing. */
    readonly reservation: Reservation;
    readonly replacements: readonly HostReplacement[];
    /** Failed hosts the reservation still holds: no replacement was free. */
    readonly unhealedHostIds: readonly string[];
    readonly now: string;
  }
>;

export type LeaseCommand =
  | CreateLease
  | UpdateLease
  | BeginLeasePhase
  | CompleteLeasePhase
  | CompleteReservationUpdates
  | RecordReconciliation
  | RecordLeftovers
  | HealReservation
  | DeleteLease;
