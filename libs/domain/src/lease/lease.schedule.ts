import type { LeaseState } from './lease.state.js';
import type { EffectPhase } from './lease.types.js';

/**
 * The next thing the reactor owes a lease: begin a phase at its date, or finish a phase whose effects
 * were begun but never recorded (after a crash, `dueAt` is then already past and it runs at once).
 */
export interface DueAction {
  readonly leaseId: string;
  /** 'update' (always step 'complete'): act out the active reservations' pending changes. */
  readonly phase: EffectPhase;
  readonly step: 'begin' | 'complete';
  readonly dueAt: string;
}

export const nextDueAction = (state: LeaseState): DueAction | null => {
  switch (state.status) {
    case 'Initial':
    case 'Ended':
    case 'EndFailed':
      return null;
    case 'Pending':
      return { leaseId: state.lease.leaseId, phase: 'start', step: 'begin', dueAt: state.lease.startDate };
    case 'Starting':
      return { leaseId: state.lease.leaseId, phase: 'start', step: 'complete', dueAt: state.lease.startDate };
    case 'Active': {
      const { lease } = state;
      if (lease.beforeEnd === 'in_progress') {
        return { leaseId: lease.leaseId, phase: 'before_end', step: 'complete', dueAt: lease.beforeEndDate ?? lease.endDate };
      }
      if (Object.keys(lease.pendingUpdates).length > 0) {
        return { leaseId: lease.leaseId, phase: 'update', step: 'complete', dueAt: lease.updatedAt ?? lease.startDate };
      }
      // a before-end action runs before the end even when both are overdue, so nothing is lost unsnapshotted
      if (lease.beforeEnd === 'undone' && lease.beforeEndDate !== null) {
        return { leaseId: lease.leaseId, phase: 'before_end', step: 'begin', dueAt: lease.beforeEndDate };
      }
      return { leaseId: lease.leaseId, phase: 'end', step: 'begin', dueAt: lease.endDate };
    }
    case 'StartFailed':
      return { leaseId: state.lease.leaseId, phase: 'end', step: 'begin', dueAt: state.lease.endDate };
    case 'Ending':
      return { leaseId: state.lease.leaseId, phase: 'end', step: 'complete', dueAt: state.lease.endDate };
    case 'Deleted':
      return state.end === 'pending' ? { leaseId: state.lease.leaseId, phase: 'end', step: 'complete', dueAt: state.deletedAt } : null;
    default: {
      const _never: never = state;
      return _never;
    }
  }
};
