import { BigIntType, EntitySchema, type Opt } from '@mikro-orm/core';
import type { Capabilities } from '#domain/index.js';
import type { FlavorView } from './flavor-view.js';
import type { FloatingIpView } from './floating-ip-view.js';
import type { HostView } from './host-view.js';
import { HISTORY_ENTITIES, historyEntities } from './history-entities.js';
import type { LeaseView } from './lease-view.js';
import { SafeTextType } from './safe-text.type.js';

export interface LeaseRow {
  id: string;
  projectId: string;
  userId: string;
  name: string;
  startDate: string;
  endDate: string;
  status: string;
  /**
   * The document's created_at and updated_at, as columns to sort the list by (null in rows an older release wrote until they are filled in
   * at open).
   */
  createdAt: string | null;
  updatedAt: string | null;
  doc: LeaseView;
  /** Log position of the event that made this version of the row (see history-entities.ts). */
  since: Opt<number>;
  /**
   * How many of the lease's latest past versions in a row are stored as patches (see
   * version-patch.ts): the next one is stored whole once LEASE_PATCH_RUN is reached, which bounds
   * the versions an `as_of` read walks through to rebuild one.
   */
  patchRun: Opt<number>;
}

export interface ReservationRow {
  id: string;
  leaseId: string;
  projectId: string;
  resourceType: string;
  status: string;
}

/** One host held by one reservation, with the lease's interval (ISO-8601 UTC). */
export interface AllocationRow {
  id: string;
  hostId: string;
  reservationId: string;
  leaseId: string;
  startDate: string;
  endDate: string;
  /** Instance slots held on the host and what one takes (all null for a whole host). */
  slotCount: number | null;
  slotVcpus: number | null;
  slotMemoryMb: number | null;
  slotDiskGb: number | null;
  /** Log position of the event that made this version of the row (see history-entities.ts). */
  since: Opt<number>;
}

export interface HostRow {
  id: string;
  hypervisorHostname: string;
  sortKey: number;
  doc: HostView;
  capabilities: Capabilities;
  /** Log position of the event that made this version of the row (see history-entities.ts). */
  since: Opt<number>;
}

/** A capability name ever seen on a host (upstream never forgets them) and its privacy flag. */
export interface PropertyRow {
  name: string;
  id: string;
  private: boolean;
  createdAt: string;
  updatedAt: string | null;
}

export interface FloatingIpRow {
  id: string;
  networkId: string;
  address: string;
  /** Log position of the registration: the list shows floating IPs in the order they were registered. */
  sortKey: number;
  doc: FloatingIpView;
  /** Log position of the event that made this version of the row (see history-entities.ts). */
  since: Opt<number>;
}

/** One floating IP held by one reservation, with the booked interval (ISO-8601 UTC). */
export interface FloatingIpAllocationRow {
  id: string;
  floatingIpId: string;
  reservationId: string;
  leaseId: string;
  startDate: string;
  endDate: string;
  /** Log position of the event that made this version of the row (see history-entities.ts). */
  since: Opt<number>;
}

/** A registered network segment (lh_networks): its Blazar document (network-segment.view.ts in libs/plugins/src/network). */
export interface NetworkRow {
  id: string;
  networkType: string;
  physicalNetwork: string | null;
  segmentId: number | null;
  /** Log position of the registration: the list shows segments in the order they were registered. */
  sortKey: number;
  doc: ResourceDocument;
  /** Log position of the event that made this version of the row (see history-entities.ts). */
  since: Opt<number>;
}

/** A document of a registered resource kind, as its own module shapes it (plain JSON values). */
export type ResourceDocument = Readonly<Record<string, string | number | boolean | null>>;

/** One network segment held by one reservation, with the booked interval (ISO-8601 UTC). */
export interface NetworkAllocationRow {
  id: string;
  networkId: string;
  reservationId: string;
  leaseId: string;
  startDate: string;
  endDate: string;
  /** Log position of the event that made this version of the row (see history-entities.ts). */
  since: Opt<number>;
}

/** A capability name ever seen on a network segment and its privacy flag (as PropertyRow for hosts). */
/** A network segment's capability name and its privacy: the same row as a host's. */
export type NetworkPropertyRow = PropertyRow;

/**
 * One booking on one reservable resource's calendar (a whole host, instance slots on a host, a
 * floating IP, or a resource of a registered kind), as epoch milliseconds so an overlap search is two indexed integer comparisons. Stored
 * unwidened: the events do not carry the cleaning time, so a search widens by the configured one.
 */
