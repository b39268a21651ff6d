import { blazarReader } from '#plugins/blazar/blazar-readers.js';
import type { MappedReservation, ReservationRows } from '#plugins/blazar/blazar-reservation.reader.js';
import { type BlazarRow, groupBy, text } from '#plugins/blazar/blazar-values.js';
import type { BlazarRows } from './blazar-source.port.js';

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

/** A reservation of a type Leasehold has no module for. */
export class UnsupportedReservation extends Error {
  override readonly name = 'UnsupportedReservation';
}

/** One reservation row with its plugin's row and its allocations, exactly as Blazar made them, read by its type's module. */
export const reservationOf = (row: BlazarRow, rows: ReservationRows): MappedReservation => {
  const type = text(row, 'resource_type');
  const reader = blazarReader(type);
  if (reader === null)
    throw new UnsupportedReservation(`reservation ${text(row, 'id')} is of type ${type}, which the import does not read`);
  return reader.read(row, rows);
};
