/**
 * Test-only: the lease view fold as it was before the projections' fold was made cheaper (commit
 * d7cda6f), kept word for word as the oracle the faster one must match byte for byte (JSON text).
 * Not built, not exported.
 */
import type { EffectRecord, LeaseEvent, PhaseProgress, Reservation } from '#domain/index.js';
import { toBlazarDate, toBlazarTimestamp } from '../blazar-format.js';

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

/** Network reservations came after this fold: the oracle only has their view's type, so that the faster fold's views are its views. */
export interface NetworkReservationView extends ReservationCommonView {
  readonly resource_type: 'network';
  readonly network_name: string;
  readonly network_description: string;
  readonly network_properties: string;
  readonly resource_properties: string;
  readonly before_end: string;
  readonly network_id: string | null;
  readonly end_action: 'delete_network';
}

export type ReservationView = HostReservationView | InstanceReservationView | FloatingIpReservationView | NetworkReservationView;

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

const reservationView = (leaseId: string, r: Reservation, at: string, cloud: CloudIds = NO_CLOUD_IDS): ReservationView => {
  const common = {
    created_at: toBlazarTimestamp(at),
    updated_at: toBlazarTimestamp(at),
    id: r.id,
    lease_id: leaseId,
    resource_id: r.resourceId,
    resource_type: r.resourceType,
    status: 'pending',
    missing_resources: false,
    resources_changed: false,
  } as const;
  switch (r.resourceType) {
    case 'physical:host':
      return {
        ...common,
        resource_type: r.resourceType,
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
        ...common,
        resource_type: r.resourceType,
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
        ...common,
        resource_type: r.resourceType,
        network_id: r.networkId,
        amount: r.amount,
        required_floatingips: r.requiredFloatingIps,
        end_action: END_ACTIONS[r.resourceType],
      };
    case 'network':
      throw new Error('The oracle predates network reservations: the equivalence is checked on the four types it knows');
    default: {
      const _never: never = r;
      return _never;
    }
  }
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
  reservations: view.reservations.map((r) => {
    if (r.id !== reservationId || (r.resource_type !== 'virtual:instance' && r.resource_type !== 'flavor:instance')) return r;
    const ids = cloudIdsOf(effects, r);
    return ids.aggregate_id === r.aggregate_id && ids.server_group_id === r.server_group_id ? r : { ...r, ...ids };
  }),
});

const eventView = (leaseId: string, id: string, type: LeaseEventView['event_type'], time: string, at: string): LeaseEventView => ({
  created_at: toBlazarTimestamp(at),
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

/** Upstream derives the stable lease status from its start and end events. */
export const deriveLeaseStatus = (events: readonly LeaseEventView[]): BlazarLeaseStatus => {
  const status = (type: LeaseEventView['event_type']): BlazarEventStatus | undefined => events.find((e) => e.event_type === type)?.status;
  const start = status('start_lease');
  const end = status('end_lease');
  if (start === 'IN_PROGRESS') return 'STARTING';
  if (end === 'IN_PROGRESS') return 'TERMINATING';
  if (start === 'UNDONE' && end === 'UNDONE') return 'PENDING';
  if (start === 'DONE' && end === 'UNDONE') return 'ACTIVE';
  if (start === 'DONE' && end === 'DONE') return 'TERMINATED';
  return 'ERROR';
};

const setEvent = (view: LeaseView, type: LeaseEventView['event_type'], status: BlazarEventStatus, at: string): LeaseView => {
  const events = view.events.map((e) => (e.event_type === type ? { ...e, status, updated_at: toBlazarTimestamp(at) } : e));
  return { ...view, events, status: deriveLeaseStatus(events), updated_at: toBlazarTimestamp(at) };
};

const setReservations = (view: LeaseView, status: BlazarReservationStatus, at: string, only?: string): LeaseView => ({
  ...view,
  reservations: view.reservations.map((r) =>
    only === undefined || r.id === only ? { ...r, status, updated_at: toBlazarTimestamp(at) } : r,
  ),
});

const created = (event: Extract<LeaseEvent, { type: 'Lease.Created' }>): LeaseView => {
  const d = event.data;
  const events = [
    eventView(d.leaseId, d.eventIds.start, 'start_lease', d.startDate, d.createdAt),
    eventView(d.leaseId, d.eventIds.end, 'end_lease', d.endDate, d.createdAt),
    ...(d.beforeEndDate === null ? [] : [eventView(d.leaseId, d.eventIds.beforeEnd, 'before_end_lease', d.beforeEndDate, d.createdAt)]),
  ];
  return {
    created_at: toBlazarTimestamp(d.createdAt),
    // upstream writes the row twice on create (CREATING, then PENDING), so updated_at is set at once
    updated_at: toBlazarTimestamp(d.createdAt),
    id: d.leaseId,
    name: d.name,
    user_id: d.userId,
    project_id: d.projectId,
    start_date: toBlazarDate(d.startDate),
    end_date: toBlazarDate(d.endDate),
    trust_id: d.trustId,
    status: 'PENDING',
    degraded: false,
    reservations: d.reservations.map((r) => reservationView(d.leaseId, r, d.createdAt)),
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
    if (time === null || toBlazarDate(time) === e.time) return e;
    const rearm = e.event_type === 'before_end_lease' && e.status !== 'IN_PROGRESS';
    return { ...e, time: toBlazarDate(time), updated_at: at, status: rearm ? 'UNDONE' : e.status };
  });
  return { ...view, start_date: toBlazarDate(d.startDate), end_date: toBlazarDate(d.endDate), events, updated_at: at };
};

interface Flags {
  readonly missing_resources: boolean;
  readonly resources_changed: boolean;
}

/** A reservation's new allocations (a change or a healing); its status, cloud ids and flags carry over unless given. */
const changed = (view: LeaseView, r: Reservation, changedAt: string, flags?: Flags): LeaseView => {
  const at = toBlazarTimestamp(changedAt);
  const reservations = view.reservations.map((current) =>
    current.id === r.id
      ? {
          ...reservationView(view.id, r, changedAt, 'aggregate_id' in current ? current : NO_CLOUD_IDS),
          created_at: current.created_at,
          status: current.status,
          updated_at: at,
          missing_resources: flags?.missing_resources ?? current.missing_resources,
          resources_changed: flags?.resources_changed ?? current.resources_changed,
        }
      : current,
  );
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
      return setReservations(setEvent(view, 'start_lease', 'DONE', event.data.at), 'active', event.data.at);
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
      return setReservations(setEvent(view, 'end_lease', 'DONE', event.data.at), 'deleted', event.data.at);
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
