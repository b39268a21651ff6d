import type {
  FairShareEvent,
  FlavorCatalogEvent,
  FloatingIpEvent,
  FloatingIpRegistryEvent,
  FreepoolObservation,
  FreepoolWatchEvent,
  HostActivityEvent,
  HostEvent,
  HostRegistryEvent,
  LeaseEvent,
  LeaseRequestEvent,
  Leftover,
  QuotaEvent,
  RateCardEvent,
  ResourcePropertyEvent,
} from '#domain/index.js';
import { QUOTAS } from '#plugins/reservation-holdings.js';
import { RESOURCE_KIND_EVENTS, type ResourceKindEvent } from '#plugins/resource-kinds.js';
import { type AuditEvent, describeRefusedLease, refusedLeaseOf } from '../audit/write-refused.events.js';
import { publicCapabilities, publicEffects, publicHostInfo, publicReservation, publicSlots } from './public-shapes.js';

/** Every event the code can append: the union of each decider's events, and the audit log's. */
export type InternalEvent =
  | LeaseEvent
  | LeaseRequestEvent
  | HostEvent
  | FloatingIpEvent
  | HostActivityEvent
  | HostRegistryEvent
  | FloatingIpRegistryEvent
  | ResourcePropertyEvent
  | FlavorCatalogEvent
  | FreepoolWatchEvent
  | RateCardEvent
  | QuotaEvent
  | FairShareEvent
  | AuditEvent
  | ResourceKindEvent;
export type InternalEventType = InternalEvent['type'];
type DataOf<T extends InternalEventType> = Extract<InternalEvent, { type: T }>['data'];

/** A public field: an internal field copied as it is (scalars and string lists only), or computed. */
type FieldSource<D> = (keyof D & string) | ((data: D) => unknown);

export interface CatalogueEntry<D> {
  /** Stable, lower-case `subject.past_tense`; never renamed (docs/events.md). */
  readonly publicType: string;
  readonly summary: (data: D) => string;
  /** Public field name -> where its value comes from. Fields are only ever added. */
  readonly fields: Readonly<Record<string, FieldSource<D>>>;
}

type Catalogue = { readonly [T in InternalEventType]: CatalogueEntry<DataOf<T>> };

const phase = <D extends { leaseId: string; at: string }>(publicType: string, words: string): CatalogueEntry<D> => ({
  publicType,
  summary: (d) => `Lease ${d.leaseId} ${words}`,
  fields: { lease_id: 'leaseId', at: 'at' },
});
const phaseFailure = <D extends { leaseId: string; at: string; reason: string }>(publicType: string, words: string): CatalogueEntry<D> => ({
  publicType,
  summary: (d) => `Lease ${d.leaseId} ${words}: ${d.reason}`,
  fields: { lease_id: 'leaseId', at: 'at', reason: 'reason' },
});
const hostHealth = { host_id: 'hostId', reasons: 'reasons', source: 'source', observed_at: 'observedAt' } as const;
const freepool = {
  zone: 'zone',
  free_hosts: 'freeHosts',
  reservable_hosts: 'reservableHosts',
  threshold: 'threshold',
  window_start: 'windowStart',
  window_end: 'windowEnd',
  observed_at: 'observedAt',
} as const satisfies Record<string, keyof FreepoolObservation>;
const zoneName = (zone: string): string => (zone === '' ? 'the zone without a name' : `zone ${zone}`);
const publicLeftover = (l: Leftover) => ({ reservation_id: l.reservationId, kind: l.kind, id: l.id });
const describeLeftovers = (leftovers: readonly Leftover[]): string => leftovers.map((l) => `${l.kind} ${l.id}`).join(', ');
const effectsOf = (d: { effects: Parameters<typeof publicEffects>[0] }) => publicEffects(d.effects);

/**
 * The one mapping from stored events to what clients see. The mapped type makes the compiler
 * refuse a new internal event until it is given a public type, summary and fields here.
 */
