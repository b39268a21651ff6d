import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { LeaseEvent } from '#domain/index.js';
import type { LeaseView } from '#read-model/lease-view.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import { toBlazarTimestamp } from '#read-model/blazar-format.js';

/** The seven notifications upstream Blazar sends (blazar/manager/service.py `_send_notification`). */
export type BlazarNotificationType =
  | 'lease.create'
  | 'lease.update'
  | 'lease.delete'
  | 'lease.event.start_lease'
  | 'lease.event.before_end_lease'
  | 'lease.event.before_end_lease.stop'
  | 'lease.event.end_lease';

/** Upstream's payload: its lease dict with `id` sent as `lease_id` (blazar/notification/api.py). */
export interface LeasePayload {
  readonly lease_id: string;
  readonly user_id: string;
  readonly project_id: string;
  readonly trust_id: string | null;
  readonly start_date: string;
  readonly end_date: string;
  readonly status: string;
  readonly reservations: readonly Readonly<Record<string, unknown>>[];
  readonly events: LeaseView['events'];
  readonly name: string;
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly degraded: boolean;
}

export interface BlazarNotification {
  readonly eventType: BlazarNotificationType;
  readonly payload: LeasePayload;
}

/** One user update (PUT) is several events appended together; upstream sends one lease.update for it. */
const UPDATE_EVENTS: ReadonlySet<string> = new Set(['Lease.Renamed', 'Lease.Rescheduled', 'Reservation.Changed']);

export const leasePayload = (view: LeaseView): LeasePayload => ({
  lease_id: view.id,
  user_id: view.user_id,
  project_id: view.project_id,
  trust_id: view.trust_id,
  start_date: view.start_date,
  end_date: view.end_date,
  status: view.status,
  // end_action is Leasehold's own addition to the API's reservation; upstream's dict has none
  reservations: view.reservations.map(({ end_action: _endAction, ...reservation }) => reservation),
  events: view.events,
  name: view.name,
  created_at: view.created_at,
  updated_at: view.updated_at,
  degraded: view.degraded,
});

const asLeaseEvent = (event: RecordedEvent): LeaseEvent => ({ type: event.type, data: event.data }) as LeaseEvent;

/**
 * A lease stream and the lease after each of its prefixes, folded once: a batch holds several events of
 * a lease, and each needs the lease at its own point.
 */
export class LeaseStreamFold {
  private readonly views: (LeaseView | null)[] = [null];

  constructor(readonly stream: readonly RecordedEvent[]) {}

  /** The lease as the stream's first `count` events leave it (null: not created yet, or deleted). */
  at(count: number): LeaseView | null {
    for (let n = this.views.length; n <= count; n++) {
      const event = this.stream[n - 1];
      this.views.push(event === undefined ? (this.views[n - 1] ?? null) : evolveLeaseView(this.views[n - 1] ?? null, asLeaseEvent(event)));
    }
    return this.views[count] ?? null;
  }
}

const sameUpdate = (a: RecordedEvent | undefined, b: RecordedEvent): boolean =>
  a !== undefined && UPDATE_EVENTS.has(a.type) && a.metadata.causationId === b.metadata.causationId;

/** Index of the first event the command that wrote `stream[index]` appended with it. */
const commandStart = (
  stream: readonly RecordedEvent[],
  index: number,
  sameCommand: (a: RecordedEvent | undefined, b: RecordedEvent) => boolean,
): number => {
  const event = stream[index] as RecordedEvent;
  let first = index;
  while (first > 0 && sameCommand(stream[first - 1], event)) first -= 1;
  return first;
};

/**
 * Upstream's delete_lease reads the lease once its decorator set DELETING (which stamps updated_at) and
 * before it touches the events: the lease as it stood before the delete, DELETING, updated at the delete.
 */
const deletePayload = (fold: LeaseStreamFold, index: number): LeasePayload | null => {
  const first = commandStart(fold.stream, index, (a, b) => a !== undefined && a.metadata.causationId === b.metadata.causationId);
  const before = fold.at(first);
  const at = (fold.stream[index]?.data as { readonly at: string }).at;
  return before === null ? null : { ...leasePayload(before), status: 'DELETING', updated_at: toBlazarTimestamp(at) };
};

const beforeEndDone = (view: LeaseView | null): boolean =>
  view?.events.some((event) => event.event_type === 'before_end_lease' && event.status === 'DONE') ?? false;

/**
 * The update's notifications, on its last event only (the rest of its append is stored with it, so
 * the look-ahead gives the same answer on every replay). A rename alone sends none, as upstream's
 * update_lease returns before its notification for a name-only body; a re-armed before-end event adds
 * lease.event.before_end_lease.stop after lease.update, in upstream's order, with the same payload.
 */
const updateNotifications = (fold: LeaseStreamFold, index: number, after: LeaseView): BlazarNotification[] => {
  const { stream } = fold;
  const event = stream[index] as RecordedEvent;
  if (sameUpdate(stream[index + 1], event)) return [];
  const first = commandStart(stream, index, sameUpdate);
  const group = stream.slice(first, index + 1);
  if (group.every((member) => member.type === 'Lease.Renamed')) return [];
  const payload = leasePayload(after);
  const rearmed = beforeEndDone(fold.at(first)) && !beforeEndDone(after);
  return rearmed
    ? [
        { eventType: 'lease.update', payload },
        { eventType: 'lease.event.before_end_lease.stop', payload },
      ]
    : [{ eventType: 'lease.update', payload }];
};

const PHASE_NOTIFICATIONS: Readonly<Record<string, BlazarNotificationType>> = {
  'Lease.Created': 'lease.create',
  'Lease.Started': 'lease.event.start_lease',
  'Lease.BeforeEndCompleted': 'lease.event.before_end_lease',
  // after a deletion there is no lease left: its end is part of the delete, as upstream's
  'Lease.Ended': 'lease.event.end_lease',
};

/**
 * What upstream would have sent for the lease stream's event `eventId`, with the lease as the log
 * leaves it at that event (folded, never read from the read model, so a replay sends the same).
 * Events upstream has no notification for give none.
 */
export const leaseNotifications = (fold: LeaseStreamFold, eventId: string): BlazarNotification[] => {
  const index = fold.stream.findIndex((event) => event.id === eventId);
  const event = fold.stream[index];
  if (event === undefined) throw new Error(`event ${eventId} is not in its lease stream`);
  if (event.type === 'Lease.Deleted') {
    const payload = deletePayload(fold, index);
    return payload === null ? [] : [{ eventType: 'lease.delete', payload }];
  }
  const after = fold.at(index + 1);
  if (after === null) return [];
  if (UPDATE_EVENTS.has(event.type)) return updateNotifications(fold, index, after);
  const eventType = PHASE_NOTIFICATIONS[event.type];
  return eventType === undefined ? [] : [{ eventType, payload: leasePayload(after) }];
};
