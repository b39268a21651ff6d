import { toBlazarDate } from './blazar-format.js';
import type { FloatingIpView } from './floating-ip-view.js';
import type { HostView } from './host-view.js';
import type { LeaseView } from './lease-view.js';

export interface AllocationFilter {
  readonly leaseId: string | null;
  readonly reservationId: string | null;
}

/** One reservation holding a resource, as upstream lists it. */
export interface AllocatedReservation {
  readonly id: string;
  readonly lease_id: string;
  readonly start_date: string;
  readonly end_date: string;
}

/** What an instance reservation holds on one host: its slots and their vcpus, memory and disk in all. */
export interface SlotsHeld {
  readonly slots: number;
  readonly vcpus: number;
  readonly memory_mb: number;
  readonly disk_gb: number;
}

/**
 * On a host, an instance reservation also says what it holds there (a Leasehold addition); a
 * reservation of the whole host is listed exactly as upstream lists it.
 */
export type HostAllocatedReservation = AllocatedReservation | (AllocatedReservation & SlotsHeld);

export interface HostAllocationView {
  readonly resource_id: string;
  readonly reservations: readonly HostAllocatedReservation[];
}

/** `resource_id` is the floating IP's id. */
export interface FloatingIpAllocationView {
  readonly resource_id: string;
  readonly reservations: readonly AllocatedReservation[];
}

interface SlotColumns {
  readonly slotCount: number | null;
  readonly slotVcpus: number | null;
  readonly slotMemoryMb: number | null;
  readonly slotDiskGb: number | null;
}

/** A host allocation's slot detail (totals of what its slots take), nothing for a whole host. */
export const slotDetail = ({ slotCount, slotVcpus, slotMemoryMb, slotDiskGb }: SlotColumns): SlotsHeld | Record<string, never> =>
  slotCount === null || slotVcpus === null || slotMemoryMb === null || slotDiskGb === null
    ? {}
    : { slots: slotCount, vcpus: slotCount * slotVcpus, memory_mb: slotCount * slotMemoryMb, disk_gb: slotCount * slotDiskGb };

/** Upstream's allocation filter: lease or reservation if given (then past ones too), else leases not yet ended. */
export const allocationWhere = (filter: AllocationFilter, nowIso: string): Record<string, unknown> => {
  if (filter.leaseId === null && filter.reservationId === null) return { endDate: { $gte: nowIso } };
  return {
    ...(filter.leaseId === null ? {} : { leaseId: filter.leaseId }),
    ...(filter.reservationId === null ? {} : { reservationId: filter.reservationId }),
  };
};

/** Code-point order, the same whatever the database's collation. */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

interface BookedRow {
  readonly reservationId: string;
  readonly leaseId: string;
  readonly startDate: string;
  readonly endDate: string;
}

/** One entry per resource, in the resources' order, with its bookings in the rows' order. */
export const groupAllocations = <Row extends BookedRow, Detail extends object = object>(
  resources: readonly { readonly id: string }[],
  rows: readonly Row[],
  resourceOf: (row: Row) => string,
  detail: (row: Row) => Detail = () => ({}) as Detail,
): { readonly resource_id: string; readonly reservations: readonly (AllocatedReservation & Detail)[] }[] => {
  const byResource = new Map<string, Row[]>();
  for (const row of rows) byResource.set(resourceOf(row), [...(byResource.get(resourceOf(row)) ?? []), row]);
  return resources.map((resource) => ({
    resource_id: resource.id,
    reservations: (byResource.get(resource.id) ?? []).map((row) => ({
      id: row.reservationId,
      lease_id: row.leaseId,
      start_date: toBlazarDate(row.startDate),
      end_date: toBlazarDate(row.endDate),
      ...detail(row),
    })),
  }));
};

/** The reads that can also be answered as of a past log position (ReadModelAsOf). */
export interface ResourceReads {
  leases(projectId: string | null): Promise<LeaseView[]>;
  lease(leaseId: string): Promise<LeaseView | null>;
  hosts(): Promise<HostView[]>;
  host(hostId: string): Promise<HostView | null>;
  allocations(filter: AllocationFilter, nowIso: string, hostId?: string): Promise<HostAllocationView[]>;
  floatingIps(): Promise<FloatingIpView[]>;
  floatingIp(floatingIpId: string): Promise<FloatingIpView | null>;
  floatingIpAllocations(filter: AllocationFilter, nowIso: string, floatingIpId?: string): Promise<FloatingIpAllocationView[]>;
}
