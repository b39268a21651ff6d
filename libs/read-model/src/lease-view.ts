import type { EffectRecord, LeaseEvent, PhaseProgress, Reservation } from '#domain/index.js';
import { toBlazarDate, toBlazarTimestamp } from './blazar-format.js';
import type { BlazarReservationStatus, ReservationFlags, ReservationView, ReservationViewers } from './reservation-view.js';

export type BlazarEventStatus = 'UNDONE' | 'IN_PROGRESS' | 'DONE' | 'ERROR';
export type BlazarLeaseStatus = 'PENDING' | 'STARTING' | 'ACTIVE' | 'TERMINATING' | 'TERMINATED' | 'ERROR';

export interface LeaseEventView {
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly id: string;
  readonly lease_id: string;
  readonly event_type: 'start_lease' | 'end_lease' | 'before_end_lease';
  readonly time: string;
  readonly status: BlazarEventStatus;
}

/** A lease exactly as Blazar's API shows it (field order included). */
export interface LeaseView {
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly id: string;
  readonly name: string;
  readonly user_id: string;
  readonly project_id: string;
  readonly start_date: string;
  readonly end_date: string;
  readonly trust_id: string | null;
  readonly status: BlazarLeaseStatus;
  readonly degraded: boolean;
  readonly reservations: readonly ReservationView[];
  readonly events: readonly LeaseEventView[];
}

const NO_FLAGS: ReservationFlags = { missing_resources: false, resources_changed: false };

/**
 * `items` with `change` applied to each, or `items` itself when every item came back unchanged:
 * the projection then knows, by reference, that the array was not touched.
 */
const mapChanged = <T>(items: readonly T[], change: (item: T) => T): readonly T[] => {
  let out: T[] | null = null;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T;
    const next = change(item);
    if (next !== item && out === null) out = items.slice(0, i);
    if (out !== null) out.push(next);
  }
  return out ?? items;
};

/** The view with what a reservation's effects adapter reported doing (a cloud id its type shows). */
const recordEffects = (
  viewers: ReservationViewers,
  view: LeaseView,
  reservationId: string,
  effects: readonly EffectRecord[],
): LeaseView => ({
  ...view,
  reservations: mapChanged(view.reservations, (r) => (r.id === reservationId ? viewers(r.resource_type).recordEffects(r, effects) : r)),
});

/** `createdAt` is a Blazar timestamp already. */
const eventView = (leaseId: string, id: string, type: LeaseEventView['event_type'], time: string, createdAt: string): LeaseEventView => ({
  created_at: createdAt,
  updated_at: null,
  id,
  lease_id: leaseId,
  event_type: type,
  time: toBlazarDate(time),
  status: 'UNDONE',
});

const PROGRESS_STATUS: Readonly<Record<PhaseProgress, BlazarEventStatus>> = {
  undone: 'UNDONE',
  in_progress: 'IN_PROGRESS',
  done: 'DONE',
  error: 'ERROR',
};

export const blazarEventStatus = (progress: PhaseProgress): BlazarEventStatus => PROGRESS_STATUS[progress];

/** The status of the first event of `type` (as Array.find), without a closure per call. */
const eventStatus = (events: readonly LeaseEventView[], type: LeaseEventView['event_type']): BlazarEventStatus | undefined => {
  for (const e of events) if (e.event_type === type) return e.status;
  return undefined;
};

/** Upstream derives the stable lease status from its start and end events. */
export const deriveLeaseStatus = (events: readonly LeaseEventView[]): BlazarLeaseStatus => {
  const start = eventStatus(events, 'start_lease');
  const end = eventStatus(events, 'end_lease');
  if (start === 'IN_PROGRESS') return 'STARTING';
  if (end === 'IN_PROGRESS') return 'TERMINATING';
  if (start === 'UNDONE' && end === 'UNDONE') return 'PENDING';
  if (start === 'DONE' && end === 'UNDONE') return 'ACTIVE';
  if (start === 'DONE' && end === 'DONE') return 'TERMINATED';
  return 'ERROR';
};

