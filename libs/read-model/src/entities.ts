import { BigIntType, EntitySchema } from '@mikro-orm/core';
import type { Capabilities } from '../../domain/src/index.js';
import type { FlavorView } from './flavor-view.js';
import type { FloatingIpView } from './floating-ip-view.js';
import type { HostView } from './host-view.js';
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
  doc: LeaseView;
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
}

export interface HostRow {
  id: string;
  hypervisorHostname: string;
  sortKey: number;
  doc: HostView;
  capabilities: Capabilities;
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
}

/** One floating IP held by one reservation, with the booked interval (ISO-8601 UTC). */
export interface FloatingIpAllocationRow {
  id: string;
  floatingIpId: string;
  reservationId: string;
  leaseId: string;
  startDate: string;
  endDate: string;
}

/** A flavor of the standalone catalog. */
export interface FlavorRow {
  id: string;
  name: string;
  isPublic: boolean;
  doc: FlavorView;
}

export interface CheckpointRow {
  name: string;
  position: number;
}

// Every string column is a SafeTextType: whatever string an event carries is stored and read back
// exactly, on SQLite and PostgreSQL, so no value can make a projection fail.

export const LeaseEntity = new EntitySchema<LeaseRow>({
  name: 'LeaseRow',
  tableName: 'lh_leases',
  properties: {
    id: { type: SafeTextType, primary: true },
    projectId: { type: SafeTextType, index: true },
    userId: { type: SafeTextType },
    name: { type: SafeTextType },
    startDate: { type: SafeTextType },
    endDate: { type: SafeTextType },
    status: { type: SafeTextType },
    // plain json, not PostgreSQL's jsonb, which would reorder Blazar's fields
    doc: { type: 'json', columnType: 'json' },
  },
});

export const ReservationEntity = new EntitySchema<ReservationRow>({
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

export const AllocationEntity = new EntitySchema<AllocationRow>({
  name: 'AllocationRow',
  tableName: 'lh_allocations',
  properties: {
    id: { type: SafeTextType, primary: true },
    hostId: { type: SafeTextType, index: true },
    reservationId: { type: SafeTextType, index: true },
    leaseId: { type: SafeTextType, index: true },
    startDate: { type: SafeTextType },
    endDate: { type: SafeTextType, index: true },
  },
});

export const HostEntity = new EntitySchema<HostRow>({
  name: 'HostRow',
  tableName: 'lh_hosts',
  properties: {
    id: { type: SafeTextType, primary: true },
    hypervisorHostname: { type: SafeTextType, unique: true },
    sortKey: { type: 'integer' },
    // plain json, not PostgreSQL's jsonb, which would reorder Blazar's fields
    doc: { type: 'json', columnType: 'json' },
    capabilities: { type: 'json', columnType: 'json' },
  },
});

export const PropertyEntity = new EntitySchema<PropertyRow>({
  name: 'PropertyRow',
  tableName: 'lh_properties',
  properties: {
    name: { type: SafeTextType, primary: true },
    id: { type: SafeTextType },
    private: { type: 'boolean' },
    createdAt: { type: SafeTextType },
    updatedAt: { type: SafeTextType, nullable: true },
  },
});

export const FloatingIpEntity = new EntitySchema<FloatingIpRow>({
  name: 'FloatingIpRow',
  tableName: 'lh_floatingips',
  properties: {
    id: { type: SafeTextType, primary: true },
    networkId: { type: SafeTextType, index: true },
    address: { type: SafeTextType },
    sortKey: { type: new BigIntType('number'), index: true },
    // plain json, not PostgreSQL's jsonb, which would reorder Blazar's fields
    doc: { type: 'json', columnType: 'json' },
  },
});

export const FloatingIpAllocationEntity = new EntitySchema<FloatingIpAllocationRow>({
  name: 'FloatingIpAllocationRow',
  tableName: 'lh_floatingip_allocations',
  properties: {
    id: { type: SafeTextType, primary: true },
    floatingIpId: { type: SafeTextType, index: true },
    reservationId: { type: SafeTextType, index: true },
    leaseId: { type: SafeTextType, index: true },
    startDate: { type: SafeTextType },
    endDate: { type: SafeTextType, index: true },
  },
});

export const FlavorEntity = new EntitySchema<FlavorRow>({
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

export const CheckpointEntity = new EntitySchema<CheckpointRow>({
  name: 'CheckpointRow',
  tableName: 'lh_checkpoints',
  properties: {
    name: { type: SafeTextType, primary: true },
    position: { type: new BigIntType('number') },
  },
});

export const READ_MODEL_ENTITIES = [
  LeaseEntity,
  ReservationEntity,
  AllocationEntity,
  HostEntity,
  PropertyEntity,
  FloatingIpEntity,
  FloatingIpAllocationEntity,
  FlavorEntity,
  CheckpointEntity,
];

export const READ_MODEL_CHECKPOINT = 'read-models';
