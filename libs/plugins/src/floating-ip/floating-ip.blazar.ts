import { type BlazarReservationReader, DanglingReference, type ReservationRows, detailRow } from '../blazar/blazar-reservation.reader.js';
import { type BlazarRow, integer, text, textOrNull } from '../blazar/blazar-values.js';
import type { FloatingIpAllocation } from './floating-ip.reservation.js';

const allocationsOf = (rows: ReservationRows, reservationId: string): FloatingIpAllocation[] =>
  (rows.floatingIpAllocations.get(reservationId) ?? [])
    .map((allocation: BlazarRow) => {
      const floatingIpId = text(allocation, 'floatingip_id');
      const address = rows.addresses.get(floatingIpId);
      if (address === undefined) {
        throw new DanglingReference(
          `floatingip_allocations ${text(allocation, 'id')} names floating IP ${floatingIpId}, which does not exist`,
        );
      }
      return { floatingIpId, address };
    })
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));

/** A floating IP reservation from Blazar's floatingip_reservations row, its required addresses and its allocations. */
export const floatingIpBlazarReader: BlazarReservationReader = {
  resourceType: 'virtual:floatingip',
  read(row, rows) {
    const id = text(row, 'id');
    const detail = detailRow(rows.floatingIpReservations, 'floatingip_reservations', id);
    const required = (rows.requiredFloatingIps.get(text(detail, 'id')) ?? []).map((r) => text(r, 'address')).sort();
    return {
      reservation: {
        id,
        resourceId: textOrNull(row, 'resource_id') ?? text(detail, 'id'),
        resourceType: 'virtual:floatingip',
        networkId: text(detail, 'network_id'),
        amount: integer(detail, 'amount'),
        requiredFloatingIps: required,
        allocations: allocationsOf(rows, id),
      },
      propertyNames: [],
      startEffects: [],
    };
  },
};
