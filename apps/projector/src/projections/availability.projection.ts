import type { FloatingIpEvent, HostEvent } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { type AvailabilityIntervalRow, AvailabilityIntervalEntity } from '#read-model/index.js';
import type { Projection } from '../projection.js';

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

const intervalIdOf = (event: BookingEvent): string => {
  const resource = resourceOf(event);
  return availabilityIntervalId(event.data.reservationId, resource.kind, resource.id);
};

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
  async preload(rows, events): Promise<void> {
    await rows.table(AvailabilityIntervalEntity).load(events.map((recorded) => intervalIdOf({ type: recorded.type, data: recorded.data } as BookingEvent)));
  },
  async apply(rows, recorded: RecordedEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as BookingEvent;
    const resource = resourceOf(event);
    const id = intervalIdOf(event);
    const intervals = rows.table(AvailabilityIntervalEntity);
    const row = await intervals.get(id);
    const upsert = (columns: Omit<AvailabilityIntervalRow, 'id'>): void => intervals.put({ ...(row ?? {}), id, ...columns });
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
        if (row !== null) intervals.put({ ...row, ...span(event.data) });
        return;
      case 'Host.SlotsMoved':
        if (row !== null) intervals.put({ ...row, ...span(event.data), ...slotsOf(event.data.slots) });
        return;
      case 'Host.BookingReleased':
      case 'FloatingIp.BookingReleased':
        if (row !== null) intervals.remove(id);
        return;
      default: {
        const _never: never = event;
        return _never;
      }
    }
  },
};
