import type { EffectRecord, Reservation } from '#domain/index.js';
import type { SlotAllocation } from '#plugins/instance/instance.reservation.js';
import { BEFORE_END_ACTIONS, type BeforeEndAction } from '#plugins/physical-host/host.reservation.js';
import { compareHostIds } from '#plugins/physical-host/host-allocation.policy.js';
import { combineQueries, referencedProperties } from '#plugins/query/blazar-query.js';
import { parsePropertyQuery } from '#plugins/query/property-query.js';
import type { BlazarRow, BlazarRows } from './blazar-source.port.js';
import { BlazarValueError, booleanOrNull, groupBy, integer, integerOrNull, text, textOrNull } from './blazar-values.js';

/** Blazar's rows by the column that ties them to a reservation, and the resources that exist. */
export interface ReservationRows {
  readonly hostReservations: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly instanceReservations: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly floatingIpReservations: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly requiredFloatingIps: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly hostAllocations: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly floatingIpAllocations: ReadonlyMap<string, readonly BlazarRow[]>;
  readonly hostIds: ReadonlySet<string>;
  readonly addresses: ReadonlyMap<string, string>;
}

export const reservationRowsOf = (
  rows: BlazarRows,
  hostIds: ReadonlySet<string>,
  addresses: ReadonlyMap<string, string>,
): ReservationRows => ({
  hostReservations: groupBy(rows.computehost_reservations, 'reservation_id'),
  instanceReservations: groupBy(rows.instance_reservations, 'reservation_id'),
  floatingIpReservations: groupBy(rows.floatingip_reservations, 'reservation_id'),
  requiredFloatingIps: groupBy(rows.required_floatingips, 'floatingip_reservation_id'),
  hostAllocations: groupBy(rows.computehost_allocations, 'reservation_id'),
  floatingIpAllocations: groupBy(rows.floatingip_allocations, 'reservation_id'),
  hostIds,
  addresses,
});

/** A reservation pointing at something that is not there: its lease is left out (or the import refused). */
export class DanglingReference extends Error {
  override readonly name = 'DanglingReference';
}

/** A reservation of a type Leasehold has no module for. */
export class UnsupportedReservation extends Error {
  override readonly name = 'UnsupportedReservation';
}

export interface MappedReservation {
  readonly reservation: Reservation;
  readonly propertyNames: readonly string[];
  readonly startEffects: readonly EffectRecord[];
}

const detailRow = (rows: ReadonlyMap<string, readonly BlazarRow[]>, table: string, reservationId: string): BlazarRow => {
  const found = rows.get(reservationId) ?? [];
  if (found.length !== 1) throw new DanglingReference(`reservation ${reservationId} has ${found.length} ${table} rows, not one`);
  return found[0] as BlazarRow;
};

/** Capability names a query reads; a query Leasehold's parser refuses names none (the reservation is kept as Blazar had it). */
const propertyNamesOf = (...queries: readonly string[]): readonly string[] => {
  try {
    return referencedProperties(queries.map((q) => parsePropertyQuery(q, 'resourceProperties')).reduce(combineQueries));
  } catch {
    return [];
  }
};

const hostIdsOf = (rows: ReservationRows, reservationId: string): string[] =>
  (rows.hostAllocations.get(reservationId) ?? []).map((row) => {
    const hostId = text(row, 'compute_host_id');
    if (!rows.hostIds.has(hostId))
      throw new DanglingReference(`computehost_allocations ${text(row, 'id')} names host ${hostId}, which does not exist`);
    return hostId;
  });

const countRange = (row: BlazarRow): { min: number; max: number } => {
  const [min, max] = text(row, 'count_range').split('-', 2).map(Number);
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max))
    throw new BlazarValueError(`count_range is not min-max: ${text(row, 'count_range')}`);
  return { min: min as number, max: max as number };
};

const hostReservation = (row: BlazarRow, rows: ReservationRows): MappedReservation => {
  const id = text(row, 'id');
  const detail = detailRow(rows.hostReservations, 'computehost_reservations', id);
  const hypervisorProperties = textOrNull(detail, 'hypervisor_properties') ?? '';
  const resourceProperties = textOrNull(detail, 'resource_properties') ?? '';
  const beforeEnd = textOrNull(detail, 'before_end') ?? 'default';
  if (!(BEFORE_END_ACTIONS as readonly string[]).includes(beforeEnd))
    throw new BlazarValueError(`before_end is not one Leasehold knows: ${beforeEnd}`);
  const hostIds = [...new Set(hostIdsOf(rows, id))].sort(compareHostIds);
  return {
    reservation: {
      id,
      resourceId: textOrNull(row, 'resource_id') ?? text(detail, 'id'),
      resourceType: 'physical:host',
      ...countRange(detail),
      hypervisorProperties,
      resourceProperties,
      beforeEnd: beforeEnd as BeforeEndAction,
      hostIds,
    },
    propertyNames: propertyNamesOf(hypervisorProperties, resourceProperties),
    startEffects: [],
  };
};

