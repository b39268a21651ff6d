import type { FloatingIpBooked, FloatingIpBookingMoved, FloatingIpBookingReleased } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { EntityManager } from '@mikro-orm/core';
import { FloatingIpAllocationEntity, type FloatingIpAllocationRow, FloatingIpAllocationVersionEntity } from '#read-model/index.js';
import { type Projection, findRow } from '../projection.js';
import { keepVersion } from '../versions.js';

type BookingEvent = FloatingIpBooked | FloatingIpBookingMoved | FloatingIpBookingReleased;

export const floatingIpAllocationId = (reservationId: string, floatingIpId: string): string => `${reservationId}:${floatingIpId}`;

const keepAllocationVersion = (em: EntityManager, row: FloatingIpAllocationRow, position: number): void => {
  const { id, floatingIpId, reservationId, leaseId, startDate, endDate } = row;
  keepVersion(em, FloatingIpAllocationVersionEntity, row.since, position, { id, floatingIpId, reservationId, leaseId, startDate, endDate });
};

/** lh_floatingip_allocations: one row per floating IP held by a reservation, with the booked interval, and past versions. */
export const floatingIpAllocationsProjection: Projection = {
  name: 'floatingip-allocations',
  canHandle: ['FloatingIp.Booked', 'FloatingIp.BookingMoved', 'FloatingIp.BookingReleased'],
  async apply(em, recorded: RecordedEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as BookingEvent;
    const id = floatingIpAllocationId(event.data.reservationId, event.data.floatingIpId);
    const row = await findRow(em, FloatingIpAllocationEntity, { id });
    const since = recorded.position;
    if (row !== null) keepAllocationVersion(em, row, since);
    switch (event.type) {
      case 'FloatingIp.Booked': {
        const { floatingIpId, reservationId, leaseId, startDate, endDate } = event.data;
        const columns = { floatingIpId, reservationId, leaseId, startDate, endDate, since };
        if (row === null) em.create(FloatingIpAllocationEntity, { id, ...columns });
        else em.assign(row, columns);
        return;
      }
      case 'FloatingIp.BookingMoved':
        if (row !== null) em.assign(row, { startDate: event.data.startDate, endDate: event.data.endDate, since });
        return;
      case 'FloatingIp.BookingReleased':
        if (row !== null) em.remove(row);
        return;
      default: {
        const _never: never = event;
        return _never;
      }
    }
  },
};
