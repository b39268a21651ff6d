import type { LeaseEvent } from './lease.events.js';
import type { ExistingLease, LeaseData, LeaseState } from './lease.state.js';

const withLease = (state: ExistingLease, lease: LeaseData): LeaseState => ({ ...state, lease });

/** Applies events that change the lease's data without moving it through its lifecycle. */
const evolveData = (lease: LeaseData, event: LeaseEvent): LeaseData => {
  switch (event.type) {
    case 'Lease.Renamed':
      return { ...lease, name: event.data.name, updatedAt: event.data.renamedAt };
    case 'Lease.Rescheduled': {
      const { startDate, endDate, beforeEndDate, rescheduledAt } = event.data;
      // upstream re-arms a before-end action that already ran when its date moves
      const beforeEnd = beforeEndDate !== lease.beforeEndDate && lease.beforeEnd !== 'in_progress' ? 'undone' : lease.beforeEnd;
      return { ...lease, startDate, endDate, beforeEndDate, beforeEnd, updatedAt: rescheduledAt };
    }
    case 'Reservation.Changed': {
      const { reservation, changedAt } = event.data;
      const reservations = lease.reservations.map((r) => (r.id === reservation.id ? reservation : r));
      return { ...lease, reservations, changeSequence: lease.changeSequence + 1, updatedAt: changedAt };
    }
    case 'Reservation.Healed': {
      const { reservation, missingResources, resourcesChanged, at } = event.data;
      const reservations = lease.reservations.map((r) => (r.id === reservation.id ? reservation : r));
      const healing = { ...lease.healing, [reservation.id]: { missingResources, resourcesChanged } };
      return { ...lease, reservations, healing, changeSequence: lease.changeSequence + 1, updatedAt: at };
    }
    case 'Reservation.UpdateApplied':
    case 'Reservation.UpdateFailed': {
      const { sequence, reservationId } = event.data;
      if (lease.pendingUpdates[reservationId] !== sequence) return lease;
      const { [reservationId]: _done, ...pendingUpdates } = lease.pendingUpdates;
      return { ...lease, pendingUpdates };
    }
    case 'Lease.BeforeEndRequested':
      return { ...lease, beforeEnd: 'in_progress', updatedAt: event.data.at };
    case 'Lease.BeforeEndCompleted':
      return { ...lease, beforeEnd: 'done', updatedAt: event.data.at };
    case 'Lease.BeforeEndFailed':
      return { ...lease, beforeEnd: 'error', updatedAt: event.data.at };
    case 'Lease.LeftoversFound':
      return { ...lease, leftovers: event.data.leftovers };
    case 'Lease.LeftoversCleared':
      return { ...lease, leftovers: [] };
    default:
      return lease;
  }
};

const evolveLifecycle = (state: ExistingLease, event: LeaseEvent): LeaseState => {
  const lease = state.lease;
  switch (event.type) {
    case 'Lease.StartRequested':
      return { status: 'Starting', lease };
    case 'Lease.Started':
      return { status: 'Active', lease };
    case 'Lease.StartFailed':
      return { status: 'StartFailed', lease, reason: event.data.reason };
    case 'Lease.EndRequested':
      return state.status === 'Deleted' ? state : { status: 'Ending', lease };
    case 'Lease.Ended':
      return state.status === 'Deleted' ? { ...state, end: 'done' } : { status: 'Ended', lease };
    case 'Lease.EndFailed':
      return state.status === 'Deleted' ? { ...state, end: 'failed' } : { status: 'EndFailed', lease, reason: event.data.reason };
    case 'Lease.Deleted':
      return { status: 'Deleted', lease, end: state.status === 'Ending' ? 'pending' : 'none', deletedAt: event.data.at };
    case 'Reservation.Changed': {
      const changed = evolveData(lease, event);
      // a change of an active reservation is owed to the cloud (more instances, more addresses)
      if (state.status !== 'Active') return withLease(state, changed);
      const pendingUpdates = { ...changed.pendingUpdates, [event.data.reservation.id]: changed.changeSequence };
      return withLease(state, { ...changed, pendingUpdates });
    }
    case 'Reservation.Healed': {
      const healed = evolveData(lease, event);
      // replacement hosts of an active reservation are owed to the cloud like any other change
      if (state.status !== 'Active' || event.data.replacements.every((r) => r.by.length === 0)) return withLease(state, healed);
      const pendingUpdates = { ...healed.pendingUpdates, [event.data.reservation.id]: healed.changeSequence };
      return withLease(state, { ...healed, pendingUpdates });
    }
    default:
      return withLease(state, evolveData(lease, event));
  }
};

export const evolveLease = (state: LeaseState, event: LeaseEvent): LeaseState => {
  if (event.type === 'Lease.Created') {
    const { createdAt, ...data } = event.data;
    return {
      status: 'Pending',
      lease: {
        ...data,
        beforeEnd: 'undone',
        changeSequence: 0,
        pendingUpdates: {},
        healing: {},
        leftovers: [],
        createdAt,
        updatedAt: null,
      },
    };
  }
  return state.status === 'Initial' ? state : evolveLifecycle(state, event);
};