export const EVENT_CATALOGUE: Catalogue = {
  // each registered resource kind describes its own events (resource-kinds.ts)
  ...RESOURCE_KIND_EVENTS,
  'Lease.Created': {
    publicType: 'lease.created',
    summary: (d) =>
      `Lease ${d.leaseId} (${d.name}) created for ${d.startDate} to ${d.endDate} with ${d.reservations.length} reservation(s)`,
    fields: {
      lease_id: 'leaseId',
      name: 'name',
      project_id: 'projectId',
      user_id: 'userId',
      start_date: 'startDate',
      end_date: 'endDate',
      before_end_date: 'beforeEndDate',
      reservations: (d) => d.reservations.map(publicReservation),
      created_at: 'createdAt',
    },
  },
  'LeaseRequest.Submitted': {
    publicType: 'lease_request.submitted',
    summary: (d) =>
      `Lease request ${d.requestId} (${d.name}) for ${d.durationMinutes} minute(s) starting from ${d.notBefore} to ${d.startBy} with ${d.reservations.length} reservation(s)`,
    fields: {
      request_id: 'requestId',
      name: 'name',
      project_id: 'projectId',
      user_id: 'userId',
      duration: 'durationMinutes',
      not_before: 'notBefore',
      start_by: 'startBy',
      reservation_types: (d) => d.reservations.map((r) => r.resourceType),
      submitted_at: 'submittedAt',
    },
  },
  'LeaseRequest.Admitted': {
    publicType: 'lease_request.admitted',
    summary: (d) => `Lease request ${d.requestId} admitted as lease ${d.leaseId}`,
    fields: { request_id: 'requestId', lease_id: 'leaseId', project_id: 'projectId', user_id: 'userId', admitted_at: 'admittedAt' },
  },
  'LeaseRequest.Withdrawn': {
    publicType: 'lease_request.withdrawn',
    summary: (d) => `Lease request ${d.requestId} withdrawn`,
    fields: { request_id: 'requestId', project_id: 'projectId', user_id: 'userId', withdrawn_at: 'withdrawnAt' },
  },
  'Lease.Renamed': {
    publicType: 'lease.renamed',
    summary: (d) => `Lease ${d.leaseId} renamed to ${d.name}`,
    fields: { lease_id: 'leaseId', name: 'name', renamed_at: 'renamedAt' },
  },
  'Lease.Rescheduled': {
    publicType: 'lease.rescheduled',
    summary: (d) => `Lease ${d.leaseId} rescheduled to ${d.startDate} to ${d.endDate}`,
    fields: {
      lease_id: 'leaseId',
      start_date: 'startDate',
      end_date: 'endDate',
      before_end_date: 'beforeEndDate',
      rescheduled_at: 'rescheduledAt',
    },
  },
  'Reservation.Changed': {
    publicType: 'reservation.changed',
    summary: (d) => `Reservation ${d.reservation.id} of lease ${d.leaseId} changed`,
    fields: { lease_id: 'leaseId', reservation: (d) => publicReservation(d.reservation), changed_at: 'changedAt' },
  },
  'Lease.PreemptibleServerReaped': {
    publicType: 'lease.preemptible_server_reaped',
    // the server and its project belong to another tenant: they stay in the stored event, for operators
    summary: (d) =>
      `A preemptible server (flavor ${d.flavor}) on host ${d.host} ${d.stopped ? 'stopped, then deleted' : 'deleted'} for reservation ${d.reservationId}`,
    fields: {
      lease_id: 'leaseId',
      reservation_id: 'reservationId',
      host_id: 'hostId',
      host: 'host',
      flavor: 'flavor',
      stopped: 'stopped',
      at: 'at',
    },
  },
  'Reservation.EffectsApplied': {
    publicType: 'reservation.effects_applied',
    summary: (d) => `Cloud changes for the ${d.phase} of reservation ${d.reservationId} applied`,
    fields: { lease_id: 'leaseId', reservation_id: 'reservationId', phase: 'phase', effects: effectsOf, at: 'at' },
  },
  'Reservation.EffectsFailed': {
    publicType: 'reservation.effects_failed',
    summary: (d) => `Cloud changes for the ${d.phase} of reservation ${d.reservationId} failed: ${d.error}`,
    fields: { lease_id: 'leaseId', reservation_id: 'reservationId', phase: 'phase', error: 'error', effects: effectsOf, at: 'at' },
  },
  'Reservation.UpdateApplied': {
    publicType: 'reservation.update_applied',
    summary: (d) => `Change ${d.sequence} of reservation ${d.reservationId} applied to the cloud`,
    fields: { lease_id: 'leaseId', reservation_id: 'reservationId', sequence: 'sequence', effects: effectsOf, at: 'at' },
  },
  'Reservation.UpdateFailed': {
    publicType: 'reservation.update_failed',
    summary: (d) => `Change ${d.sequence} of reservation ${d.reservationId} failed in the cloud: ${d.error}`,
    fields: { lease_id: 'leaseId', reservation_id: 'reservationId', sequence: 'sequence', error: 'error', effects: effectsOf, at: 'at' },
  },
  'Reservation.DriftRepaired': {
    publicType: 'reservation.drift_repaired',
    summary: (d) => `Cloud drift of reservation ${d.reservationId} repaired (${d.effects.length} step(s))`,
    fields: { lease_id: 'leaseId', reservation_id: 'reservationId', effects: effectsOf, at: 'at' },
  },
  'Reservation.ReconciliationFailed': {
    publicType: 'reservation.reconciliation_failed',
    summary: (d) => `Reconciling reservation ${d.reservationId} with the cloud failed: ${d.error}`,
    fields: { lease_id: 'leaseId', reservation_id: 'reservationId', error: 'error', effects: effectsOf, at: 'at' },
  },
  'Reservation.Healed': {
    publicType: 'reservation.healed',
    summary: (d) =>
      `Reservation ${d.reservation.id} healed: ${d.replacements.length} host(s) replaced, ${d.unhealedHostIds.length} unreplaced`,
    fields: {
      lease_id: 'leaseId',
      reservation: (d) => publicReservation(d.reservation),
      replacements: (d) => d.replacements.map((r) => ({ host_id: r.hostId, by: [...r.by] })),
      unhealed_host_ids: 'unhealedHostIds',
      missing_resources: 'missingResources',
      resources_changed: 'resourcesChanged',
      at: 'at',
    },
  },
  'Lease.StartRequested': phase('lease.start_requested', 'is due to start'),
  'Lease.Started': phase('lease.started', 'started'),
  'Lease.StartFailed': phaseFailure('lease.start_failed', 'failed to start'),
  'Lease.BeforeEndRequested': phase('lease.before_end_requested', 'is due for its before-end actions'),
  'Lease.BeforeEndCompleted': phase('lease.before_end_completed', 'completed its before-end actions'),
  'Lease.BeforeEndFailed': phaseFailure('lease.before_end_failed', 'failed its before-end actions'),
  'Lease.EndingSoonNotified': {
    publicType: 'lease.ending_soon_notified',
    summary: (d) => `Lease ${d.leaseId} ends at ${d.endDate}: its tenant is reminded (before_end notify of ${d.reservationIds.join(', ')})`,
    fields: { lease_id: 'leaseId', project_id: 'projectId', end_date: 'endDate', reservation_ids: 'reservationIds', at: 'at' },
  },
  'Lease.GuardrailOverridden': {
    publicType: 'lease.guardrail_overridden',
    summary: (d) =>
      `Lease ${d.leaseId} admitted by an admin against the ${d.rule} rule: ${d.freeHosts} free host(s) left in ${zoneName(d.zone)} at ${d.instant}, the rule keeps ${d.keep}`,
    fields: { lease_id: 'leaseId', rule: 'rule', zone: 'zone', free_hosts: 'freeHosts', keep: 'keep', instant: 'instant', at: 'at' },
  },
  'Lease.LeftoversFound': {
    publicType: 'lease.leftovers_found',
    summary: (d) => `Lease ${d.leaseId} ended but ${describeLeftovers(d.leftovers)} still in the cloud`,
    fields: { lease_id: 'leaseId', leftovers: (d) => d.leftovers.map(publicLeftover), at: 'at' },
  },
  'Lease.LeftoversCleared': {
    publicType: 'lease.leftovers_cleared',
    summary: (d) => `What lease ${d.leaseId} left in the cloud after its end is gone (${describeLeftovers(d.leftovers)})`,
    fields: { lease_id: 'leaseId', leftovers: (d) => d.leftovers.map(publicLeftover), at: 'at' },
  },
  'Lease.EndRequested': {
    publicType: 'lease.end_requested',
    summary: (d) => `Lease ${d.leaseId} is due to end (${d.reason})`,
    fields: { lease_id: 'leaseId', at: 'at', reason: 'reason' },
  },
  'Lease.Ended': phase('lease.ended', 'ended'),
  'Lease.EndFailed': phaseFailure('lease.end_failed', 'failed to end'),
  'Lease.Deleted': phase('lease.deleted', 'deleted'),

  'Host.Registered': {
    publicType: 'host.registered',
    summary: (d) => `Host ${d.hostId} (${d.info.hypervisorHostname}) registered`,
    fields: {
      host_id: 'hostId',
      info: (d) => publicHostInfo(d.info),
      capabilities: (d) => publicCapabilities(d.capabilities),
      registered_at: 'registeredAt',
    },
  },
  'Host.CapabilitiesUpdated': {
    publicType: 'host.capabilities_updated',
    summary: (d) => `Extra capabilities of host ${d.hostId} updated`,
    fields: { host_id: 'hostId', capabilities: (d) => publicCapabilities(d.capabilities), updated_at: 'updatedAt' },
  },
  'Host.ReservableChanged': {
    publicType: 'host.reservable_changed',
    summary: (d) => `Host ${d.hostId} is ${d.reservable ? 'reservable' : 'not reservable'}: ${d.reason}`,
    fields: { host_id: 'hostId', reservable: 'reservable', reason: 'reason', changed_at: 'changedAt' },
  },
  'Host.MaintenanceScheduled': {
    publicType: 'host.maintenance_scheduled',
    summary: (d) => `Host ${d.hostId} in maintenance from ${d.startDate} to ${d.endDate} (window ${d.windowId}): ${d.reason}`,
    fields: {
      host_id: 'hostId',
      window_id: 'windowId',
      start_date: 'startDate',
      end_date: 'endDate',
      reason: 'reason',
      scheduled_at: 'scheduledAt',
    },
  },
  'Host.MaintenanceCancelled': {
    publicType: 'host.maintenance_cancelled',
    summary: (d) => `Maintenance window ${d.windowId} of host ${d.hostId} cancelled`,
    fields: { host_id: 'hostId', window_id: 'windowId', cancelled_at: 'cancelledAt' },
  },
  'Host.Unregistered': {
    publicType: 'host.unregistered',
    summary: (d) => `Host ${d.hostId} (${d.hypervisorHostname}) removed`,
    fields: { host_id: 'hostId', hypervisor_hostname: 'hypervisorHostname', unregistered_at: 'unregisteredAt' },
  },
  'Host.Booked': {
    publicType: 'host.booked',
    summary: (d) => `Host ${d.hostId} booked for reservation ${d.reservationId} from ${d.startDate} to ${d.endDate}`,
    fields: {
      host_id: 'hostId',
      reservation_id: 'reservationId',
      lease_id: 'leaseId',
      start_date: 'startDate',
      end_date: 'endDate',
      property_names: 'propertyNames',
    },
  },
  'Host.SlotsBooked': {
    publicType: 'host.slots_booked',
    summary: (d) =>
      `${d.slots.count} slot(s) of host ${d.hostId} booked for reservation ${d.reservationId} from ${d.startDate} to ${d.endDate}`,
    fields: {
      host_id: 'hostId',
      reservation_id: 'reservationId',
      lease_id: 'leaseId',
      start_date: 'startDate',
      end_date: 'endDate',
      property_names: 'propertyNames',
      slots: (d) => publicSlots(d.slots),
    },
  },
  'Host.BookingMoved': {
    publicType: 'host.booking_moved',
    summary: (d) => `Booking of host ${d.hostId} for reservation ${d.reservationId} moved to ${d.startDate} to ${d.endDate}`,
    fields: {
      host_id: 'hostId',
      reservation_id: 'reservationId',
      start_date: 'startDate',
      end_date: 'endDate',
      property_names: 'propertyNames',
    },
  },
  'Host.SlotsMoved': {
    publicType: 'host.slots_moved',
    summary: (d) => `Slots of host ${d.hostId} for reservation ${d.reservationId} now ${d.slots.count} from ${d.startDate} to ${d.endDate}`,
    fields: {
      host_id: 'hostId',
      reservation_id: 'reservationId',
      start_date: 'startDate',
      end_date: 'endDate',
      property_names: 'propertyNames',
      slots: (d) => publicSlots(d.slots),
    },
  },
  'Host.BookingReleased': {
    publicType: 'host.booking_released',
    summary: (d) => `Booking of host ${d.hostId} for reservation ${d.reservationId} released`,
    fields: { host_id: 'hostId', reservation_id: 'reservationId', lease_id: 'leaseId' },
  },
  'Host.WentDown': {
    publicType: 'host.went_down',
    summary: (d) => `Host ${d.hostId} went down (${d.reasons.join(', ')})`,
    fields: hostHealth,
  },
  'Host.DownReasonsChanged': {
    publicType: 'host.down_reasons_changed',
    summary: (d) => `Host ${d.hostId} is still down (${d.reasons.join(', ')})`,
    fields: hostHealth,
  },
  'Host.CameUp': {
    publicType: 'host.came_up',
    summary: (d) => `Host ${d.hostId} came up`,
    fields: { host_id: 'hostId', source: 'source', observed_at: 'observedAt' },
  },
  'Host.Enrolled': {
    publicType: 'host.enrolled',
    summary: (d) => `Host ${d.hostId} joined the cloud's free pool`,
    fields: { host_id: 'hostId', effects: effectsOf, enrolled_at: 'enrolledAt' },
  },
  'Host.EnrollmentFailed': {
    publicType: 'host.enrollment_failed',
    summary: (d) => `Host ${d.hostId} could not join the cloud's free pool: ${d.error}`,
    fields: { host_id: 'hostId', error: 'error', effects: effectsOf, failed_at: 'failedAt' },
  },
  'Host.Unenrolled': {
    publicType: 'host.unenrolled',
    summary: (d) => `Host ${d.hostId} left the cloud's free pool`,
    fields: { host_id: 'hostId', effects: effectsOf, unenrolled_at: 'unenrolledAt' },
  },
  'Host.UnenrollmentFailed': {
    publicType: 'host.unenrollment_failed',
    summary: (d) => `Host ${d.hostId} could not leave the cloud's free pool: ${d.error}`,
    fields: { host_id: 'hostId', error: 'error', effects: effectsOf, failed_at: 'failedAt' },
  },

  'HostActivity.InstanceNotified': {
    publicType: 'host_activity.instance_notified',
    summary: (d) => `Nova reported ${d.eventType} for server ${d.instanceId} on host ${d.hostId}`,
    fields: {
      host_id: 'hostId',
      event_type: 'eventType',
      instance_id: 'instanceId',
      project_id: 'projectId',
      flavor_id: 'flavorId',
      state: 'state',
      occurred_at: 'occurredAt',
      message_id: 'messageId',
    },
  },
  'HostActivity.AggregateNotified': {
    publicType: 'host_activity.aggregate_notified',
    summary: (d) => `Nova reported ${d.eventType} for aggregate ${d.aggregateName} listing host ${d.hostId}`,
    fields: {
      host_id: 'hostId',
      event_type: 'eventType',
      aggregate_uuid: 'aggregateUuid',
      aggregate_id: 'aggregateId',
      aggregate_name: 'aggregateName',
      hosts: 'hosts',
      occurred_at: 'occurredAt',
      message_id: 'messageId',
    },
  },
  'HostRegistry.HostAdded': {
    publicType: 'host_registry.host_added',
    summary: (d) => `Host ${d.hostId} (${d.hypervisorHostname}) added to the registry`,
    fields: { host_id: 'hostId', hypervisor_hostname: 'hypervisorHostname' },
  },
  'HostRegistry.HostRemoved': {
    publicType: 'host_registry.host_removed',
    summary: (d) => `Host ${d.hostId} (${d.hypervisorHostname}) removed from the registry`,
    fields: { host_id: 'hostId', hypervisor_hostname: 'hypervisorHostname' },
  },

  'FloatingIp.Registered': {
    publicType: 'floating_ip.registered',
    summary: (d) => `Floating IP ${d.floatingIpId} (${d.address}) registered`,
    fields: {
      floating_ip_id: 'floatingIpId',
      network_id: 'networkId',
      subnet_id: 'subnetId',
      address: 'address',
      registered_at: 'registeredAt',
    },
  },
  'FloatingIp.Unregistered': {
    publicType: 'floating_ip.unregistered',
    summary: (d) => `Floating IP ${d.floatingIpId} (${d.address}) removed`,
    fields: { floating_ip_id: 'floatingIpId', network_id: 'networkId', address: 'address', unregistered_at: 'unregisteredAt' },
  },
  'FloatingIp.Booked': {
    publicType: 'floating_ip.booked',
    summary: (d) => `Floating IP ${d.floatingIpId} booked for reservation ${d.reservationId} from ${d.startDate} to ${d.endDate}`,
    fields: {
      floating_ip_id: 'floatingIpId',
      reservation_id: 'reservationId',
      lease_id: 'leaseId',
      start_date: 'startDate',
      end_date: 'endDate',
    },
  },
  'FloatingIp.BookingMoved': {
    publicType: 'floating_ip.booking_moved',
    summary: (d) => `Booking of floating IP ${d.floatingIpId} for reservation ${d.reservationId} moved to ${d.startDate} to ${d.endDate}`,
    fields: { floating_ip_id: 'floatingIpId', reservation_id: 'reservationId', start_date: 'startDate', end_date: 'endDate' },
  },
  'FloatingIp.BookingReleased': {
    publicType: 'floating_ip.booking_released',
    summary: (d) => `Booking of floating IP ${d.floatingIpId} for reservation ${d.reservationId} released`,
    fields: { floating_ip_id: 'floatingIpId', reservation_id: 'reservationId', lease_id: 'leaseId' },
  },
  'FloatingIp.MaintenanceScheduled': {
    publicType: 'floating_ip.maintenance_scheduled',
    summary: (d) => `Floating IP ${d.floatingIpId} in maintenance from ${d.startDate} to ${d.endDate} (window ${d.windowId}): ${d.reason}`,
    fields: {
      floating_ip_id: 'floatingIpId',
      window_id: 'windowId',
      start_date: 'startDate',
      end_date: 'endDate',
      reason: 'reason',
      scheduled_at: 'scheduledAt',
    },
  },
  'FloatingIp.MaintenanceCancelled': {
    publicType: 'floating_ip.maintenance_cancelled',
    summary: (d) => `Maintenance window ${d.windowId} of floating IP ${d.floatingIpId} cancelled`,
    fields: { floating_ip_id: 'floatingIpId', window_id: 'windowId', cancelled_at: 'cancelledAt' },
  },
  'FloatingIpRegistry.Added': {
    publicType: 'floating_ip_registry.added',
    summary: (d) => `Floating IP ${d.floatingIpId} (${d.address}) added to the registry`,
    fields: { floating_ip_id: 'floatingIpId', network_id: 'networkId', address: 'address' },
  },
  'FloatingIpRegistry.Removed': {
    publicType: 'floating_ip_registry.removed',
    summary: (d) => `Floating IP ${d.floatingIpId} (${d.address}) removed from the registry`,
    fields: { floating_ip_id: 'floatingIpId', network_id: 'networkId', address: 'address' },
  },

  'ResourceProperty.PrivacyChanged': {
    publicType: 'resource_property.privacy_changed',
    summary: (d) => `Resource property ${d.propertyName} made ${d.private ? 'private' : 'public'}`,
    fields: { property_name: 'propertyName', private: 'private', changed_at: 'changedAt' },
  },
  'FlavorCatalog.FlavorAdded': {
    publicType: 'flavor.added',
    summary: (d) => `Flavor ${d.flavor.id} (${d.flavor.name}) added to the catalog`,
    fields: {
      flavor_id: (d) => d.flavor.id,
      name: (d) => d.flavor.name,
      vcpus: (d) => d.flavor.vcpus,
      ram: (d) => d.flavor.ram,
      disk: (d) => d.flavor.disk,
      is_public: (d) => d.flavor.isPublic,
      added_at: 'addedAt',
    },
  },
  'FlavorCatalog.FlavorRemoved': {
    publicType: 'flavor.removed',
    summary: (d) => `Flavor ${d.flavorId} (${d.name}) removed from the catalog`,
    fields: { flavor_id: 'flavorId', name: 'name', removed_at: 'removedAt' },
  },
  'Freepool.Exhausted': {
    publicType: 'freepool.exhausted',
    summary: (d) =>
      `Freepool of ${zoneName(d.zone)} exhausted: ${d.freeHosts} of ${d.reservableHosts} hosts free until ${d.windowEnd} (threshold ${d.threshold})`,
    fields: freepool,
  },
  'Freepool.Recovered': {
    publicType: 'freepool.recovered',
    summary: (d) =>
      `Freepool of ${zoneName(d.zone)} recovered: ${d.freeHosts} of ${d.reservableHosts} hosts free until ${d.windowEnd} (threshold ${d.threshold})`,
    fields: freepool,
  },
  'RateCard.Published': {
    publicType: 'rate_card.published',
    summary: (d) => `Rate card ${d.name} version ${d.version} published (${d.currency}, effective from ${d.effectiveFrom})`,
    fields: {
      name: 'name',
      version: 'version',
      currency: 'currency',
      effective_from: 'effectiveFrom',
      prices: (d) => ({ ...d.prices }),
      capability_prices: (d) =>
        d.capabilityPrices.map((entry) => ({ capability: entry.capability, value: entry.value, prices: { ...entry.prices } })),
      published_at: 'publishedAt',
    },
  },
  'Quota.Set': {
    publicType: 'quota.set',
    summary: (d) => `Quotas of project ${d.projectId} set`,
    fields: {
      project_id: 'projectId',
      // every quota a registered type declares; one recorded before the quota existed shows it null (the default)
      ...Object.fromEntries(
        QUOTAS.dimensions.map(({ name, field }): [string, FieldSource<DataOf<'Quota.Set'>>] => [field, (d) => d.limits[name] ?? null]),
      ),
      set_at: 'setAt',
    },
  },
  'Quota.LeaseAdmitted': {
    publicType: 'quota.lease_admitted',
    summary: (d) => `Lease ${d.leaseId} admitted within the quotas of project ${d.projectId}`,
    fields: { project_id: 'projectId', lease_id: 'leaseId', at: 'at' },
  },
  'FairShare.ShareSet': {
    publicType: 'fair_share.share_set',
    summary: (d) => `Fair-share shares of project ${d.projectId} set to ${d.shares}`,
    fields: { project_id: 'projectId', shares: 'shares', set_at: 'setAt' },
  },
  'FairShare.ShareReset': {
    publicType: 'fair_share.share_reset',
    summary: (d) => `Fair-share shares of project ${d.projectId} back to the default`,
    fields: { project_id: 'projectId', reset_at: 'resetAt' },
  },
  'Audit.WriteRefused': {
    publicType: 'audit.write_refused',
    summary: (d) => `${d.method} ${d.path} refused (${d.status} ${d.code})${describeRefusedLease(refusedLeaseOf(d))}: ${d.reason}`,
    fields: {
      operation: 'operation',
      method: 'method',
      path: 'path',
      status: 'status',
      code: 'code',
      reason: 'reason',
      at: 'at',
      lease_id: (d) => refusedLeaseOf(d).id,
      lease_name: (d) => refusedLeaseOf(d).name,
    },
  },
};