/** The lease's events with the one of `type` set to `status` at `at` (a Blazar timestamp). */
const eventsWith = (
  view: LeaseView,
  type: LeaseEventView['event_type'],
  status: BlazarEventStatus,
  at: string,
): readonly LeaseEventView[] => view.events.map((e) => (e.event_type === type ? { ...e, status, updated_at: at } : e));

/** The lease's reservations (or only the one of id `only`) set to `status` at `at` (a Blazar timestamp). */
const reservationsWith = (view: LeaseView, status: BlazarReservationStatus, at: string, only?: string): readonly ReservationView[] =>
  view.reservations.map((r) => (only === undefined || r.id === only ? { ...r, status, updated_at: at } : r));

const setEvent = (view: LeaseView, type: LeaseEventView['event_type'], status: BlazarEventStatus, when: string): LeaseView => {
  const at = toBlazarTimestamp(when);
  const events = eventsWith(view, type, status, at);
  return { ...view, events, status: deriveLeaseStatus(events), updated_at: at };
};

/** setEvent, then every reservation set to `reservationStatus`, in one copy of the view (same fields, same order). */
const setEventAndReservations = (
  view: LeaseView,
  type: LeaseEventView['event_type'],
  status: BlazarEventStatus,
  reservationStatus: BlazarReservationStatus,
  when: string,
): LeaseView => {
  const at = toBlazarTimestamp(when);
  const events = eventsWith(view, type, status, at);
  return {
    ...view,
    events,
    status: deriveLeaseStatus(events),
    updated_at: at,
    reservations: reservationsWith(view, reservationStatus, at),
  };
};

const setReservations = (view: LeaseView, status: BlazarReservationStatus, when: string, only?: string): LeaseView => ({
  ...view,
  reservations: reservationsWith(view, status, toBlazarTimestamp(when), only),
});

const created = (viewers: ReservationViewers, event: Extract<LeaseEvent, { type: 'Lease.Created' }>): LeaseView => {
  const d = event.data;
  const at = toBlazarTimestamp(d.createdAt);
  const events = [
    eventView(d.leaseId, d.eventIds.start, 'start_lease', d.startDate, at),
    eventView(d.leaseId, d.eventIds.end, 'end_lease', d.endDate, at),
  ];
  if (d.beforeEndDate !== null) events.push(eventView(d.leaseId, d.eventIds.beforeEnd, 'before_end_lease', d.beforeEndDate, at));
  return {
    created_at: at,
    // upstream writes the row twice on create (CREATING, then PENDING), so updated_at is set at once
    updated_at: at,
    id: d.leaseId,
    name: d.name,
    user_id: d.userId,
    project_id: d.projectId,
    start_date: toBlazarDate(d.startDate),
    end_date: toBlazarDate(d.endDate),
    trust_id: d.trustId,
    status: 'PENDING',
    degraded: false,
    reservations: d.reservations.map((r) => viewers(r.resourceType).reservation(d.leaseId, r, at, at, 'pending', NO_FLAGS, null)),
    events,
  };
};

const rescheduled = (view: LeaseView, event: Extract<LeaseEvent, { type: 'Lease.Rescheduled' }>): LeaseView => {
  const d = event.data;
  const at = toBlazarTimestamp(d.rescheduledAt);
  const times: Readonly<Record<LeaseEventView['event_type'], string | null>> = {
    start_lease: d.startDate,
    end_lease: d.endDate,
    before_end_lease: d.beforeEndDate,
  };
  const events = view.events.map((e) => {
    const time = times[e.event_type];
    if (time === null) return e;
    const formatted = toBlazarDate(time);
    if (formatted === e.time) return e;
    const rearm = e.event_type === 'before_end_lease' && e.status !== 'IN_PROGRESS';
    return { ...e, time: formatted, updated_at: at, status: rearm ? 'UNDONE' : e.status };
  });
  return { ...view, start_date: toBlazarDate(d.startDate), end_date: toBlazarDate(d.endDate), events, updated_at: at };
};

