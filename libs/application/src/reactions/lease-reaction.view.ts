import type { LeaseEvent, LeasePhase, LeaseState, Reservation } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import { reservedFloatingIpIds, reservedHostIds } from '#plugins/reservation-holdings.js';

/** A lease event as the reactions need it: what it says, and its place and identity in the ledger. */
export type LeaseReactionSource = Pick<RecordedEvent, 'id' | 'revision' | 'type' | 'data' | 'metadata'>;

/** Hosts and floating IPs, by id. */
export interface HeldResources {
  readonly hostIds: readonly string[];
  readonly floatingIpIds: readonly string[];
}

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
  /**
   * Reservation id -> what its owed change took from it (a host healing replaced, say): the ledger has
   * freed it for other leases already, the cloud only once the update's outcome is recorded (or the
   * lease's end, which gives up everything, is). Absent: nothing owed is given up.
   */
  readonly releasing: Readonly<Record<string, HeldResources>>;
}

const BEGIN_EVENTS: Readonly<Record<string, LeasePhase>> = {
  'Lease.StartRequested': 'start',
  'Lease.BeforeEndRequested': 'before_end',
  'Lease.EndRequested': 'end',
};

const changedBy = (view: LeaseReactionView, event: LeaseEvent, eventId: string): LeaseReactionView['changedBy'] =>
  event.type === 'Reservation.Changed' || event.type === 'Reservation.Healed'
    ? { ...view.changedBy, [event.data.reservation.id]: eventId }
    : view.changedBy;

const without = (ids: Iterable<string>, kept: readonly string[]): string[] => [...new Set(ids)].filter((id) => !kept.includes(id));

/** What `before` held and `after` does not, with what earlier owed changes of the reservation still give up. */
const givenUp = (before: Reservation, after: Reservation, earlier: HeldResources | undefined): HeldResources => ({
  hostIds: without([...(earlier?.hostIds ?? []), ...reservedHostIds(before)], reservedHostIds(after)),
  floatingIpIds: without([...(earlier?.floatingIpIds ?? []), ...reservedFloatingIpIds(before)], reservedFloatingIpIds(after)),
});

/** Owed changes only: once a reservation owes nothing (its latest change's outcome recorded), the cloud has given up what it lost. */
const releasing = (view: LeaseReactionView, state: LeaseState, event: LeaseEvent): LeaseReactionView['releasing'] => {
  const pending = state.status === 'Initial' ? {} : state.lease.pendingUpdates;
  const owed = Object.keys(view.releasing).every((id) => pending[id] !== undefined)
    ? view.releasing
    : Object.fromEntries(Object.entries(view.releasing).filter(([id]) => pending[id] !== undefined));
  if (event.type !== 'Reservation.Changed' && event.type !== 'Reservation.Healed') return owed;
  const { reservation } = event.data;
  const before = view.state.status === 'Initial' ? undefined : view.state.lease.reservations.find((r) => r.id === reservation.id);
  if (before === undefined || pending[reservation.id] === undefined) return owed;
  const { [reservation.id]: earlier, ...others } = owed;
  const lost = givenUp(before, reservation, earlier);
  return lost.hostIds.length === 0 && lost.floatingIpIds.length === 0 ? others : { ...others, [reservation.id]: lost };
};

/** Folds with `foldEvents` (a whole stream) or one event at a time (the reactor's timeline). */
export const leaseReactionView = {
  initialState: (): LeaseReactionView => ({
    state: leaseDecider.initialState(),
    revision: -1,
    lastEventId: '',
    correlationId: '',
    begin: null,
    changedBy: {},
    releasing: {},
  }),
  evolve: (view: LeaseReactionView, recorded: LeaseReactionSource): LeaseReactionView => {
    const event = { type: recorded.type, data: recorded.data } as LeaseEvent;
    const phase = BEGIN_EVENTS[event.type];
    const state = leaseDecider.evolve(view.state, event);
    return {
      state,
      revision: recorded.revision,
      lastEventId: recorded.id,
      correlationId: view.revision === -1 ? recorded.metadata.correlationId : view.correlationId,
      begin: phase === undefined ? view.begin : { phase, eventId: recorded.id },
      changedBy: changedBy(view, event, recorded.id),
      releasing: releasing(view, state, event),
    };
  },
};
