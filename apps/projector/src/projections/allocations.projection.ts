import type { HostBooked, HostBookingMoved, HostBookingReleased, HostSlotsBooked, HostSlotsMoved } from '#domain/index.js';
import type { FoldableEvent } from '#event-store/event-store.port.js';
import { AllocationEntity, type AllocationRow, AllocationVersionEntity } from '#read-model/index.js';
import type { BatchRows } from '../batch-rows.js';
import type { Projection } from '../projection.js';
import { keepVersion } from '../versions.js';

type BookingEvent = HostBooked | HostSlotsBooked | HostBookingMoved | HostSlotsMoved | HostBookingReleased;

export const allocationId = (reservationId: string, hostId: string): string => `${reservationId}:${hostId}`;

const idOf = (event: FoldableEvent): string => {
  const { reservationId, hostId } = event.data as BookingEvent['data'];
  return allocationId(reservationId, hostId);
};

const keepAllocationVersion = (rows: BatchRows, row: AllocationRow, position: number): void => {
  const { since: _since, ...version } = row;
  keepVersion(rows, AllocationVersionEntity, row.since, position, version);
};

const NO_SLOTS = { slotCount: null, slotVcpus: null, slotMemoryMb: null, slotDiskGb: null };

const slotsOf = (slots: { readonly count: number; readonly vcpus: number; readonly memoryMb: number; readonly diskGb: number }) => ({
  slotCount: slots.count,
  slotVcpus: slots.vcpus,
  slotMemoryMb: slots.memoryMb,
  slotDiskGb: slots.diskGb,
});

/**
 * lh_allocations: one row per host held by a reservation (whole or instance slots, with their sizes), with the booked interval, and past
 * versions.
 */
export const allocationsProjection: Projection = {
  name: 'allocations',
  canHandle: ['Host.Booked', 'Host.SlotsBooked', 'Host.BookingMoved', 'Host.SlotsMoved', 'Host.BookingReleased'],
  async preload(rows, events): Promise<void> {
    await rows.table(AllocationEntity).load(events.map(idOf));
  },
  apply(rows, recorded: FoldableEvent): void {
    const event = { type: recorded.type, data: recorded.data } as BookingEvent;
    const id = idOf(recorded);
    const allocations = rows.table(AllocationEntity);
    const row = allocations.loaded(id);
    const since = recorded.position;
    if (row !== null) keepAllocationVersion(rows, row, since);
    switch (event.type) {
      case 'Host.Booked': {
        const { hostId, reservationId, leaseId, startDate, endDate } = event.data;
        allocations.put({ id, hostId, reservationId, leaseId, startDate, endDate, ...NO_SLOTS, since });
        return;
      }
      case 'Host.SlotsBooked': {
        const { hostId, reservationId, leaseId, startDate, endDate, slots } = event.data;
        allocations.put({ id, hostId, reservationId, leaseId, startDate, endDate, ...slotsOf(slots), since });
        return;
      }
      case 'Host.BookingMoved':
        if (row !== null) allocations.put({ ...row, startDate: event.data.startDate, endDate: event.data.endDate, since });
        return;
      case 'Host.SlotsMoved':
        if (row !== null)
          allocations.put({ ...row, startDate: event.data.startDate, endDate: event.data.endDate, ...slotsOf(event.data.slots), since });
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
