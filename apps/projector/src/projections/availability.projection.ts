import type { FloatingIpEvent, HostEvent } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { type AvailabilityIntervalRow, AvailabilityIntervalEntity } from '#read-model/index.js';
import { type Projection, findRow } from '../projection.js';

type BookingEvent = Extract<
  HostEvent | FloatingIpEvent,
  {
    readonly type:
      | 'Host.Booked'
      | 'Host.SlotsBooked'
      | 'Host.BookingMoved'
      | 'Host.SlotsMoved'
      | 'Host.BookingReleased'
      | 'FloatingIp.Booked'
      | 'FloatingIp.BookingMoved'
      | 'FloatingIp.BookingReleased';
  }
>;

export const availabilityIntervalId = (reservationId: string, resourceKind: 'host' | 'floatingip', resourceId: string): string =>
  `${reservationId}:${resourceKind}:${resourceId}`;

const NO_SLOTS = { slotCount: null, slotVcpus: null, slotMemoryMb: null, slotDiskGb: null };

const slotsOf = (slots: { readonly count: number; readonly vcpus: number; readonly memoryMb: number; readonly diskGb: number }) => ({
  slotCount: slots.count,
  slotVcpus: slots.vcpus,
  slotMemoryMb: slots.memoryMb,
  slotDiskGb: slots.diskGb,
});

const span = (data: { readonly startDate: string; readonly endDate: string }) => ({ startMs: Date.parse(data.startDate), endMs: Date.parse(data.endDate) });

/** Where an event's booking lives: the resource's kind and id. */
const resourceOf = (event: BookingEvent): { readonly kind: 'host' | 'floatingip'; readonly id: string } =>
  'hostId' in event.data ? { kind: 'host', id: event.data.hostId } : { kind: 'floatingip', id: event.data.floatingIpId };

/**
 * lh_availability: every reservable resource's booked intervals (hosts whole or in slots, floating IPs),
 * indexed by resource and start and by resource and end, for overlap searches that read no lease.
 */
export const availabilityProjection: Projection = {
  name: 'availability',
  canHandle: [
    'Host.Booked',
    'Host.SlotsBooked',
    'Host.BookingMoved',
    'Host.SlotsMoved',
    'Host.BookingReleased',
    'FloatingIp.Booked',
    'FloatingIp.BookingMoved',
    'FloatingIp.BookingReleased',
  ],
  async apply(em, recorded: RecordedEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as BookingEvent;
    const resource = resourceOf(event);
    const id = availabilityIntervalId(event.data.reservationId, resource.kind, resource.id);
    const row = await findRow(em, AvailabilityIntervalEntity, { id });
    const upsert = (columns: Omit<AvailabilityIntervalRow, 'id'>): void => {
      if (row === null) em.create(AvailabilityIntervalEntity, { id, ...columns });
      else em.assign(row, columns);
    };
    const keys = { resourceKind: resource.kind, resourceId: resource.id, reservationId: event.data.reservationId };
    switch (event.type) {
      case 'Host.Booked':
      case 'FloatingIp.Booked':
        upsert({ ...keys, leaseId: event.data.leaseId, ...span(event.data), ...NO_SLOTS });
        return;
      case 'Host.SlotsBooked':
        upsert({ ...keys, leaseId: event.data.leaseId, ...span(event.data), ...slotsOf(event.data.slots) });
        return;
      case 'Host.BookingMoved':
      case 'FloatingIp.BookingMoved':
        if (row !== null) em.assign(row, span(event.data));
        return;
      case 'Host.SlotsMoved':
        if (row !== null) em.assign(row, { ...span(event.data), ...slotsOf(event.data.slots) });
        return;
      case 'Host.BookingReleased':
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
