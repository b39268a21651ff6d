import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import {
  type AvailabilityIntervalRow,
  AvailabilityIntervalEntity,
  AllocationEntity,
  FlavorEntity,
  FloatingIpAllocationEntity,
  FloatingIpEntity,
  HostEntity,
  LeaseEntity,
  PropertyEntity,
  type PropertyRow,
} from './entities.js';
import type { FlavorView } from './flavor-view.js';
import type { FloatingIpView } from './floating-ip-view.js';
import { type HostView, withHealthDefaults } from './host-view.js';
import type { LeaseView } from './lease-view.js';
import { ReadModelAsOf } from './read-model-as-of.queries.js';
import { decodeStoredText, encodeStoredText } from '#event-store/stored-text.js';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
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

export type {
  AllocatedReservation,
  AllocationFilter,
  FloatingIpAllocationView,
  HostAllocationView,
  ResourceReads,
  SlotsHeld,
} from './resource-reads.js';

/** One page of leases in (start date, id) order: the filters are ANDed, null means any. */
export interface LeasePageQuery {
  readonly projectId: string | null;
  readonly status: string | null;
  readonly name: string | null;
  /** ISO-8601 UTC: leases starting at or after it. */
  readonly startsAfter: string | null;
  /** ISO-8601 UTC: leases ending at or before it. */
  readonly endsBefore: string | null;
  /** The (start date, id) of the last lease of the previous page. */
  readonly after: { readonly startDate: string; readonly id: string } | null;
  readonly limit: number;
}

/**
 * The sort keys of the lease list and their columns (a document's missing updated_at sorts first, as pagination's compareValues puts
 * nulls).
 */
const LEASE_SORT_COLUMNS = {
  created_at: "coalesce(created_at, '')",
  id: 'id',
  name: 'name',
  start_date: 'start_date',
  end_date: 'end_date',
  status: 'status',
  project_id: 'project_id',
  updated_at: "coalesce(updated_at, '')",
} as const;

export const LEASE_SORT_KEYS = Object.keys(LEASE_SORT_COLUMNS) as readonly LeaseSortKey[];

export type LeaseSortKey = keyof typeof LEASE_SORT_COLUMNS;

/** Leases of one list: filters (null: any), a sort (null: the list's usual start date, id order), a marker and a limit (null: all). */
export interface LeaseDocumentQuery {
  readonly projectId: string | null;
  readonly status: string | null;
  readonly sort: { readonly key: LeaseSortKey; readonly dir: 'asc' | 'desc' } | null;
  readonly marker: string | null;
  readonly limit: number | null;
}

export interface LeaseDocumentPage {
  readonly documents: string[];
  /** The id of the last lease of the page (the next page's marker). */
  readonly lastId: string | null;
  /** More leases follow the page. */
  readonly more: boolean;
  /** False when the marker names no lease of the list (the page is then empty). */
  readonly markerFound: boolean;
}

/** A lease of a page, with the stored start date its cursor is made of. */
export interface LeasePageEntry {
  readonly lease: LeaseView;
  readonly startDate: string;
}

const leasePageWhere = (query: LeasePageQuery): Record<string, unknown> => {
  const startDate = query.startsAfter === null ? {} : { $gte: query.startsAfter };
  const where: Record<string, unknown>[] = [
    ...(query.projectId === null ? [] : [{ projectId: query.projectId }]),
    ...(query.status === null ? [] : [{ status: query.status }]),
    ...(query.name === null ? [] : [{ name: query.name }]),
    ...(query.startsAfter === null ? [] : [{ startDate }]),
    ...(query.endsBefore === null ? [] : [{ endDate: { $lte: query.endsBefore } }]),
    ...(query.after === null
      ? []
      : [{ $or: [{ startDate: { $gt: query.after.startDate } }, { startDate: query.after.startDate, id: { $gt: query.after.id } }] }]),
  ];
  return where.length === 0 ? {} : { $and: where };
};

/** One project's leases: on PostgreSQL also by md5, which leads the project's order indexes there (see leaseOrderIndexes). */
const projectFilter = (projectId: string, postgres: boolean): { sql: string; params: string[] } =>
  postgres
    ? { sql: 'md5(project_id) = md5(?) and project_id = ?', params: [projectId, projectId] }
    : { sql: 'project_id = ?', params: [projectId] };

/** Queries against the projector's read models; each call uses its own EntityManager fork. */
export class ReadModelQueries implements ResourceReads {
  constructor(private readonly orm: MikroORM) {}

  private em() {
    return this.orm.em.fork();
  }

  /** The same reads as they stood right after the event at `position`. */
  asOf(position: number): ResourceReads {
    return new ReadModelAsOf(this.orm, position);
  }

  /** Parsed from the stored JSON directly: hydrating 20,000 entities through the unit of work costs ten times as much. */
  async leases(projectId: string | null): Promise<LeaseView[]> {
    return (await this.leaseDocuments(projectId)).map((doc) => JSON.parse(doc) as LeaseView);
  }

  /** The whole list `leases` gives, as the stored JSON of each document (see leaseDocumentPage). */
  async leaseDocuments(projectId: string | null): Promise<string[]> {
    const page = await this.leaseDocumentPage({ projectId, status: null, marker: null, limit: null, sort: null });
    return page.documents;
  }

