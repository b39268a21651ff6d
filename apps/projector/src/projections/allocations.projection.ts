import type { HostBooked, HostBookingMoved, HostBookingReleased, HostSlotsBooked, HostSlotsMoved } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { EntityManager } from '@mikro-orm/core';
import { AllocationEntity, type AllocationRow, AllocationVersionEntity } from '#read-model/index.js';
import { type Projection, findRow } from '../projection.js';
import { keepVersion } from '../versions.js';

type BookingEvent = HostBooked | HostSlotsBooked | HostBookingMoved | HostSlotsMoved | HostBookingReleased;

export const allocationId = (reservationId: string, hostId: string): string => `${reservationId}:${hostId}`;

const keepAllocationVersion = (em: EntityManager, row: AllocationRow, position: number): void => {
  const { id, hostId, reservationId, leaseId, startDate, endDate } = row;
  keepVersion(em, AllocationVersionEntity, row.since, position, { id, hostId, reservationId, leaseId, startDate, endDate });
};

/** lh_allocations: one row per host held by a reservation (whole or instance slots), with the booked interval, and past versions. */
export const allocationsProjection: Projection = {
  name: 'allocations',
  canHandle: ['Host.Booked', 'Host.SlotsBooked', 'Host.BookingMoved', 'Host.SlotsMoved', 'Host.BookingReleased'],
  async apply(em, recorded: RecordedEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as BookingEvent;
    const id = allocationId(event.data.reservationId, event.data.hostId);
    const row = await findRow(em, AllocationEntity, { id });
    const since = recorded.position;
    if (row !== null) keepAllocationVersion(em, row, since);
    switch (event.type) {
      case 'Host.Booked':
      case 'Host.SlotsBooked': {
        const { hostId, reservationId, leaseId, startDate, endDate } = event.data;
        const columns = { hostId, reservationId, leaseId, startDate, endDate, since };
        if (row === null) em.create(AllocationEntity, { id, ...columns });
        else em.assign(row, columns);
        return;
      }
      case 'Host.BookingMoved':
      case 'Host.SlotsMoved':
        if (row !== null) em.assign(row, { startDate: event.data.startDate, endDate: event.data.endDate, since });
        return;
      case 'Host.BookingReleased':
        if (row !== null) em.remove(row);
        return;
      default: {
        const _never: never = event;
        return _never;
      }
    }
  },
};
