import type { HostBooked, HostBookingMoved, HostBookingReleased, HostSlotsBooked, HostSlotsMoved } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { AllocationEntity, type AllocationRow, AllocationVersionEntity } from '#read-model/index.js';
import type { BatchRows } from '../batch-rows.js';
import type { Projection } from '../projection.js';
import { keepVersion } from '../versions.js';

type BookingEvent = HostBooked | HostSlotsBooked | HostBookingMoved | HostSlotsMoved | HostBookingReleased;

export const allocationId = (reservationId: string, hostId: string): string => `${reservationId}:${hostId}`;

const idOf = (event: RecordedEvent): string => {
  const { reservationId, hostId } = event.data as BookingEvent['data'];
  return allocationId(reservationId, hostId);
};

const keepAllocationVersion = (rows: BatchRows, row: AllocationRow, position: number): void => {
  const { id, hostId, reservationId, leaseId, startDate, endDate } = row;
  keepVersion(rows, AllocationVersionEntity, row.since, position, { id, hostId, reservationId, leaseId, startDate, endDate });
};

/** lh_allocations: one row per host held by a reservation (whole or instance slots), with the booked interval, and past versions. */
export const allocationsProjection: Projection = {
  name: 'allocations',
  canHandle: ['Host.Booked', 'Host.SlotsBooked', 'Host.BookingMoved', 'Host.SlotsMoved', 'Host.BookingReleased'],
  async preload(rows, events): Promise<void> {
    await rows.table(AllocationEntity).load(events.map(idOf));
  },
  async apply(rows, recorded: RecordedEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as BookingEvent;
    const id = idOf(recorded);
    const allocations = rows.table(AllocationEntity);
    const row = await allocations.get(id);
    const since = recorded.position;
    if (row !== null) keepAllocationVersion(rows, row, since);
    switch (event.type) {
      case 'Host.Booked':
      case 'Host.SlotsBooked': {
        const { hostId, reservationId, leaseId, startDate, endDate } = event.data;
        allocations.put({ id, hostId, reservationId, leaseId, startDate, endDate, since });
        return;
      }
      case 'Host.BookingMoved':
      case 'Host.SlotsMoved':
        if (row !== null) allocations.put({ ...row, startDate: event.data.startDate, endDate: event.data.endDate, since });
        return;
      case 'Host.BookingReleased':
        if (row !== null) allocations.remove(id);
        return;
      default: {
        const _never: never = event;
        return _never;
      }
    }
  },
};
