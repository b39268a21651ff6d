import { type LeaseData, type LeaseHolding, type LeaseState, toMs } from '#domain/index.js';
import type { EnforcementResources } from '#plugins/ports/external-enforcement.port.js';
import { refused } from './enforcement-refusal.js';
import { type LeaseStackingPolicy, type StackedLease, stackingExcess, stackingRefusal, stackingScopes } from './lease-stacking.rules.js';

/** A lease decision as stacking sees it: the lease before (Initial: a new one) and after, in its project. */
export interface StackingChange {
  readonly projectId: string;
  readonly before: LeaseState;
  readonly after: LeaseState;
  readonly now: string;
}

/** Whether a lease in this state still holds what it booked: ended, ending and deleted leases are out of every stack. */
const holds = (state: LeaseState): state is Extract<LeaseState, { readonly lease: LeaseData }> => {
  switch (state.status) {
    case 'Pending':
    case 'Starting':
    case 'Active':
    case 'StartFailed':
      return true;
    case 'Initial':
    case 'Ending':
    case 'Ended':
    case 'EndFailed':
    case 'Deleted':
      return false;
    default: {
      const _never: never = state;
      return _never;
    }
  }
};

const sameBooking = (a: LeaseData, b: LeaseData): boolean =>
  a.startDate === b.startDate && a.endDate === b.endDate && JSON.stringify(a.reservations) === JSON.stringify(b.reservations);

/**
 * The `lease_stacking` filter (Chameleon's lease stacking policy as code). Unlike the other filters
 * it is judged inside the decision, on the project's other leases as the quota index has them at the
 * revision of the project's quota stream the admission is fenced on: two admissions of a project
 * decided on the same state cannot both be recorded, and the second is judged again with the first.
 */
export class LeaseStacking {
  constructor(
    private readonly policy: LeaseStackingPolicy,
    private readonly resources: EnforcementResources,
  ) {}

  /** Whether a decision may add to a stack: a new lease, or one whose window or reservations change (not a rename). */
  judges({ projectId, before, after }: StackingChange): boolean {
    if (this.policy.exemptProjectIds.has(projectId) || !holds(after)) return false;
    return !holds(before) || !sameBooking(before.lease, after.lease);
  }

  /**
   * Throws the 403 when the lease would pass the limit. `others` are the project's other leases as the
   * quota index holds them; those whose window reaches past now are read (`load`) for their state and reservations.
   */
  async check(change: StackingChange, others: readonly LeaseHolding[], load: (leaseId: string) => Promise<LeaseState>): Promise<void> {
    const { projectId, before, after, now } = change;
    if (!holds(after)) return;
    const nowMs = toMs(now);
    // only the leases that reach into either window from now on can be in a stack with it
    const judged = [after.lease, ...(holds(before) ? [before.lease] : [])];
    const from = Math.max(nowMs, Math.min(...judged.map((lease) => toMs(lease.startDate))));
    const to = Math.max(...judged.map((lease) => toMs(lease.endDate)));
    const stacked: StackedLease[] = [];
    for (const holding of others) {
      if (holding.end <= from || holding.start >= to) continue;
      const state = await load(holding.leaseId);
      if (holds(state)) stacked.push(this.stacked(state.lease));
    }
    const excess = stackingExcess(
      this.policy.max,
      nowMs,
      holds(before) ? this.stacked(before.lease) : null,
      this.stacked(after.lease),
      stacked,
    );
    if (excess !== null) throw refused('lease_stacking', stackingRefusal(this.policy, projectId, excess));
  }

  private stacked(lease: LeaseData): StackedLease {
    return {
      start: toMs(lease.startDate),
      end: toMs(lease.endDate),
      scopes: stackingScopes(this.policy.scope, this.resources, lease.reservations),
    };
  }
}