export interface AvailabilityIntervalRow {
  /** `<reservationId>:<resourceKind>:<resourceId>`. */
  id: string;
  /** `host`, `floatingip`, or a registered kind's name (`network`). */
  resourceKind: string;
  resourceId: string;
  reservationId: string;
  leaseId: string;
  startMs: number;
  endMs: number;
  /** Instance slots booked (count x sizes), all null for a whole host or an address. */
  slotCount: number | null;
  slotVcpus: number | null;
  slotMemoryMb: number | null;
  slotDiskGb: number | null;
}

/** A flavor of the standalone catalog. */
export interface FlavorRow {
  id: string;
  name: string;
  isPublic: boolean;
  doc: FlavorView;
}

/**
 * One projection's progress: the position of the last event it projected, committed with its rows.
 * A projection that cannot project the next event records why here (and stays at `position`).
 */
export interface CheckpointRow {
  name: string;
  position: number;
  /** The event it could not project, or null while it is healthy. */
  failedPosition: number | null;
  failedEventType: string | null;
  error: string | null;
  /** ISO-8601 UTC of the first failure at that position. */
  failedAt: string | null;
}

// Every string column is a SafeTextType: whatever string an event carries is stored and read back
// exactly, on SQLite and PostgreSQL, so no value can make a projection fail.

/** The database a set of entity definitions is for: the lease list's order indexes differ (see leaseOrderIndexes). */
export type ReadModelKind = 'sqlite' | 'postgresql';

/**
 * The indexes a page of the lease list walks in its default order (start date) and newest first
 * (ReadModelQueries.leaseDocumentPage's order, expression and all), for an admin and for one project,
 * stopping after the page: without them the database reads and sorts every lease (of the project).
 * PostgreSQL sorts text `collate "C"` (code points, as SQLite) while the database's own collation is
 * C.UTF-8, and only an index of the same collation serves that order: its indexes carry `collate "C"`
 * and names of their own, so that an upgrade from a release whose indexes had the default collation
 * under the plain names creates these and drops those (updateSchema drops an index the entities no
 * longer declare; it would not notice a changed expression under an unchanged name).
 * A project's page walks an index led by its project; on PostgreSQL by md5(project_id) (the filter
 * says `md5(project_id) = md5(?) and project_id = ?`, see leaseDocumentPage): a B-tree entry stops at
 * 2704 bytes and a long project id beside a long lease id would overflow it and fail the projection.
 * A status filter needs no index: it is a condition checked along the same walk (an admin's), or a
 * sort of one project's leases of that status.
 */
export const leaseOrderIndexes = (kind: ReadModelKind): { name: string; expression: (table: unknown) => string }[] => {
  const [collate, suffix, project] = kind === 'postgresql' ? [' collate "C"', '_c', 'md5(project_id)'] : ['', '', 'project_id'];
  const orders = [
    { name: 'start', sortValue: 'start_date' },
    { name: 'created', sortValue: "coalesce(created_at, '')" },
  ];
  return orders
    .flatMap((order) => {
      const columns = `${order.sortValue}${collate}, id${collate}`;
      return [
        { name: `lh_leases_${order.name}_order${suffix}`, columns },
        { name: `lh_leases_project_${order.name}_order${suffix}`, columns: `${project}, ${columns}` },
      ];
    })
    .map(({ name, columns }) => ({ name, expression: (table: unknown) => `create index ${name} on ${String(table)} (${columns})` }));
};

const leaseSchema = (kind: ReadModelKind = 'sqlite'): EntitySchema<LeaseRow> =>
  new EntitySchema<LeaseRow>({
    name: 'LeaseRow',
    tableName: 'lh_leases',
    indexes: leaseOrderIndexes(kind),
    properties: {
      id: { type: SafeTextType, primary: true },
      // on SQLite the project's order indexes (led by project_id) find a project's leases: one index fewer to write per lease
      projectId: { type: SafeTextType, index: kind === 'postgresql' },
      userId: { type: SafeTextType },
      name: { type: SafeTextType },
      startDate: { type: SafeTextType },
      endDate: { type: SafeTextType },
      status: { type: SafeTextType },
      createdAt: { type: SafeTextType, nullable: true, index: true },
      updatedAt: { type: SafeTextType, nullable: true },
      // plain json, not PostgreSQL's jsonb, which would reorder Blazar's fields
      doc: { type: 'json', columnType: 'json' },
      since: { type: new BigIntType('number'), default: 0 },
      patchRun: { type: 'integer', default: 0 },
    },
  });
export const LeaseEntity = leaseSchema();

