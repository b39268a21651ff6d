import type { FloatingIpEvent, HostEvent } from '#domain/index.js';
import type { FoldableEvent } from '#event-store/event-store.port.js';
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

interface Slots {
  readonly count: number;
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly diskGb: number;
}

/** Where an event's booking lives: the resource's kind and id. */
const resourceOf = (event: BookingEvent): { readonly kind: 'host' | 'floatingip'; readonly id: string } =>
  'hostId' in event.data ? { kind: 'host', id: event.data.hostId } : { kind: 'floatingip', id: event.data.floatingIpId };

const intervalIdOf = (event: BookingEvent): string => {
  const resource = resourceOf(event);
  return availabilityIntervalId(event.data.reservationId, resource.kind, resource.id);
};

/** A booked interval's whole row, built directly (every column is set: nothing of an earlier row carries over). */
const bookedRow = (
  id: string,
  event: Extract<BookingEvent, { type: 'Host.Booked' | 'FloatingIp.Booked' | 'Host.SlotsBooked' }>,
  slots: Slots | null,
): AvailabilityIntervalRow => {
  const resource = resourceOf(event);
  return {
    id,
    resourceKind: resource.kind,
    resourceId: resource.id,
    reservationId: event.data.reservationId,
    leaseId: event.data.leaseId,
    startMs: Date.parse(event.data.startDate),
    endMs: Date.parse(event.data.endDate),
    slotCount: slots?.count ?? null,
    slotVcpus: slots?.vcpus ?? null,
    slotMemoryMb: slots?.memoryMb ?? null,
    slotDiskGb: slots?.diskGb ?? null,
  };
};

const movedRow = (
  row: AvailabilityIntervalRow,
  data: { readonly startDate: string; readonly endDate: string },
): AvailabilityIntervalRow => ({
  ...row,
  startMs: Date.parse(data.startDate),
  endMs: Date.parse(data.endDate),
});

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
    await rows
      .table(AvailabilityIntervalEntity)
      .load(events.map((recorded) => intervalIdOf({ type: recorded.type, data: recorded.data } as BookingEvent)));
  },
  apply(rows, recorded: FoldableEvent): void {
    const event = { type: recorded.type, data: recorded.data } as BookingEvent;
    const id = intervalIdOf(event);
    const intervals = rows.table(AvailabilityIntervalEntity);
    const row = intervals.loaded(id);
    switch (event.type) {
      case 'Host.Booked':
      case 'FloatingIp.Booked':
        intervals.put(bookedRow(id, event, null));
        return;
      case 'Host.SlotsBooked':
        intervals.put(bookedRow(id, event, event.data.slots));
        return;
      case 'Host.BookingMoved':
      case 'FloatingIp.BookingMoved':
        if (row !== null) intervals.put(movedRow(row, event.data));
        return;
      case 'Host.SlotsMoved':
        if (row !== null) {
          const { count, vcpus, memoryMb, diskGb } = event.data.slots;
          intervals.put({ ...movedRow(row, event.data), slotCount: count, slotVcpus: vcpus, slotMemoryMb: memoryMb, slotDiskGb: diskGb });
        }
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
