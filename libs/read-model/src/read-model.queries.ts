import type { MikroORM } from '@mikro-orm/core';
import { toBlazarDate } from './blazar-format.js';
import {
  type AvailabilityIntervalRow,
  AvailabilityIntervalEntity,
  AllocationEntity,
  type AllocationRow,
  FlavorEntity,
  FloatingIpAllocationEntity,
  type FloatingIpAllocationRow,
  FloatingIpEntity,
  HostEntity,
  LeaseEntity,
  PropertyEntity,
  type PropertyRow,
} from './entities.js';
import type { FlavorView } from './flavor-view.js';
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
const allocationWhere = (filter: AllocationFilter, nowIso: string): Record<string, unknown> => {
  if (filter.leaseId === null && filter.reservationId === null) return { endDate: { $gte: nowIso } };
  return {
    ...(filter.leaseId === null ? {} : { leaseId: filter.leaseId }),
    ...(filter.reservationId === null ? {} : { reservationId: filter.reservationId }),
  };
};

/** Code-point order, the same whatever the database's collation. */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Queries against the projector's read models; each call uses its own EntityManager fork. */
export class ReadModelQueries {
  constructor(private readonly orm: MikroORM) {}

  private em() {
    return this.orm.em.fork();
  }

  async leases(projectId: string | null): Promise<LeaseView[]> {
    const where = projectId === null ? {} : { projectId };
    const rows = await this.em().find(LeaseEntity, where, { orderBy: { startDate: 'asc', id: 'asc' } });
    return rows.map((row) => row.doc);
  }

  async lease(leaseId: string): Promise<LeaseView | null> {
    return (await this.em().findOne(LeaseEntity, { id: leaseId }))?.doc ?? null;
  }

  async hosts(): Promise<HostView[]> {
    const rows = await this.em().find(HostEntity, {}, { orderBy: { sortKey: 'asc' } });
    return rows.map((row) => row.doc);
  }

  async host(hostId: string): Promise<HostView | null> {
    return (await this.em().findOne(HostEntity, { id: hostId }))?.doc ?? null;
  }

  async properties(): Promise<PropertyRow[]> {
    return this.em().find(PropertyEntity, {}, { orderBy: { name: 'asc' } });
  }

  async property(name: string): Promise<PropertyRow | null> {
    return this.em().findOne(PropertyEntity, { name });
  }

  /** Upstream lists every host; without a filter only allocations of leases not yet ended are shown. */
  async allocations(filter: AllocationFilter, nowIso: string, hostId?: string): Promise<HostAllocationView[]> {
    const em = this.em();
    const hosts = await em.find(HostEntity, hostId === undefined ? {} : { id: hostId }, { orderBy: { sortKey: 'asc' } });
    const where: Record<string, unknown> = {};
    if (filter.leaseId !== null) where.leaseId = filter.leaseId;
    if (filter.reservationId !== null) where.reservationId = filter.reservationId;
    if (filter.leaseId === null && filter.reservationId === null) where.endDate = { $gte: nowIso };
    const rows = await em.find(AllocationEntity, where, { orderBy: { startDate: 'asc', reservationId: 'asc' } });
    const byHost = new Map<string, AllocationRow[]>();
    for (const row of rows) byHost.set(row.hostId, [...(byHost.get(row.hostId) ?? []), row]);
    return hosts.map((host) => ({
      resource_id: host.id,
      reservations: (byHost.get(host.id) ?? []).map((row) => ({
        id: row.reservationId,
        lease_id: row.leaseId,
        start_date: toBlazarDate(row.startDate),
        end_date: toBlazarDate(row.endDate),
      })),
    }));
  }
  async floatingIps(): Promise<FloatingIpView[]> {
    const rows = await this.em().find(FloatingIpEntity, {}, { orderBy: { sortKey: 'asc' } });
    return rows.map((row) => row.doc);
  }

  async floatingIp(floatingIpId: string): Promise<FloatingIpView | null> {
    return (await this.em().findOne(FloatingIpEntity, { id: floatingIpId }))?.doc ?? null;
  }

  /** One entry per registered floating IP (or only the given one), as the host allocations. */
  async floatingIpAllocations(filter: AllocationFilter, nowIso: string, floatingIpId?: string): Promise<FloatingIpAllocationView[]> {
    const em = this.em();
    const ips = await em.find(FloatingIpEntity, floatingIpId === undefined ? {} : { id: floatingIpId }, { orderBy: { sortKey: 'asc' } });
    const where = { ...allocationWhere(filter, nowIso), ...(floatingIpId === undefined ? {} : { floatingIpId }) };
    const rows = await em.find(FloatingIpAllocationEntity, where, { orderBy: { startDate: 'asc', reservationId: 'asc' } });
    const byIp = new Map<string, FloatingIpAllocationRow[]>();
    for (const row of rows) byIp.set(row.floatingIpId, [...(byIp.get(row.floatingIpId) ?? []), row]);
    return ips.map((ip) => ({
      resource_id: ip.id,
      reservations: (byIp.get(ip.id) ?? []).map((row) => ({
        id: row.reservationId,
        lease_id: row.leaseId,
        start_date: toBlazarDate(row.startDate),
        end_date: toBlazarDate(row.endDate),
      })),
    }));
  }

  /** Nova's default order: by flavor id. */
  async flavors(includePrivate: boolean): Promise<FlavorView[]> {
    const rows = await this.em().find(FlavorEntity, includePrivate ? {} : { isPublic: true });
    return rows.sort((a, b) => byCodePoint(a.id, b.id)).map((row) => row.doc);
  }

  async flavor(flavorId: string): Promise<{ readonly view: FlavorView; readonly isPublic: boolean } | null> {
    const row = await this.em().findOne(FlavorEntity, { id: flavorId });
    return row === null ? null : { view: row.doc, isPublic: row.isPublic };
  }

  /**
   * Bookings on the given resources (all of the kind when null) within `cleaningMs` of [startMs, endMs):
   * two range conditions on the (resource, start) and (resource, end) indexes, no lease read.
   */
  async bookedIntervals(resourceKind: 'host' | 'floatingip', resourceIds: readonly string[] | null, startMs: number, endMs: number, cleaningMs: number): Promise<AvailabilityIntervalRow[]> {
    const where = {
      resourceKind,
      ...(resourceIds === null ? {} : { resourceId: { $in: [...resourceIds] } }),
      startMs: { $lt: endMs + cleaningMs },
      endMs: { $gt: startMs - cleaningMs },
    };
    return this.em().find(AvailabilityIntervalEntity, where, { orderBy: { resourceId: 'asc', startMs: 'asc', id: 'asc' } });
  }
}
