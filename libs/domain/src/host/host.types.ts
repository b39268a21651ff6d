/** Static facts about a compute host, as Blazar exposes them. */
export interface HostInfo {
  readonly hypervisorHostname: string;
  readonly serviceName: string;
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly localGb: number;
  readonly cpuInfo: string;
  readonly hypervisorType: string;
  readonly hypervisorVersion: number;
  readonly availabilityZone: string;
}

/** Resources of `count` identical instance slots; a booking without slots holds the whole host. */
export interface SlotDemand {
  readonly count: number;
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly diskGb: number;
}

/** Nova's cpu/ram/disk allocation ratios: how far slots may overcommit a host's raw totals. */
export interface AllocationRatios {
  readonly cpu: number;
  readonly ram: number;
  readonly disk: number;
}

export const DEFAULT_ALLOCATION_RATIOS: AllocationRatios = { cpu: 1, ram: 1, disk: 1 };

/**
 * One reservation's hold on a host: [startDate, endDate) as ISO-8601 UTC, plus ms for fast search.
 * Whole-host bookings (slots null) never overlap any other booking; slot bookings may overlap each
 * other as long as, at every instant, their sum stays within the host's capacity.
 */
export interface Booking {
  readonly reservationId: string;
  readonly leaseId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly start: number;
  readonly end: number;
  /** Capability names the reservation's resource_properties depend on. */
  readonly propertyNames: readonly string[];
  /** Instance slots held (null: the whole host). */
  readonly slots: SlotDemand | null;
}

export type Capabilities = Readonly<Record<string, string>>;

/** Blazar's limit on extra capability keys. */
export const MAX_CAPABILITY_KEY_LENGTH = 64;

/** Why Nova says a compute is unusable (from service.update notifications or the os-services API). */
export type HostDownReason = 'service_down' | 'disabled' | 'forced_down';

export const HOST_DOWN_REASONS: readonly HostDownReason[] = ['service_down', 'disabled', 'forced_down'];

/** Where a health observation came from: Nova's notifications, or the polling monitor. */
export type HealthSource = 'notification' | 'polling';

/** A host's health as last observed; a down host gets no new bookings. */
export type HostHealth =
  { readonly status: 'up' } | { readonly status: 'down'; readonly reasons: readonly HostDownReason[]; readonly since: string };
