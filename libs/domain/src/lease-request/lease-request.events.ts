import type { DomainEvent } from '../shared/decider.js';

/**
 * One reservation as the request asked for it: its type and its fields by the domain's names, as the type's wire read them
 * (the domain knows no reservation type). Kept as asked rather than as a type's parsed request, so that an admission long
 * after the submission parses it with the code of its day.
 */
export interface RequestedReservation {
  readonly resourceType: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/** Who a request belongs to: every event of it says so, so that a feed or a channel needs no other event to place it. */
export interface RequestOwner {
  readonly requestId: string;
  readonly projectId: string;
  readonly userId: string;
}

/** A lease asked for without dates: `durationMinutes` long, starting in [notBefore, startBy] (ISO-8601 UTC). */
export type LeaseRequestSubmitted = DomainEvent<
  'LeaseRequest.Submitted',
  RequestOwner & {
    readonly name: string;
    readonly reservations: readonly RequestedReservation[];
    readonly durationMinutes: number;
    readonly notBefore: string;
    readonly startBy: string;
    readonly submittedAt: string;
  }
>;
/** The request became the lease `leaseId`, recorded in the same append as the lease's creation. */
export type LeaseRequestAdmitted = DomainEvent<
  'LeaseRequest.Admitted',
  RequestOwner & { readonly leaseId: string; readonly admittedAt: string }
>;
/** Its owner took the request back before it was admitted. */
export type LeaseRequestWithdrawn = DomainEvent<'LeaseRequest.Withdrawn', RequestOwner & { readonly withdrawnAt: string }>;

export type LeaseRequestEvent = LeaseRequestSubmitted | LeaseRequestAdmitted | LeaseRequestWithdrawn;
