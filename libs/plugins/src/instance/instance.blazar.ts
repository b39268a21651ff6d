import type { EffectRecord } from '#domain/index.js';
import {
  type BlazarReservationReader,
  type ReservationRows,
  allocatedHostIds,
  byHostId,
  detailRow,
  propertyNamesOf,
} from '../blazar/blazar-reservation.reader.js';
import { type BlazarRow, booleanOrNull, integer, integerOrNull, text, textOrNull } from '../blazar/blazar-values.js';
import type { SlotAllocation } from './instance.reservation.js';

/** Blazar writes one allocation row per instance slot: a host named n times holds n slots. */
const slotsOf = (rows: ReservationRows, reservationId: string): SlotAllocation[] => {
  const counts = new Map<string, number>();
  for (const hostId of allocatedHostIds(rows, reservationId)) counts.set(hostId, (counts.get(hostId) ?? 0) + 1);
  return byHostId([...counts].map(([hostId, count]) => ({ hostId, count })));
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

const fieldsOf = (row: BlazarRow, rows: ReservationRows) => {
  const id = text(row, 'id');
  const detail = detailRow(rows.instanceReservations, 'instance_reservations', id);
  return {
    detail,
    fields: {
      id,
      resourceId: textOrNull(row, 'resource_id') ?? text(detail, 'id'),
      amount: integer(detail, 'amount'),
      vcpus: integer(detail, 'vcpus'),
      memoryMb: integer(detail, 'memory_mb'),
      diskGb: integer(detail, 'disk_gb'),
      affinity: booleanOrNull(detail, 'affinity'),
      resourceProperties: textOrNull(detail, 'resource_properties') ?? '',
      allocations: slotsOf(rows, id),
    },
  };
};

export const virtualInstanceBlazarReader: BlazarReservationReader = {
  resourceType: 'virtual:instance',
  read(row, rows) {
    const { detail, fields } = fieldsOf(row, rows);
    return {
      reservation: { ...fields, resourceType: 'virtual:instance' },
      propertyNames: propertyNamesOf(fields.resourceProperties),
      startEffects: cloudIdsOf(detail),
    };
  },
};

/** The source flavor's extra specs are Nova's, not in Blazar's database: none are copied. */
export const flavorInstanceBlazarReader: BlazarReservationReader = {
  resourceType: 'flavor:instance',
  read(row, rows) {
    const { detail, fields } = fieldsOf(row, rows);
    return {
      reservation: { ...fields, resourceType: 'flavor:instance', sourceFlavorId: text(detail, 'flavor_id'), extraSpecs: {} },
      propertyNames: [],
      startEffects: cloudIdsOf(detail),
    };
  },
};
