import type { Capabilities, HealthSource, HostDownReason, HostEvent } from '#domain/index.js';
import { toBlazarTimestamp } from './blazar-format.js';

/** A host exactly as Blazar shows it; extra capabilities are merged in as top-level string keys. */
export interface HostView {
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly id: string;
  readonly vcpus: number;
  readonly cpu_info: string;
  readonly hypervisor_type: string;
  readonly hypervisor_version: number;
  readonly hypervisor_hostname: string;
  readonly service_name: string;
  readonly memory_mb: number;
  readonly local_gb: number;
  readonly status: null;
  readonly availability_zone: string;
  readonly trust_id: null;
  readonly reservable: boolean;
  /** Leasehold's additions: the host's health as its monitor last saw it, beside the operator's `reservable`. */
  readonly health_status: 'up' | 'down';
  readonly health_reasons: readonly HostDownReason[];
  /** Since when (Blazar's timestamp format): the last observation that changed the status, or the registration. */
  readonly health_since: string;
  /** Which monitor said so (Nova's notifications or the polling monitor); null until one has. */
  readonly health_monitor: HealthSource | null;
  readonly [capability: string]: string | number | boolean | null | readonly string[];
}

export interface HostRecord {
  readonly view: HostView;
  readonly capabilities: Capabilities;
}

/** The host's own fields, in Blazar's order. */
export const HOST_VIEW_KEYS: readonly string[] = [
  'created_at',
  'updated_at',
  'id',
  'vcpus',
  'cpu_info',
  'hypervisor_type',
  'hypervisor_version',
  'hypervisor_hostname',
  'service_name',
  'memory_mb',
  'local_gb',
  'status',
  'availability_zone',
  'trust_id',
  'reservable',
  'health_status',
  'health_reasons',
  'health_since',
  'health_monitor',
];

const BASE_KEYS = new Set(HOST_VIEW_KEYS);

/** Capability keys that would shadow a host column are not merged into the view. */
export const isMergeableCapability = (key: string): boolean => !BASE_KEYS.has(key);

const merge = (view: HostView, capabilities: Capabilities): HostView => {
  const extra = Object.fromEntries(Object.entries(capabilities).filter(([key]) => isMergeableCapability(key)));
  return { ...view, ...extra };
};

type HostHealthFields = Pick<HostView, 'health_status' | 'health_reasons' | 'health_since' | 'health_monitor'>;

const healthOf = (view: HostView): HostHealthFields => ({
  health_status: view.health_status,
  health_reasons: view.health_reasons,
  health_since: view.health_since,
  health_monitor: view.health_monitor,
});

/** Health is not an operator's change: `updated_at` stays the last change of the host's own fields. */
const withHealth = (record: HostRecord, health: HostHealthFields): HostRecord => ({ ...record, view: { ...record.view, ...health } });

/**
 * A document projected before hosts had health fields (until `npm run rebuild-read-models`) reads as
 * up since its registration, with no monitor: what the read model knew of it.
 */
export const withHealthDefaults = (view: HostView): HostView =>
  (view.health_status as HostView['health_status'] | undefined) === undefined
    ? { ...view, health_status: 'up', health_reasons: [], health_since: view.created_at, health_monitor: null }
    : view;

/** Folds a host event into its view; null once unregistered. Booking events don't change the host view. */
export const evolveHostView = (record: HostRecord | null, event: HostEvent): HostRecord | null => {
  switch (event.type) {
    case 'Host.Registered': {
      const { hostId, info, capabilities, registeredAt } = event.data;
      const view: HostView = {
        created_at: toBlazarTimestamp(registeredAt),
        updated_at: null,
        id: hostId,
        vcpus: info.vcpus,
        cpu_info: info.cpuInfo,
        hypervisor_type: info.hypervisorType,
        hypervisor_version: info.hypervisorVersion,
        hypervisor_hostname: info.hypervisorHostname,
        service_name: info.serviceName,
        memory_mb: info.memoryMb,
        local_gb: info.localGb,
        status: null,
        availability_zone: info.availabilityZone,
        trust_id: null,
        reservable: true,
        health_status: 'up',
        health_reasons: [],
        health_since: toBlazarTimestamp(registeredAt),
        health_monitor: null,
      };
      return { view: merge(view, capabilities), capabilities };
    }
    case 'Host.CapabilitiesUpdated': {
      if (record === null) return null;
      const capabilities = { ...record.capabilities, ...event.data.capabilities };
      return { view: merge({ ...record.view, updated_at: toBlazarTimestamp(event.data.updatedAt) }, capabilities), capabilities };
    }
    case 'Host.ReservableChanged':
      return record === null
        ? null
        : { ...record, view: { ...record.view, reservable: event.data.reservable, updated_at: toBlazarTimestamp(event.data.changedAt) } };
    case 'Host.Unregistered':
      return null;
    case 'Host.WentDown':
      return record === null
        ? null
        : withHealth(record, {
            health_status: 'down',
            health_reasons: event.data.reasons,
            health_since: toBlazarTimestamp(event.data.observedAt),
            health_monitor: event.data.source,
          });
    case 'Host.DownReasonsChanged':
      // still down since it went down: only the reasons and who saw them change
      return record === null
        ? null
        : withHealth(record, { ...healthOf(record.view), health_reasons: event.data.reasons, health_monitor: event.data.source });
    case 'Host.CameUp':
      return record === null
        ? null
        : withHealth(record, {
            health_status: 'up',
            health_reasons: [],
            health_since: toBlazarTimestamp(event.data.observedAt),
            health_monitor: event.data.source,
          });
    case 'Host.Booked':
    case 'Host.SlotsBooked':
    case 'Host.BookingMoved':
    case 'Host.SlotsMoved':
    case 'Host.BookingReleased':
    case 'Host.Enrolled':
    case 'Host.EnrollmentFailed':
    case 'Host.Unenrolled':
    case 'Host.UnenrollmentFailed':
    case 'Host.MaintenanceScheduled':
    case 'Host.MaintenanceCancelled':
      return record;
    default: {
      const _never: never = event;
      return record;
    }
  }
};