/** A reservation's new allocations (a change or a healing); its status, what effects recorded and its flags carry over unless given. */
const changed = (viewers: ReservationViewers, view: LeaseView, r: Reservation, changedAt: string, flags?: ReservationFlags): LeaseView => {
  const at = toBlazarTimestamp(changedAt);
  const reservations = view.reservations.map((current) => {
    if (current.id !== r.id) return current;
    const kept = {
      missing_resources: flags?.missing_resources ?? current.missing_resources,
      resources_changed: flags?.resources_changed ?? current.resources_changed,
    };
    return viewers(r.resourceType).reservation(view.id, r, current.created_at, at, current.status, kept, current);
  });
  // upstream: a lease is degraded once a monitor flagged one of its reservations
  const degraded = reservations.some((x) => x.missing_resources || x.resources_changed);
  return { ...view, updated_at: at, reservations, degraded };
};

const evolve = (viewers: ReservationViewers, view: LeaseView | null, event: LeaseEvent): LeaseView | null => {
  if (event.type === 'Lease.Created') return created(viewers, event);
  if (view === null) return null;
  switch (event.type) {
    case 'Lease.Renamed':
      return { ...view, name: event.data.name, updated_at: toBlazarTimestamp(event.data.renamedAt) };
    case 'Lease.Rescheduled':
      return rescheduled(view, event);
    case 'Reservation.Changed':
      return changed(viewers, view, event.data.reservation, event.data.changedAt);
    case 'Reservation.Healed': {
      const { reservation, at, missingResources, resourcesChanged } = event.data;
      return changed(viewers, view, reservation, at, { missing_resources: missingResources, resources_changed: resourcesChanged });
    }
    case 'Reservation.EffectsApplied':
    case 'Reservation.UpdateApplied':
      return recordEffects(viewers, view, event.data.reservationId, event.data.effects);
    case 'Reservation.DriftRepaired':
    case 'Reservation.ReconciliationFailed':
    case 'Lease.PreemptibleServerReaped':
      return view;
    case 'Reservation.EffectsFailed':
    case 'Reservation.UpdateFailed':
      return setReservations(
        recordEffects(viewers, view, event.data.reservationId, event.data.effects),
        'error',
        event.data.at,
        event.data.reservationId,
      );
    case 'Lease.StartRequested':
      return setEvent(view, 'start_lease', 'IN_PROGRESS', event.data.at);
    case 'Lease.Started':
      return setEventAndReservations(view, 'start_lease', 'DONE', 'active', event.data.at);
    case 'Lease.StartFailed':
      return setEvent(view, 'start_lease', 'ERROR', event.data.at);
    case 'Lease.BeforeEndRequested':
      return setEvent(view, 'before_end_lease', 'IN_PROGRESS', event.data.at);
    case 'Lease.BeforeEndCompleted':
      return setEvent(view, 'before_end_lease', 'DONE', event.data.at);
    case 'Lease.BeforeEndFailed':
      return setEvent(view, 'before_end_lease', 'ERROR', event.data.at);
    case 'Lease.EndingSoonNotified':
    case 'Lease.GuardrailOverridden':
    case 'Lease.LeftoversFound':
    case 'Lease.LeftoversCleared':
      return view;
    case 'Lease.EndRequested':
      return setEvent(view, 'end_lease', 'IN_PROGRESS', event.data.at);
    case 'Lease.Ended':
      return setEventAndReservations(view, 'end_lease', 'DONE', 'deleted', event.data.at);
    case 'Lease.EndFailed':
      return setEvent(view, 'end_lease', 'ERROR', event.data.at);
    case 'Lease.Deleted':
      return null;
    default: {
      const _never: never = event;
      return view;
    }
  }
};

/**
 * Folds one lease event into the lease's Blazar view (null once the lease is deleted), each reservation shown
 * by its type's viewer: the fold the system runs is libs/plugins' `evolveLeaseView`, given every registered type's.
 */
export const evolveLeaseViewWith =
  (viewers: ReservationViewers) =>
  (view: LeaseView | null, event: LeaseEvent): LeaseView | null =>
    evolve(viewers, view, event);