  /**
   * Leases as the stored JSON of each document, filtered, sorted and cut after the marker by the
   * database (a keyset: the marker's sort value and id), so a page costs the rows it returns and a
   * whole list is answered without hydrating, parsing and serialising every document again (20,000
   * leases: about 0.2 s instead of 2). Text compares by code point on SQLite and PostgreSQL alike.
   */
  async leaseDocumentPage(query: LeaseDocumentQuery): Promise<LeaseDocumentPage> {
    const connection = (this.em() as SqlEntityManager).getConnection();
    const postgres = connection.getPlatform() instanceof PostgreSqlPlatform;
    const collate = postgres ? ' collate "C"' : '';
    const key = LEASE_SORT_COLUMNS[query.sort?.key ?? 'start_date'];
    const direction = query.sort?.dir ?? 'asc';
    const [sortValue, id] = [`${key}${collate}`, `id${collate}`];
    const filters = [
      ...(query.projectId === null ? [] : [projectFilter(encodeStoredText(query.projectId), postgres)]),
      ...(query.status === null ? [] : [{ sql: 'status = ?', params: [encodeStoredText(query.status)] }]),
    ];
    if (query.marker !== null) {
      const marker = await connection.execute<{ value: string }[]>(
        `select ${key} as value from lh_leases where ${['id = ?', ...filters.map((filter) => filter.sql)].join(' and ')}`,
        [encodeStoredText(query.marker), ...filters.flatMap((filter) => filter.params)],
        'all',
      );
      const value = marker[0]?.value;
      if (value === undefined) return { documents: [], lastId: null, more: false, markerFound: false };
      const after = direction === 'asc' ? '>' : '<';
      filters.push({
        sql: `(${sortValue} ${after} ? or (${sortValue} = ? and ${id} ${after} ?))`,
        params: [value, value, encodeStoredText(query.marker)],
      });
    }
    const where = filters.length === 0 ? '' : ` where ${filters.map((filter) => filter.sql).join(' and ')}`;
    const limit = query.limit === null ? '' : ` limit ${query.limit + 1}`;
    const rows = await connection.execute<{ id: string; doc: string }[]>(
      `select id, cast(doc as text) as doc from lh_leases${where} order by ${sortValue} ${direction}, ${id} ${direction}${limit}`,
      filters.flatMap((filter) => filter.params),
      'all',
    );
    const more = query.limit !== null && rows.length > query.limit;
    const kept = more ? rows.slice(0, query.limit ?? rows.length) : rows;
    const last = kept.at(-1);
    return {
      documents: kept.map((row) => row.doc),
      lastId: last === undefined ? null : decodeStoredText(last.id),
      more,
      markerFound: true,
    };
  }

  /** A page of leases, one query however many leases match: the filters and the cursor are conditions of the query. */
  async leasePage(query: LeasePageQuery): Promise<LeasePageEntry[]> {
    const rows = await this.em().find(LeaseEntity, leasePageWhere(query), { orderBy: { startDate: 'asc', id: 'asc' }, limit: query.limit });
    return rows.map((row) => ({ lease: row.doc, startDate: row.startDate }));
  }

  async lease(leaseId: string): Promise<LeaseView | null> {
    return (await this.em().findOne(LeaseEntity, { id: leaseId }))?.doc ?? null;
  }

  async hosts(): Promise<HostView[]> {
    const rows = await this.em().find(HostEntity, {}, { orderBy: { sortKey: 'asc' } });
    return rows.map((row) => withHealthDefaults(row.doc));
  }

  async host(hostId: string): Promise<HostView | null> {
    const row = await this.em().findOne(HostEntity, { id: hostId });
    return row === null ? null : withHealthDefaults(row.doc);
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
    const rows = await em.find(AllocationEntity, allocationWhere(filter, nowIso), { orderBy: { startDate: 'asc', reservationId: 'asc' } });
    return groupAllocations(hosts, rows, (row) => row.hostId, slotDetail);
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
    return groupAllocations(ips, rows, (row) => row.floatingIpId);
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

  /** Every booking of these reservations (hosts whole or in slots, or addresses), in one query. */
  async bookingsOfReservations(resourceKind: string, reservationIds: readonly string[]): Promise<AvailabilityIntervalRow[]> {
    const where = { resourceKind, reservationId: { $in: [...reservationIds] } };
    return this.em().find(AvailabilityIntervalEntity, where, { orderBy: { startMs: 'asc', resourceId: 'asc', id: 'asc' } });
  }

  /** The bookings on these resources that end at or after `fromMs`, in one query. */
  async bookingsOnResources(
    resourceKind: 'host' | 'floatingip',
    resourceIds: readonly string[],
    fromMs: number,
  ): Promise<AvailabilityIntervalRow[]> {
    const where = { resourceKind, resourceId: { $in: [...resourceIds] }, endMs: { $gte: fromMs } };
    return this.em().find(AvailabilityIntervalEntity, where, { orderBy: { startMs: 'asc', reservationId: 'asc', id: 'asc' } });
  }

  /**
   * Bookings on the given resources (all of the kind when null) within `cleaningMs` of [startMs, endMs):
   * two range conditions on the (resource, start) and (resource, end) indexes, no lease read.
   */
  async bookedIntervals(
    resourceKind: 'host' | 'floatingip',
    resourceIds: readonly string[] | null,
    startMs: number,
    endMs: number,
    cleaningMs: number,
  ): Promise<AvailabilityIntervalRow[]> {
    const where = {
      resourceKind,
      ...(resourceIds === null ? {} : { resourceId: { $in: [...resourceIds] } }),
      startMs: { $lt: endMs + cleaningMs },
      endMs: { $gt: startMs - cleaningMs },
    };
    return this.em().find(AvailabilityIntervalEntity, where, { orderBy: { resourceId: 'asc', startMs: 'asc', id: 'asc' } });
  }
}
