import type { Interval } from '../../../domain/src/shared/interval.js';

/** A booking on a host's calendar: half-open [start, end) in epoch ms, unwidened. */
export interface HostBookingSnapshot extends Interval {
  readonly reservationId: string;
  readonly leaseId: string;
}

/** Host columns that Blazar's query language compares as database columns. */
export interface HostColumns {
  readonly id: string;
  readonly hypervisor_hostname: string;
  readonly service_name: string;
  readonly vcpus: number;
  readonly memory_mb: number;
  readonly local_gb: number;
  readonly cpu_info: string;
  readonly hypervisor_type: string;
  readonly hypervisor_version: number;
  readonly availability_zone: string;
  readonly status: string | null;
  readonly trust_id: string | null;
  readonly reservable: boolean;
}

/** What the allocation policy sees of a host: columns, free-form capabilities and its calendar. */
export interface HostSnapshot {
  readonly id: string;
  readonly columns: HostColumns;
  readonly capabilities: Readonly<Record<string, string>>;
  /** Sorted by start; members never overlap (the host decider guarantees it). */
  readonly bookings: readonly HostBookingSnapshot[];
}
