import type { FoldableEvent } from '#event-store/event-store.port.js';
import { NetworkAllocationEntity, type NetworkAllocationRow, NetworkAllocationVersionEntity } from '#read-model/index.js';
import type { NetworkSegmentBookingEvent } from '#plugins/network/network-segment.events.js';
import type { BatchRows } from '../batch-rows.js';
import type { Projection } from '../projection.js';
import { keepVersion } from '../versions.js';

export const networkAllocationId = (reservationId: string, networkId: string): string => `${reservationId}:${networkId}`;

const idOf = (event: FoldableEvent): string => {
  const { reservationId, networkId } = event.data as NetworkSegmentBookingEvent['data'];
  return networkAllocationId(reservationId, networkId);
};

const keepAllocationVersion = (rows: BatchRows, row: NetworkAllocationRow, position: number): void => {
  const { id, networkId, reservationId, leaseId, startDate, endDate } = row;
  keepVersion(rows, NetworkAllocationVersionEntity, row.since, position, { id, networkId, reservationId, leaseId, startDate, endDate });
};

/** lh_network_allocations: one row per segment held by a reservation, with the booked interval, and past versions. */
export const networkAllocationsProjection: Projection = {
  name: 'network-allocations',
  canHandle: ['NetworkSegment.Booked', 'NetworkSegment.BookingMoved', 'NetworkSegment.BookingReleased'],
  async preload(rows, events): Promise<void> {
    await rows.table(NetworkAllocationEntity).load(events.map(idOf));
  },
  apply(rows, recorded: FoldableEvent): void {
    const event = { type: recorded.type, data: recorded.data } as NetworkSegmentBookingEvent;
    const id = idOf(recorded);
    const allocations = rows.table(NetworkAllocationEntity);
    const row = allocations.loaded(id);
    const since = recorded.position;
    if (row !== null) keepAllocationVersion(rows, row, since);
    switch (event.type) {
      case 'NetworkSegment.Booked': {
        const { networkId, reservationId, leaseId, startDate, endDate } = event.data;
        allocations.put({ id, networkId, reservationId, leaseId, startDate, endDate, since });
        return;
      }
      case 'NetworkSegment.BookingMoved':
        if (row !== null) allocations.put({ ...row, startDate: event.data.startDate, endDate: event.data.endDate, since });
        return;
      case 'NetworkSegment.BookingReleased':
        if (row !== null) allocations.remove(id);
        return;
      default: {
        const _never: never = event;
        return _never;
      }
    }
  },
};
