import type { EffectRecord, LeaseEvent, PhaseProgress, Reservation } from '#domain/index.js';
import { toBlazarDate, toBlazarTimestamp } from './blazar-format.js';

export type BlazarEventStatus = 'UNDONE' | 'IN_PROGRESS' | 'DONE' | 'ERROR';
export type BlazarReservationStatus = 'pending' | 'active' | 'deleted' | 'error';
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

export interface HostReservationView {
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly id: string;
  readonly lease_id: string;
  readonly resource_id: string;
  readonly resource_type: 'physical:host';
  readonly status: BlazarReservationStatus;
  readonly missing_resources: boolean;
  readonly resources_changed: boolean;
  readonly hypervisor_properties: string;
  readonly resource_properties: string;
  readonly before_end: string;
  readonly min: number;
  readonly max: number;
  readonly end_action: (typeof END_ACTIONS)['physical:host'];
}

/**
 * What happens to the tenant's things at the lease's end, stated in every reservation so nobody is
 * surprised by deleted servers (upstream does the same, silently): the servers on reserved hosts, or
 * using the reservation's flavor, are deleted; reserved addresses are released.
 */
export const END_ACTIONS = {
  'physical:host': 'delete_servers_on_hosts',
  'virtual:instance': 'delete_servers_using_flavor',
  'flavor:instance': 'delete_servers_using_flavor',
  'virtual:floatingip': 'release_addresses',
} as const;

interface ReservationCommonView {
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly id: string;
  readonly lease_id: string;
  readonly resource_id: string;
  readonly status: BlazarReservationStatus;
  readonly missing_resources: boolean;
  readonly resources_changed: boolean;
}

export interface InstanceReservationView extends ReservationCommonView {
  readonly resource_type: 'virtual:instance' | 'flavor:instance';
  readonly vcpus: number;
  readonly memory_mb: number;
  readonly disk_gb: number;
  readonly amount: number;
  readonly affinity: boolean | null;
  readonly resource_properties: string;
  /** Upstream: the private flavor's id, which is the reservation id. */
  readonly flavor_id: string;
  /** Nova's id of the reservation's aggregate; null until the start created it (upstream: at creation). */
  readonly aggregate_id: number | null;
  readonly server_group_id: string | null;
  readonly end_action: (typeof END_ACTIONS)['virtual:instance'];
}

export interface FloatingIpReservationView extends ReservationCommonView {
  readonly resource_type: 'virtual:floatingip';
  readonly network_id: string;
  readonly amount: number;
  readonly required_floatingips: readonly string[];
  readonly end_action: (typeof END_ACTIONS)['virtual:floatingip'];
}

export type ReservationView = HostReservationView | InstanceReservationView | FloatingIpReservationView;

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

interface CloudIds {
  readonly aggregate_id: number | null;
  readonly server_group_id: string | null;
}

const NO_CLOUD_IDS: CloudIds = { aggregate_id: null, server_group_id: null };

interface Flags {
  readonly missing_resources: boolean;
  readonly resources_changed: boolean;
}

const NO_FLAGS: Flags = { missing_resources: false, resources_changed: false };

/**
 * A reservation's view, built field by field in Blazar's order (a replay builds hundreds of
 * thousands: no intermediate object to spread). `createdAt` and `updatedAt` are Blazar timestamps already.
 */
const reservationView = (
  leaseId: string,
  r: Reservation,
  createdAt: string,
  updatedAt: string,
  status: BlazarReservationStatus,
  flags: Flags,
  cloud: CloudIds,
): ReservationView => {
  switch (r.resourceType) {
    case 'physical:host':
      return {
        created_at: createdAt,
        updated_at: updatedAt,
        id: r.id,
        lease_id: leaseId,
        resource_id: r.resourceId,
        resource_type: r.resourceType,
        status,
        missing_resources: flags.missing_resources,
        resources_changed: flags.resources_changed,
        hypervisor_properties: r.hypervisorProperties,
        resource_properties: r.resourceProperties,
        before_end: r.beforeEnd,
        min: r.min,
        max: r.max,
        end_action: END_ACTIONS[r.resourceType],
      };
    case 'virtual:instance':
    case 'flavor:instance':
      return {
        created_at: createdAt,
        updated_at: updatedAt,
        id: r.id,
        lease_id: leaseId,
        resource_id: r.resourceId,
        resource_type: r.resourceType,
        status,
        missing_resources: flags.missing_resources,
        resources_changed: flags.resources_changed,
        vcpus: r.vcpus,
        memory_mb: r.memoryMb,
        disk_gb: r.diskGb,
        amount: r.amount,
        affinity: r.affinity,
        resource_properties: r.resourceProperties,
        flavor_id: r.id,
        aggregate_id: cloud.aggregate_id,
        server_group_id: cloud.server_group_id,
        end_action: END_ACTIONS[r.resourceType],
      };
    case 'virtual:floatingip':
      return {
        created_at: createdAt,
        updated_at: updatedAt,
        id: r.id,
        lease_id: leaseId,
        resource_id: r.resourceId,
        resource_type: r.resourceType,
        status,
        missing_resources: flags.missing_resources,
        resources_changed: flags.resources_changed,
        network_id: r.networkId,
        amount: r.amount,
        required_floatingips: r.requiredFloatingIps,
        end_action: END_ACTIONS[r.resourceType],
      };
    default: {
      const _never: never = r;
      return _never;
    }
  }
};

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

