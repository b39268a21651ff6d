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
  type LeaseVersionRow,
  type Version,
} from './history-entities.js';
import { type HostView, withHealthDefaults } from './host-view.js';
import type { LeaseView } from './lease-view.js';
import { type VersionPatch, applyPatch } from './version-patch.js';
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
const byStartThen =
  <Row extends { startDate: string }>(tie: (row: Row) => string) =>
  (a: Row, b: Row): number =>
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
    const past = await em.find(versions, {
      ...where,
      validFrom: { $lte: this.position },
      validTo: { $gt: this.position },
    } as FilterQuery<V>);
    return [...current, ...(past as unknown as Omit<Row, 'since'>[])];
  }

  async leases(projectId: string | null): Promise<LeaseView[]> {
    const rows = await this.snapshot((em) => this.leaseRows(em, projectId === null ? {} : { projectId }));
    return rows.sort(byStartThen((row) => row.id)).map((row) => row.doc);
  }

  async lease(leaseId: string): Promise<LeaseView | null> {
    const [row] = await this.snapshot((em) => this.leaseRows(em, { id: leaseId }));
    return row?.doc ?? null;
  }

  /** The leases valid at the position, each with its whole document (a version kept as a patch is rebuilt). */
  private async leaseRows(em: EntityManager, where: Record<string, unknown>): Promise<{ id: string; startDate: string; doc: LeaseView }[]> {
    const rows = await this.rowsAt(em, LeaseEntity, LeaseVersionEntity, where);
    const patched = rows.filter((row) => (row as Partial<LeaseVersionRow>).patch === true) as unknown as LeaseVersionRow[];
    const docs = await wholeLeaseDocuments(em, patched);
    return rows.map((row) => ({ id: row.id, startDate: row.startDate, doc: docs.get(row.id) ?? row.doc }));
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

/** A lease version kept as a patch, and the patches gathered so far on the way to a whole document. */
interface Walk {
  readonly patches: VersionPatch[];
  /** Where the next version (or the live row) begins. */
  next: number;
}

/** Rows per query of the walk: far below SQLite's and PostgreSQL's limits on bound values. */
const WALK_CHUNK = 200;

/**
 * The whole documents of lease versions kept as patches (by lease id): each walks forward through
 * the versions after it (at most LEASE_PATCH_RUN of them are patches in a row) to a whole one or to
 * the live row, then applies the patches gathered back to front. One query per step for every
 * lease at once; all in the caller's snapshot.
 */
const wholeLeaseDocuments = async (em: EntityManager, patched: readonly LeaseVersionRow[]): Promise<Map<string, LeaseView>> => {
  const docs = new Map<string, LeaseView>();
  const walks = new Map<string, Walk>(patched.map((row) => [row.id, { patches: [row.doc as VersionPatch], next: row.validTo }]));
  const finish = (id: string, walk: Walk, whole: LeaseView): void => {
    docs.set(
      id,
      walk.patches.reduceRight<LeaseView>((doc, patch) => applyPatch(doc, patch), whole),
    );
    walks.delete(id);
  };
  while (walks.size > 0) {
    const pending = [...walks];
    const found = new Set<string>();
    for (let i = 0; i < pending.length; i += WALK_CHUNK) {
      const part = pending.slice(i, i + WALK_CHUNK).map(([id, walk]) => ({ id, validFrom: walk.next }));
      for (const version of await em.find(LeaseVersionEntity, { $or: part })) {
        const walk = walks.get(version.id);
        if (walk === undefined) continue;
        found.add(version.id);
        if (version.patch === true) {
          walk.patches.push(version.doc as VersionPatch);
          walk.next = version.validTo;
        } else finish(version.id, walk, version.doc as LeaseView);
      }
    }
    const atLive = pending.filter(([id]) => !found.has(id)).map(([id]) => id);
    for (let i = 0; i < atLive.length; i += WALK_CHUNK) {
      for (const live of await em.find(LeaseEntity, { id: { $in: atLive.slice(i, i + WALK_CHUNK) } })) {
        const walk = walks.get(live.id);
        if (walk !== undefined && live.since === walk.next) finish(live.id, walk, live.doc);
      }
    }
    // a patch whose next version is nowhere: the read model is damaged, not merely behind
    const lost = atLive.find((id) => walks.has(id));
    if (lost !== undefined)
      throw new Error(
        `lease ${lost}: a past version kept as a patch has no version after it (position ${walks.get(lost)?.next}); rebuild the read model`,
      );
  }
  return docs;
};

/**
 * The position from which this read model holds every past version: null for one an older release
 * projected (checkpoints, but no mark yet). One no projector has run on yet holds them from the start
 * of the log, as the first projector will mark it (markHistoryStart), so that an API that starts
 * before the projector answers as_of at once.
 */
export const historyFrom = async (orm: MikroORM): Promise<number | null> => {
  const em = orm.em.fork();
  const row = await em.findOne(CheckpointEntity, { name: HISTORY_FROM_CHECKPOINT });
  if (row !== null) return Number(row.position);
  return (await em.count(CheckpointEntity)) === 0 ? 0 : null;
};