/** Blazar writes one allocation row per instance slot: a host named n times holds n slots. */
const slotsOf = (rows: ReservationRows, reservationId: string): SlotAllocation[] => {
  const counts = new Map<string, number>();
  for (const hostId of hostIdsOf(rows, reservationId)) counts.set(hostId, (counts.get(hostId) ?? 0) + 1);
  return [...counts].map(([hostId, count]) => ({ hostId, count })).sort((a, b) => compareHostIds(a.hostId, b.hostId));
};

/** The aggregate and server group Blazar made for an instance reservation, as the effects adapter reports making them. */
const cloudIdsOf = (detail: BlazarRow): EffectRecord[] => {
  const aggregateId = integerOrNull(detail, 'aggregate_id');
  const serverGroupId = textOrNull(detail, 'server_group_id');
  return [
    ...(aggregateId === null ? [] : [{ operation: 'aggregate.create', aggregate_id: aggregateId, imported: true }]),
    ...(serverGroupId === null ? [] : [{ operation: 'server_group.create', server_group_id: serverGroupId, imported: true }]),
  ];
};

const instanceReservation = (row: BlazarRow, rows: ReservationRows, type: 'virtual:instance' | 'flavor:instance'): MappedReservation => {
  const id = text(row, 'id');
  const detail = detailRow(rows.instanceReservations, 'instance_reservations', id);
  const resourceProperties = textOrNull(detail, 'resource_properties') ?? '';
  const fields = {
    id,
    resourceId: textOrNull(row, 'resource_id') ?? text(detail, 'id'),
    amount: integer(detail, 'amount'),
    vcpus: integer(detail, 'vcpus'),
    memoryMb: integer(detail, 'memory_mb'),
    diskGb: integer(detail, 'disk_gb'),
    affinity: booleanOrNull(detail, 'affinity'),
    resourceProperties,
    allocations: slotsOf(rows, id),
  };
  const startEffects = cloudIdsOf(detail);
  if (type === 'virtual:instance') {
    return { reservation: { ...fields, resourceType: type }, propertyNames: propertyNamesOf(resourceProperties), startEffects };
  }
  const sourceFlavorId = text(detail, 'flavor_id');
  return { reservation: { ...fields, resourceType: type, sourceFlavorId, extraSpecs: {} }, propertyNames: [], startEffects };
};

const floatingIpReservation = (row: BlazarRow, rows: ReservationRows): MappedReservation => {
  const id = text(row, 'id');
  const detail = detailRow(rows.floatingIpReservations, 'floatingip_reservations', id);
  const required = (rows.requiredFloatingIps.get(text(detail, 'id')) ?? []).map((r) => text(r, 'address')).sort();
  const allocations = (rows.floatingIpAllocations.get(id) ?? []).map((allocation) => {
    const floatingIpId = text(allocation, 'floatingip_id');
    const address = rows.addresses.get(floatingIpId);
    if (address === undefined) {
      throw new DanglingReference(
        `floatingip_allocations ${text(allocation, 'id')} names floating IP ${floatingIpId}, which does not exist`,
      );
    }
    return { floatingIpId, address };
  });
  return {
    reservation: {
      id,
      resourceId: textOrNull(row, 'resource_id') ?? text(detail, 'id'),
      resourceType: 'virtual:floatingip',
      networkId: text(detail, 'network_id'),
      amount: integer(detail, 'amount'),
      requiredFloatingIps: required,
      allocations: allocations.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)),
    },
    propertyNames: [],
    startEffects: [],
  };
};

/** One reservation row with its plugin's row and its allocations, exactly as Blazar made them. */
export const reservationOf = (row: BlazarRow, rows: ReservationRows): MappedReservation => {
  const type = text(row, 'resource_type');
  switch (type) {
    case 'physical:host':
      return hostReservation(row, rows);
    case 'virtual:instance':
    case 'flavor:instance':
      return instanceReservation(row, rows, type);
    case 'virtual:floatingip':
      return floatingIpReservation(row, rows);
    default:
      throw new UnsupportedReservation(`reservation ${text(row, 'id')} is of type ${type}, which the import does not read`);
  }
};