/** The aggregate and server group ids an effects adapter reported creating (instance reservations). */
const cloudIdsOf = (effects: readonly EffectRecord[], current: CloudIds): CloudIds => {
  let { aggregate_id, server_group_id } = current;
  for (const effect of effects) {
    if (effect.operation === 'aggregate.create' && typeof effect.aggregate_id === 'number') aggregate_id = effect.aggregate_id;
    if (effect.operation === 'server_group.create' && typeof effect.server_group_id === 'string') server_group_id = effect.server_group_id;
  }
  return { aggregate_id, server_group_id };
};

const recordCloudIds = (view: LeaseView, reservationId: string, effects: readonly EffectRecord[]): LeaseView => ({
  ...view,
  reservations: mapChanged(view.reservations, (r) => {
    if (r.id !== reservationId || (r.resource_type !== 'virtual:instance' && r.resource_type !== 'flavor:instance')) return r;
    const ids = cloudIdsOf(effects, r);
    return ids.aggregate_id === r.aggregate_id && ids.server_group_id === r.server_group_id ? r : { ...r, ...ids };
  }),
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

const created = (event: Extract<LeaseEvent, { type: 'Lease.Created' }>): LeaseView => {
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
    reservations: d.reservations.map((r) => reservationView(d.leaseId, r, at, at, 'pending', NO_FLAGS, NO_CLOUD_IDS)),
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

/** A reservation's new allocations (a change or a healing); its status, cloud ids and flags carry over unless given. */
const changed = (view: LeaseView, r: Reservation, changedAt: string, flags?: Flags): LeaseView => {
  const at = toBlazarTimestamp(changedAt);
  const reservations = view.reservations.map((current) => {
    if (current.id !== r.id) return current;
    const kept = {
      missing_resources: flags?.missing_resources ?? current.missing_resources,
      resources_changed: flags?.resources_changed ?? current.resources_changed,
    };
    return reservationView(view.id, r, current.created_at, at, current.status, kept, 'aggregate_id' in current ? current : NO_CLOUD_IDS);
  });
  // upstream: a lease is degraded once a monitor flagged one of its reservations
  const degraded = reservations.some((x) => x.missing_resources || x.resources_changed);
  return { ...view, updated_at: at, reservations, degraded };
};

/** Folds one lease event into the lease's Blazar view; null once the lease is deleted. */
export const evolveLeaseView = (view: LeaseView | null, event: LeaseEvent): LeaseView | null => {
  if (event.type === 'Lease.Created') return created(event);
  if (view === null) return null;
  switch (event.type) {
    case 'Lease.Renamed':
      return { ...view, name: event.data.name, updated_at: toBlazarTimestamp(event.data.renamedAt) };
    case 'Lease.Rescheduled':
      return rescheduled(view, event);
    case 'Reservation.Changed':
      return changed(view, event.data.reservation, event.data.changedAt);
    case 'Reservation.Healed': {
      const { reservation, at, missingResources, resourcesChanged } = event.data;
      return changed(view, reservation, at, { missing_resources: missingResources, resources_changed: resourcesChanged });
    }
    case 'Reservation.EffectsApplied':
    case 'Reservation.UpdateApplied':
      return recordCloudIds(view, event.data.reservationId, event.data.effects);
    case 'Reservation.DriftRepaired':
    case 'Reservation.ReconciliationFailed':
    case 'Lease.PreemptibleServerReaped':
      return view;
    case 'Reservation.EffectsFailed':
    case 'Reservation.UpdateFailed':
      return setReservations(
        recordCloudIds(view, event.data.reservationId, event.data.effects),
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
      return _never;
    }
  }
};
