import { type EntityManager, type EntitySchema, type FilterQuery, IsolationLevel, type MikroORM } from '@mikro-orm/core';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import {
  AllocationEntity,
  CheckpointEntity,
  FloatingIpAllocationEntity,
  FloatingIpEntity,
  type FloatingIpRow,
  HostEntity,
  type HostRow,
  LeaseEntity,
} from './entities.js';
import type { FloatingIpView } from './floating-ip-view.js';
import {
  AllocationVersionEntity,
  FloatingIpAllocationVersionEntity,
  FloatingIpVersionEntity,
  HISTORY_FROM_CHECKPOINT,
  HostVersionEntity,
  LeaseVersionEntity,
  type Version,
} from './history-entities.js';
import { type HostView, withHealthDefaults } from './host-view.js';
import type { LeaseView } from './lease-view.js';
import {
  type AllocationFilter,
  type FloatingIpAllocationView,
  type HostAllocationView,
  type ResourceReads,
  allocationWhere,
  byCodePoint,
  groupAllocations,
  slotDetail,
} from './resource-reads.js';

type Live = { since: number };

/** The order of the live queries' `orderBy`, for rows merged from the live table and the versions. */
const byStartThen = <Row extends { startDate: string }>(tie: (row: Row) => string) => (a: Row, b: Row): number =>
  byCodePoint(a.startDate, b.startDate) || byCodePoint(tie(a), tie(b));
const bySortKey = (a: { sortKey: number }, b: { sortKey: number }): number => a.sortKey - b.sortKey;

/**
 * The same reads as ReadModelQueries, answered as they stood right after the event at `position`:
 * the live rows made at or before it, and the past versions valid then (see history-entities.ts).
 */
export class ReadModelAsOf implements ResourceReads {
  constructor(
    private readonly orm: MikroORM,
    private readonly position: number,
  ) {}

  /** Both tables in one snapshot: a version the projector moves out of the live table meanwhile is seen once. */
  private snapshot<T>(read: (em: EntityManager) => Promise<T>): Promise<T> {
    const em = this.orm.em.fork();
    const pg = em.getPlatform() instanceof PostgreSqlPlatform;
    return em.transactional(read, pg ? { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true } : {});
  }

  private async rowsAt<Row extends Live, V extends Version>(
    em: EntityManager,
    live: EntitySchema<Row>,
    versions: EntitySchema<V>,
    where: Record<string, unknown>,
  ): Promise<Omit<Row, 'since'>[]> {
    const current = await em.find(live, { ...where, since: { $lte: this.position } } as FilterQuery<Row>);
    const past = await em.find(versions, { ...where, validFrom: { $lte: this.position }, validTo: { $gt: this.position } } as FilterQuery<V>);
    return [...current, ...(past as unknown as Omit<Row, 'since'>[])];
  }

  async leases(projectId: string | null): Promise<LeaseView[]> {
    const rows = await this.snapshot((em) => this.rowsAt(em, LeaseEntity, LeaseVersionEntity, projectId === null ? {} : { projectId }));
    return rows.sort(byStartThen((row) => row.id)).map((row) => row.doc);
  }

  async lease(leaseId: string): Promise<LeaseView | null> {
    const [row] = await this.snapshot((em) => this.rowsAt(em, LeaseEntity, LeaseVersionEntity, { id: leaseId }));
    return row?.doc ?? null;
  }

  async hosts(): Promise<HostView[]> {
    return (await this.snapshot((em) => this.hostRows(em, {}))).map((row) => withHealthDefaults(row.doc));
  }

  async host(hostId: string): Promise<HostView | null> {
    const [row] = await this.snapshot((em) => this.hostRows(em, { id: hostId }));
    return row === undefined ? null : withHealthDefaults(row.doc);
  }

  private async hostRows(em: EntityManager, where: Record<string, unknown>): Promise<Omit<HostRow, 'since'>[]> {
    return (await this.rowsAt(em, HostEntity, HostVersionEntity, where)).sort(bySortKey);
  }

  async allocations(filter: AllocationFilter, nowIso: string, hostId?: string): Promise<HostAllocationView[]> {
    return this.snapshot(async (em) => {
      const hosts = await this.hostRows(em, hostId === undefined ? {} : { id: hostId });
      const where = allocationWhere(filter, nowIso);
      const rows = await this.rowsAt(em, AllocationEntity, AllocationVersionEntity, where);
      const sorted = rows.sort(byStartThen((row) => row.reservationId));
      return groupAllocations(hosts, sorted, (row) => row.hostId, slotDetail);
    });
  }

  async floatingIps(): Promise<FloatingIpView[]> {
    return (await this.snapshot((em) => this.floatingIpRows(em, {}))).map((row) => row.doc);
  }

  async floatingIp(floatingIpId: string): Promise<FloatingIpView | null> {
    const [row] = await this.snapshot((em) => this.floatingIpRows(em, { id: floatingIpId }));
    return row?.doc ?? null;
  }

  private async floatingIpRows(em: EntityManager, where: Record<string, unknown>): Promise<Omit<FloatingIpRow, 'since'>[]> {
    return (await this.rowsAt(em, FloatingIpEntity, FloatingIpVersionEntity, where)).sort(bySortKey);
  }

  async floatingIpAllocations(filter: AllocationFilter, nowIso: string, floatingIpId?: string): Promise<FloatingIpAllocationView[]> {
    return this.snapshot(async (em) => {
      const ips = await this.floatingIpRows(em, floatingIpId === undefined ? {} : { id: floatingIpId });
      const where = { ...allocationWhere(filter, nowIso), ...(floatingIpId === undefined ? {} : { floatingIpId }) };
      const rows = await this.rowsAt(em, FloatingIpAllocationEntity, FloatingIpAllocationVersionEntity, where);
      const sorted = rows.sort(byStartThen((row) => row.reservationId));
      return groupAllocations(ips, sorted, (row) => row.floatingIpId);
    });
  }
}

/** The position from which this read model holds every past version (null before a projector that keeps them ran on it). */
export const historyFrom = async (orm: MikroORM): Promise<number | null> => {
  const row = await orm.em.fork().findOne(CheckpointEntity, { name: HISTORY_FROM_CHECKPOINT });
  return row === null ? null : Number(row.position);
};