const reservationSchema = (): EntitySchema<ReservationRow> =>
  new EntitySchema<ReservationRow>({
    name: 'ReservationRow',
    tableName: 'lh_reservations',
    properties: {
      id: { type: SafeTextType, primary: true },
      leaseId: { type: SafeTextType, index: true },
      projectId: { type: SafeTextType },
      resourceType: { type: SafeTextType },
      status: { type: SafeTextType },
    },
  });
export const ReservationEntity = reservationSchema();

const allocationSchema = (): EntitySchema<AllocationRow> =>
  new EntitySchema<AllocationRow>({
    name: 'AllocationRow',
    tableName: 'lh_allocations',
    properties: {
      id: { type: SafeTextType, primary: true },
      hostId: { type: SafeTextType, index: true },
      reservationId: { type: SafeTextType, index: true },
      leaseId: { type: SafeTextType, index: true },
      startDate: { type: SafeTextType },
      endDate: { type: SafeTextType, index: true },
      slotCount: { type: 'integer', nullable: true },
      slotVcpus: { type: 'integer', nullable: true },
      slotMemoryMb: { type: 'integer', nullable: true },
      slotDiskGb: { type: 'integer', nullable: true },
      since: { type: new BigIntType('number'), default: 0 },
    },
  });
export const AllocationEntity = allocationSchema();

const hostSchema = (): EntitySchema<HostRow> =>
  new EntitySchema<HostRow>({
    name: 'HostRow',
    tableName: 'lh_hosts',
    properties: {
      id: { type: SafeTextType, primary: true },
      hypervisorHostname: { type: SafeTextType, unique: true },
      sortKey: { type: 'integer' },
      // plain json, not PostgreSQL's jsonb, which would reorder Blazar's fields
      doc: { type: 'json', columnType: 'json' },
      capabilities: { type: 'json', columnType: 'json' },
      since: { type: new BigIntType('number'), default: 0 },
    },
  });
export const HostEntity = hostSchema();

/** One kind's capability names and their privacy, one row per name (hosts' in `lh_properties`, network segments' in theirs). */
const propertyPrivacySchema = (name: string, tableName: string) => (): EntitySchema<PropertyRow> =>
  new EntitySchema<PropertyRow>({
    name,
    tableName,
    properties: {
      name: { type: SafeTextType, primary: true },
      id: { type: SafeTextType },
      private: { type: 'boolean' },
      createdAt: { type: SafeTextType },
      updatedAt: { type: SafeTextType, nullable: true },
    },
  });
const propertySchema = propertyPrivacySchema('PropertyRow', 'lh_properties');
export const PropertyEntity = propertySchema();

const floatingIpSchema = (): EntitySchema<FloatingIpRow> =>
  new EntitySchema<FloatingIpRow>({
    name: 'FloatingIpRow',
    tableName: 'lh_floatingips',
    properties: {
      id: { type: SafeTextType, primary: true },
      networkId: { type: SafeTextType, index: true },
      address: { type: SafeTextType },
      sortKey: { type: new BigIntType('number'), index: true },
      // plain json, not PostgreSQL's jsonb, which would reorder Blazar's fields
      doc: { type: 'json', columnType: 'json' },
      since: { type: new BigIntType('number'), default: 0 },
    },
  });
export const FloatingIpEntity = floatingIpSchema();

const floatingIpAllocationSchema = (): EntitySchema<FloatingIpAllocationRow> =>
  new EntitySchema<FloatingIpAllocationRow>({
    name: 'FloatingIpAllocationRow',
    tableName: 'lh_floatingip_allocations',
    properties: {
      id: { type: SafeTextType, primary: true },
      floatingIpId: { type: SafeTextType, index: true },
      reservationId: { type: SafeTextType, index: true },
      leaseId: { type: SafeTextType, index: true },
      startDate: { type: SafeTextType },
      endDate: { type: SafeTextType, index: true },
      since: { type: new BigIntType('number'), default: 0 },
    },
  });
export const FloatingIpAllocationEntity = floatingIpAllocationSchema();

const networkSchema = (): EntitySchema<NetworkRow> =>
  new EntitySchema<NetworkRow>({
    name: 'NetworkRow',
    tableName: 'lh_networks',
    properties: {
      id: { type: SafeTextType, primary: true },
      networkType: { type: SafeTextType },
      physicalNetwork: { type: SafeTextType, nullable: true },
      segmentId: { type: new BigIntType('number'), nullable: true },
      sortKey: { type: new BigIntType('number'), index: true },
      // plain json, not PostgreSQL's jsonb, which would reorder Blazar's fields
      doc: { type: 'json', columnType: 'json' },
      since: { type: new BigIntType('number'), default: 0 },
    },
  });
export const NetworkEntity = networkSchema();

