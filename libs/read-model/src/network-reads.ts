import { type EntityManager, type EntitySchema, type FilterQuery, IsolationLevel, type MikroORM } from '@mikro-orm/core';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import {
  NetworkAllocationEntity,
  NetworkEntity,
  NetworkPropertyEntity,
  type NetworkPropertyRow,
  type ResourceDocument,
} from './entities.js';
import { NetworkAllocationVersionEntity, NetworkVersionEntity, type Version } from './history-entities.js';
import { type AllocatedReservation, type AllocationFilter, allocationWhere, byCodePoint, groupAllocations } from './resource-reads.js';

/** `resource_id` is the segment's id, as Chameleon's `{"resource_id": ..., "reservations": [...]}`. */
export interface NetworkAllocationView {
  readonly resource_id: string;
  readonly reservations: readonly AllocatedReservation[];
}

/**
 * The network segments' read model (lh_networks, lh_network_allocations, lh_network_properties): live, or as it
 * stood right after the event at a log position (the live rows made at or before it and the past versions valid
 * then, see history-entities.ts), as ReadModelQueries and ReadModelAsOf answer for hosts and floating IPs.
 */
export class NetworkReads {
  constructor(
    private readonly orm: MikroORM,
    private readonly position: number | null = null,
  ) {}

  at(position: number): NetworkReads {
    return new NetworkReads(this.orm, position);
  }

  /** In registration order. */
  async networks(): Promise<ResourceDocument[]> {
    return (await this.read((em) => this.networkRows(em, {}))).map((row) => row.doc);
  }

  async network(networkId: string): Promise<ResourceDocument | null> {
    const [row] = await this.read((em) => this.networkRows(em, { id: networkId }));
    return row?.doc ?? null;
  }

  /** One entry per registered segment (or only the given one); without a filter only bookings not yet ended at `nowIso`. */
  async allocations(filter: AllocationFilter, nowIso: string, networkId?: string): Promise<NetworkAllocationView[]> {
    return this.read(async (em) => {
      const networks = await this.networkRows(em, networkId === undefined ? {} : { id: networkId });
      const where = { ...allocationWhere(filter, nowIso), ...(networkId === undefined ? {} : { networkId }) };
      const rows = await this.rows(em, NetworkAllocationEntity, NetworkAllocationVersionEntity, where);
      const sorted = rows.sort((a, b) => byCodePoint(a.startDate, b.startDate) || byCodePoint(a.reservationId, b.reservationId));
      return groupAllocations(networks, sorted, (row) => row.networkId);
    });
  }

  /** Every capability name ever seen on a segment, by name (live: privacy has no past versions, as hosts' properties). */
  async properties(): Promise<NetworkPropertyRow[]> {
    return this.orm.em.fork().find(NetworkPropertyEntity, {}, { orderBy: { name: 'asc' } });
  }

  async property(name: string): Promise<NetworkPropertyRow | null> {
    return this.orm.em.fork().findOne(NetworkPropertyEntity, { name });
  }

  private async networkRows(
    em: EntityManager,
    where: Record<string, unknown>,
  ): Promise<{ id: string; sortKey: number; doc: ResourceDocument }[]> {
    return (await this.rows(em, NetworkEntity, NetworkVersionEntity, where)).sort((a, b) => a.sortKey - b.sortKey);
  }

  /** Live: one read. As of a position: both tables in one snapshot, so a version the projector moves meanwhile is seen once. */
  private read<T>(query: (em: EntityManager) => Promise<T>): Promise<T> {
    const em = this.orm.em.fork();
    if (this.position === null) return query(em);
    const pg = em.getPlatform() instanceof PostgreSqlPlatform;
    return em.transactional(query, pg ? { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true } : {});
  }

  private async rows<Row extends { since: number }, V extends Version>(
    em: EntityManager,
    live: EntitySchema<Row>,
    versions: EntitySchema<V>,
    where: Record<string, unknown>,
  ): Promise<Omit<Row, 'since'>[]> {
    if (this.position === null) return em.find(live, where as FilterQuery<Row>);
    const current = await em.find(live, { ...where, since: { $lte: this.position } } as FilterQuery<Row>);
    const past = await em.find(versions, {
      ...where,
      validFrom: { $lte: this.position },
      validTo: { $gt: this.position },
    } as FilterQuery<V>);
    return [...current, ...(past as unknown as Omit<Row, 'since'>[])];
  }
}
