import { toBlazarDate } from './blazar-format.js';
import type { FloatingIpView } from './floating-ip-view.js';
import type { HostView } from './host-view.js';
import type { LeaseView } from './lease-view.js';

export interface AllocationFilter {
  readonly leaseId: string | null;
  readonly reservationId: string | null;
}

export interface HostAllocationView {
  readonly resource_id: string;
  readonly reservations: readonly { id: string; lease_id: string; start_date: string; end_date: string }[];
}

/** Same shape as a host's: `resource_id` is the floating IP's id. */
export type FloatingIpAllocationView = HostAllocationView;

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
export const groupAllocations = <Row extends BookedRow>(
  resources: readonly { readonly id: string }[],
  rows: readonly Row[],
  resourceOf: (row: Row) => string,
): HostAllocationView[] => {
  const byResource = new Map<string, Row[]>();
  for (const row of rows) byResource.set(resourceOf(row), [...(byResource.get(resourceOf(row)) ?? []), row]);
  return resources.map((resource) => ({
    resource_id: resource.id,
    reservations: (byResource.get(resource.id) ?? []).map((row) => ({
      id: row.reservationId,
      lease_id: row.leaseId,
      start_date: toBlazarDate(row.startDate),
      end_date: toBlazarDate(row.endDate),
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
