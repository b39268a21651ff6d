import type { LeaseEvent } from '#domain/index.js';
import type { ReservationRequest } from '#plugins/reservation-types.js';
import type { ReservationPatch } from '#plugins/admission/reservation-patch.js';
import type { AppCommand } from '../command.js';

/** A new lease as requested: dates as ISO-8601 UTC, reservations validated. */
export interface CreateLeaseRequest {
  readonly name: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly beforeEndDate: string | null;
  readonly reservations: readonly ReservationRequest[];
}

/** Changes of a lease; null fields are left alone. */
export interface UpdateLeaseRequest {
  readonly name: string | null;
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly beforeEndDate: string | null;
  readonly reservations: readonly ReservationPatch[];
}

export type CreateLeaseCommand = AppCommand<'CreateLease', CreateLeaseRequest>;
export type UpdateLeaseCommand = AppCommand<'UpdateLease', { readonly leaseId: string; readonly changes: UpdateLeaseRequest }>;
export type DeleteLeaseCommand = AppCommand<'DeleteLease', { readonly leaseId: string }>;

/** A lease write as recorded: every event of the lease stream after it (for the answer) and where it ended. */
export interface LeaseWritten {
  readonly leaseId: string;
  readonly events: readonly LeaseEvent[];
  /** Position of the last event written (0 when nothing changed). */
  readonly position: number;
}
