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

/** One reservation's hold on a host: [startDate, endDate) as ISO-8601 UTC, plus ms for fast search. */
export interface Booking {
  readonly reservationId: string;
  readonly leaseId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly start: number;
  readonly end: number;
  /** Capability names the reservation's resource_properties depend on. */
  readonly propertyNames: readonly string[];
}

export type Capabilities = Readonly<Record<string, string>>;

/** Blazar's limit on extra capability keys. */
export const MAX_CAPABILITY_KEY_LENGTH = 64;
