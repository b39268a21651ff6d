import type { MikroORM } from '@mikro-orm/core';
import {
  AllocationEntity,
  type AllocationRow,
  HostEntity,
  type HostView,
  LeaseEntity,
  type LeaseView,
  PropertyEntity,
  type PropertyRow,
  toBlazarDate,
} from '../../../../libs/read-model/src/index.js';

export interface AllocationFilter {
  readonly leaseId: string | null;
  readonly reservationId: string | null;
}

export interface HostAllocationView {
  readonly resource_id: string;
  readonly reservations: readonly { id: string; lease_id: string; start_date: string; end_date: string }[];
}

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
}
