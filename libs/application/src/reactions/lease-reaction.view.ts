import { type LeaseEvent, type LeasePhase, type LeaseState, leaseDecider } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';

/** A lease event as the reactions need it: what it says, and its place and identity in the ledger. */
export type LeaseReactionSource = Pick<RecordedEvent, 'id' | 'revision' | 'type' | 'data' | 'metadata'>;

/** A lease folded for its reactions: the decider's state and the ledger facts a reaction is keyed and caused by. */
export interface LeaseReactionView {
  readonly state: LeaseState;
  /** The stream's last revision (-1: no stream). */
  readonly revision: number;
  readonly lastEventId: string;
  /** Correlation of the lease's creation: every reaction to the lease joins it. */
  readonly correlationId: string;
  /** The latest Lease.*Requested event: the begin of the phase in progress, if one is. */
  readonly begin: { readonly phase: LeasePhase; readonly eventId: string } | null;
  /** Reservation id -> its latest Reservation.Changed (or .Healed) event: what an update's outcome is caused by. */
  readonly changedBy: Readonly<Record<string, string>>;
}

const BEGIN_EVENTS: Readonly<Record<string, LeasePhase>> = {
  'Lease.StartRequested': 'start',
  'Lease.BeforeEndRequested': 'before_end',
  'Lease.EndRequested': 'end',
};

const changedBy = (view: LeaseReactionView, event: LeaseEvent, eventId: string): LeaseReactionView['changedBy'] =>
  event.type === 'Reservation.Changed' || event.type === 'Reservation.Healed' ? { ...view.changedBy, [event.data.reservation.id]: eventId } : view.changedBy;

/** Folds with `foldEvents` (a whole stream) or one event at a time (the reactor's timeline). */
export const leaseReactionView = {
  initialState: (): LeaseReactionView => ({ state: leaseDecider.initialState(), revision: -1, lastEventId: '', correlationId: '', begin: null, changedBy: {} }),
  evolve: (view: LeaseReactionView, recorded: LeaseReactionSource): LeaseReactionView => {
    const event = { type: recorded.type, data: recorded.data } as LeaseEvent;
    const phase = BEGIN_EVENTS[event.type];
    return {
      state: leaseDecider.evolve(view.state, event),
      revision: recorded.revision,
      lastEventId: recorded.id,
      correlationId: view.revision === -1 ? recorded.metadata.correlationId : view.correlationId,
      begin: phase === undefined ? view.begin : { phase, eventId: recorded.id },
      changedBy: changedBy(view, event, recorded.id),
    };
  },
};
