import { BigIntType, EntitySchema } from '@mikro-orm/core';
import type { FloatingIpView } from './floating-ip-view.js';
import type { HostView } from './host-view.js';
import type { LeaseView } from './lease-view.js';
import { SafeTextType } from './safe-text.type.js';
import type { VersionPatch } from './version-patch.js';

/**
 * A past version of a live row: what the row held from the event at `validFrom` until the event at
 * `validTo` changed or removed it (log positions; valid for validFrom <= P < validTo). The live row
 * is the current version, valid from its `since`. Together they answer any GET as of a position.
 */
export interface Version {
  validFrom: number;
  validTo: number;
}

export interface LeaseVersionRow extends Version {
  id: string;
  projectId: string;
  startDate: string;
  /** The lease document, or, when `patch` is true, the reverse patch that makes it from the next version's (see version-patch.ts). */
  doc: LeaseView | VersionPatch;
  /**
   * true: `doc` is a patch against the version valid from `validTo` (or the live row when none is); null: `doc` is whole (every version of
   * earlier releases).
   */
  patch: boolean | null;
}

/** At most this many patches in a row: reading one past lease walks through at most as many later versions. */
export const LEASE_PATCH_RUN = 8;

export interface HostVersionRow extends Version {
  id: string;
  sortKey: number;
  doc: HostView;
}

export interface AllocationVersionRow extends Version {
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
}

export interface FloatingIpVersionRow extends Version {
  id: string;
  sortKey: number;
  doc: FloatingIpView;
}

export interface FloatingIpAllocationVersionRow extends Version {
  id: string;
  floatingIpId: string;
  reservationId: string;
  leaseId: string;
  startDate: string;
  endDate: string;
}

export interface NetworkVersionRow extends Version {
  id: string;
  sortKey: number;
  doc: Readonly<Record<string, string | number | boolean | null>>;
}

export interface NetworkAllocationVersionRow extends Version {
  id: string;
  networkId: string;
  reservationId: string;
  leaseId: string;
  startDate: string;
  endDate: string;
}

const position = () => ({ type: new BigIntType('number') });

/** Keyed by the live row's id and the position it became valid at. */
const versionProperties = {
  id: { type: SafeTextType, primary: true },
  validFrom: { ...position(), primary: true },
  validTo: position(),
} as const;

/**
 * The versions valid at P (validFrom <= P < validTo) are found in the index alone: its entries are
 * small, and only the matching rows, with their documents, are read from the table.
 */
const validityIndex = <V extends Version>(table: string): { name: string; properties: (keyof V & string)[] }[] => [
  { name: `${table}_validity`, properties: ['validTo', 'validFrom'] },
];

const leaseVersionSchema = (): EntitySchema<LeaseVersionRow> =>
  new EntitySchema<LeaseVersionRow>({
    name: 'LeaseVersionRow',
    tableName: 'lh_lease_versions',
    indexes: validityIndex('lh_lease_versions'),
    properties: {
      ...versionProperties,
      projectId: { type: SafeTextType },
      startDate: { type: SafeTextType },
      doc: { type: 'json', columnType: 'json' },
      patch: { type: 'boolean', nullable: true },
    },
  });
export const LeaseVersionEntity = leaseVersionSchema();

const hostVersionSchema = (): EntitySchema<HostVersionRow> =>
  new EntitySchema<HostVersionRow>({
    name: 'HostVersionRow',
    tableName: 'lh_host_versions',
    indexes: validityIndex('lh_host_versions'),
    properties: {
      ...versionProperties,
      sortKey: { type: 'integer' },
      doc: { type: 'json', columnType: 'json' },
    },
  });
export const HostVersionEntity = hostVersionSchema();

const allocationVersionSchema = (): EntitySchema<AllocationVersionRow> =>
  new EntitySchema<AllocationVersionRow>({
    name: 'AllocationVersionRow',
    tableName: 'lh_allocation_versions',
    indexes: validityIndex('lh_allocation_versions'),
    properties: {
      ...versionProperties,
      hostId: { type: SafeTextType },
      reservationId: { type: SafeTextType },
      leaseId: { type: SafeTextType },
      startDate: { type: SafeTextType },
      endDate: { type: SafeTextType },
      slotCount: { type: 'integer', nullable: true },
      slotVcpus: { type: 'integer', nullable: true },
      slotMemoryMb: { type: 'integer', nullable: true },
      slotDiskGb: { type: 'integer', nullable: true },
    },
  });
