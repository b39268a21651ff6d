import type { FloatingIpBooked, FloatingIpBookingMoved, FloatingIpBookingReleased } from '#domain/index.js';
import type { FoldableEvent } from '#event-store/event-store.port.js';
import { FloatingIpAllocationEntity, type FloatingIpAllocationRow, FloatingIpAllocationVersionEntity } from '#read-model/index.js';
import type { BatchRows } from '../batch-rows.js';
import type { Projection } from '../projection.js';
import { keepVersion } from '../versions.js';

type BookingEvent = FloatingIpBooked | FloatingIpBookingMoved | FloatingIpBookingReleased;

export const floatingIpAllocationId = (reservationId: string, floatingIpId: string): string => `${reservationId}:${floatingIpId}`;

const idOf = (event: FoldableEvent): string => {
  const { reservationId, floatingIpId } = event.data as BookingEvent['data'];
  return floatingIpAllocationId(reservationId, floatingIpId);
};

const keepAllocationVersion = (rows: BatchRows, row: FloatingIpAllocationRow, position: number): void => {
  const { id, floatingIpId, reservationId, leaseId, startDate, endDate } = row;
  keepVersion(rows, FloatingIpAllocationVersionEntity, row.since, position, {
    id,
    floatingIpId,
    reservationId,
    leaseId,
    startDate,
    endDate,
  });
};

/** lh_floatingip_allocations: one row per floating IP held by a reservation, with the booked interval, and past versions. */
export const floatingIpAllocationsProjection: Projection = {
  name: 'floatingip-allocations',
  canHandle: ['FloatingIp.Booked', 'FloatingIp.BookingMoved', 'FloatingIp.BookingReleased'],
  async preload(rows, events): Promise<void> {
    await rows.table(FloatingIpAllocationEntity).load(events.map(idOf));
  },
  apply(rows, recorded: FoldableEvent): void {
    const event = { type: recorded.type, data: recorded.data } as BookingEvent;
    const id = idOf(recorded);
    const allocations = rows.table(FloatingIpAllocationEntity);
    const row = allocations.loaded(id);
    const since = recorded.position;
    if (row !== null) keepAllocationVersion(rows, row, since);
    switch (event.type) {
      case 'FloatingIp.Booked': {
        const { floatingIpId, reservationId, leaseId, startDate, endDate } = event.data;
        allocations.put({ id, floatingIpId, reservationId, leaseId, startDate, endDate, since });
        return;
      }
      case 'FloatingIp.BookingMoved':
        if (row !== null) allocations.put({ ...row, startDate: event.data.startDate, endDate: event.data.endDate, since });
        return;
      case 'FloatingIp.BookingReleased':
        if (row !== null) allocations.remove(id);
        return;
      default: {
        const _never: never = event;
        return _never;
      }
    }
  },
};
