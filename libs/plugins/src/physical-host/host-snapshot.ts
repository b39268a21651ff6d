import type { SlotDemand } from '#domain/host/host.types.js';
import type { Interval } from '#domain/shared/interval.js';

/** A booking on a host's calendar: half-open [start, end) in epoch ms, unwidened; slots null = whole host. */
export interface HostBookingSnapshot extends Interval {
  readonly reservationId: string;
  readonly leaseId: string;
  readonly slots: SlotDemand | null;
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
  /** Sorted by start; whole-host members overlap nothing, slot members may overlap each other. */
  readonly bookings: readonly HostBookingSnapshot[];
  /** No booking is longer (bounds overlap searches). */
  readonly longestBookingMs: number;
  /** Maintenance windows, sorted by start (the host's own, see Calendar). */
  readonly maintenance: readonly Interval[];
}
