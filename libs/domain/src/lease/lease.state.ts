import type { LeaseEventIds, Leftover, PhaseProgress, Reservation } from './lease.types.js';

export interface LeaseData {
  readonly leaseId: string;
  readonly name: string;
  readonly projectId: string;
  readonly userId: string;
  readonly trustId: string | null;
  readonly startDate: string;
  readonly endDate: string;
  readonly beforeEndDate: string | null;
  readonly reservations: readonly Reservation[];
  readonly eventIds: LeaseEventIds;
  readonly beforeEnd: PhaseProgress;
  /** Counts reservation changes; each change of an active lease is numbered with it. */
  readonly changeSequence: number;
  /**
   * Reservations changed while the lease was active whose cloud effects are still owed, with the
   * number of their latest change: the reactor acts them out ('update' effects) and records the outcome.
   */
  readonly pendingUpdates: Readonly<Record<string, number>>;
  /** Upstream's reservation flags, set by healing (absent: both false). */
  readonly healing: Readonly<Record<string, ReservationFlags>>;
  /** What the last reclamation check found of the ended lease still in the cloud (sorted; empty: nothing). */
  readonly leftovers: readonly Leftover[];
  readonly createdAt: string;
  readonly updatedAt: string | null;
}

export interface ReservationFlags {
  readonly missingResources: boolean;
  readonly resourcesChanged: boolean;
}

export const NO_FLAGS: ReservationFlags = { missingResources: false, resourcesChanged: false };

/** Where a deleted lease's end stands: a lease deleted while started still has to be ended. */
export type DeletedEnd = 'none' | 'pending' | 'done' | 'failed';

export type LeaseState =
  | { readonly status: 'Initial' }
  | { readonly status: 'Pending'; readonly lease: LeaseData }
  | { readonly status: 'Starting'; readonly lease: LeaseData }
  | { readonly status: 'Active'; readonly lease: LeaseData }
  | { readonly status: 'StartFailed'; readonly lease: LeaseData; readonly reason: string }
  | { readonly status: 'Ending'; readonly lease: LeaseData }
  | { readonly status: 'Ended'; readonly lease: LeaseData }
  | { readonly status: 'EndFailed'; readonly lease: LeaseData; readonly reason: string }
  | { readonly status: 'Deleted'; readonly lease: LeaseData; readonly end: DeletedEnd; readonly deletedAt: string };

export type ExistingLease = Exclude<LeaseState, { status: 'Initial' }>;

export const initialLeaseState = (): LeaseState => ({ status: 'Initial' });