export const AllocationVersionEntity = allocationVersionSchema();

const floatingIpVersionSchema = (): EntitySchema<FloatingIpVersionRow> =>
  new EntitySchema<FloatingIpVersionRow>({
    name: 'FloatingIpVersionRow',
    tableName: 'lh_floatingip_versions',
    indexes: validityIndex('lh_floatingip_versions'),
    properties: {
      ...versionProperties,
      sortKey: { type: new BigIntType('number') },
      doc: { type: 'json', columnType: 'json' },
    },
  });
export const FloatingIpVersionEntity = floatingIpVersionSchema();

const floatingIpAllocationVersionSchema = (): EntitySchema<FloatingIpAllocationVersionRow> =>
  new EntitySchema<FloatingIpAllocationVersionRow>({
    name: 'FloatingIpAllocationVersionRow',
    tableName: 'lh_floatingip_allocation_versions',
    indexes: validityIndex('lh_floatingip_allocation_versions'),
    properties: {
      ...versionProperties,
      floatingIpId: { type: SafeTextType },
      reservationId: { type: SafeTextType },
      leaseId: { type: SafeTextType },
      startDate: { type: SafeTextType },
      endDate: { type: SafeTextType },
    },
  });
export const FloatingIpAllocationVersionEntity = floatingIpAllocationVersionSchema();

const networkVersionSchema = (): EntitySchema<NetworkVersionRow> =>
  new EntitySchema<NetworkVersionRow>({
    name: 'NetworkVersionRow',
    tableName: 'lh_network_versions',
    indexes: validityIndex('lh_network_versions'),
    properties: {
      ...versionProperties,
      sortKey: { type: new BigIntType('number') },
      doc: { type: 'json', columnType: 'json' },
    },
  });
export const NetworkVersionEntity = networkVersionSchema();

const networkAllocationVersionSchema = (): EntitySchema<NetworkAllocationVersionRow> =>
  new EntitySchema<NetworkAllocationVersionRow>({
    name: 'NetworkAllocationVersionRow',
    tableName: 'lh_network_allocation_versions',
    indexes: validityIndex('lh_network_allocation_versions'),
    properties: {
      ...versionProperties,
      networkId: { type: SafeTextType },
      reservationId: { type: SafeTextType },
      leaseId: { type: SafeTextType },
      startDate: { type: SafeTextType },
      endDate: { type: SafeTextType },
    },
  });
export const NetworkAllocationVersionEntity = networkAllocationVersionSchema();

export const HISTORY_ENTITIES = [
  LeaseVersionEntity,
  HostVersionEntity,
  AllocationVersionEntity,
  FloatingIpVersionEntity,
  FloatingIpAllocationVersionEntity,
  NetworkVersionEntity,
  NetworkAllocationVersionEntity,
];

/** Fresh definitions for one MikroORM instance (see readModelEntities). */
export const historyEntities = (): EntitySchema<object>[] =>
  [
    leaseVersionSchema(),
    hostVersionSchema(),
    allocationVersionSchema(),
    floatingIpVersionSchema(),
    floatingIpAllocationVersionSchema(),
    networkVersionSchema(),
    networkAllocationVersionSchema(),
  ] as EntitySchema<object>[];

/**
 * The checkpoint row holding the position from which the versions are complete: 0 for a read model
 * projected from the start with versions, the checkpoint it had when a projector that keeps versions
 * first ran on it otherwise (earlier instants need a rebuild).
 */
export const HISTORY_FROM_CHECKPOINT = 'history-from';

/** The checkpoint row whose position is the schema version the read model's rows were projected at (docs/upgrades.md). */
export const SCHEMA_VERSION_CHECKPOINT = 'schema-version';

/**
 * Raised by a release whose projections make rows that an earlier release's cannot stand in for (a
 * column only a replay fills, a document of another shape): its projector's start rebuilds a read
 * model of an older version. A column or table the schema update adds with a right default needs none.
 */
export const READ_MODEL_SCHEMA_VERSION = 1;