const networkAllocationSchema = (): EntitySchema<NetworkAllocationRow> =>
  new EntitySchema<NetworkAllocationRow>({
    name: 'NetworkAllocationRow',
    tableName: 'lh_network_allocations',
    properties: {
      id: { type: SafeTextType, primary: true },
      networkId: { type: SafeTextType, index: true },
      reservationId: { type: SafeTextType, index: true },
      leaseId: { type: SafeTextType, index: true },
      startDate: { type: SafeTextType },
      endDate: { type: SafeTextType, index: true },
      since: { type: new BigIntType('number'), default: 0 },
    },
  });
export const NetworkAllocationEntity = networkAllocationSchema();

const networkPropertySchema = propertyPrivacySchema('NetworkPropertyRow', 'lh_network_properties');
export const NetworkPropertyEntity = networkPropertySchema();

const availabilitySchema = (): EntitySchema<AvailabilityIntervalRow> =>
  new EntitySchema<AvailabilityIntervalRow>({
    name: 'AvailabilityIntervalRow',
    tableName: 'lh_availability',
    // a resource's calendar in start order and in end order: "what overlaps [s, e) on these resources"
    indexes: [
      { name: 'lh_availability_resource_start', properties: ['resourceKind', 'resourceId', 'startMs'] },
      { name: 'lh_availability_resource_end', properties: ['resourceKind', 'resourceId', 'endMs'] },
    ],
    properties: {
      id: { type: SafeTextType, primary: true },
      resourceKind: { type: SafeTextType },
      resourceId: { type: SafeTextType },
      reservationId: { type: SafeTextType, index: true },
      leaseId: { type: SafeTextType },
      startMs: { type: new BigIntType('number') },
      endMs: { type: new BigIntType('number') },
      slotCount: { type: 'integer', nullable: true },
      slotVcpus: { type: 'integer', nullable: true },
      slotMemoryMb: { type: 'integer', nullable: true },
      slotDiskGb: { type: 'integer', nullable: true },
    },
  });
export const AvailabilityIntervalEntity = availabilitySchema();

const flavorSchema = (): EntitySchema<FlavorRow> =>
  new EntitySchema<FlavorRow>({
    name: 'FlavorRow',
    tableName: 'lh_flavors',
    properties: {
      id: { type: SafeTextType, primary: true },
      name: { type: SafeTextType },
      isPublic: { type: 'boolean' },
      // plain json, not PostgreSQL's jsonb, which would reorder Nova's fields
      doc: { type: 'json', columnType: 'json' },
    },
  });
export const FlavorEntity = flavorSchema();

const checkpointSchema = (): EntitySchema<CheckpointRow> =>
  new EntitySchema<CheckpointRow>({
    name: 'CheckpointRow',
    tableName: 'lh_checkpoints',
    properties: {
      name: { type: SafeTextType, primary: true },
      position: { type: new BigIntType('number') },
      failedPosition: { type: new BigIntType('number'), nullable: true },
      failedEventType: { type: SafeTextType, nullable: true },
      error: { type: SafeTextType, nullable: true },
      failedAt: { type: SafeTextType, nullable: true },
    },
  });
export const CheckpointEntity = checkpointSchema();

/** The read model's tables, as entity names for queries. */
export const READ_MODEL_ENTITIES = [
  LeaseEntity,
  ReservationEntity,
  AllocationEntity,
  HostEntity,
  PropertyEntity,
  FloatingIpEntity,
  FloatingIpAllocationEntity,
  NetworkEntity,
  NetworkAllocationEntity,
  NetworkPropertyEntity,
  FlavorEntity,
  AvailabilityIntervalEntity,
  CheckpointEntity,
  ...HISTORY_ENTITIES,
];

/**
 * The same tables as fresh definitions, one set per MikroORM instance: discovery writes into an
 * entity's metadata (its schema, for one), so two read models open at once (a rebuild beside the live
 * one) must not share them.
 */
export const readModelEntities = (kind: ReadModelKind = 'sqlite'): EntitySchema<object>[] =>
  [
    leaseSchema(kind),
    reservationSchema(),
    allocationSchema(),
    hostSchema(),
    propertySchema(),
    floatingIpSchema(),
    floatingIpAllocationSchema(),
    networkSchema(),
    networkAllocationSchema(),
    networkPropertySchema(),
    flavorSchema(),
    availabilitySchema(),
    checkpointSchema(),
    ...historyEntities(),
  ] as EntitySchema<object>[];

/** The checkpoint of releases that projected every table in one transaction; seeds the per-projection ones once. */
export const LEGACY_READ_MODEL_CHECKPOINT = 'read-models';
