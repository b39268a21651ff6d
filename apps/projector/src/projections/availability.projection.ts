import type { FloatingIpEvent, HostEvent } from '#domain/index.js';
import type { FoldableEvent } from '#event-store/event-store.port.js';
import { type AvailabilityIntervalRow, AvailabilityIntervalEntity } from '#read-model/index.js';
import { RESOURCE_KINDS, type AnyResourceKind, type ResourceKindName } from '#plugins/resource-kinds.js';
import type { CalendarFact } from '#plugins/resource-kind.js';
import type { BatchRows } from '../batch-rows.js';
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

export const availabilityIntervalId = (
  reservationId: string,
  resourceKind: 'host' | 'floatingip' | ResourceKindName,
  resourceId: string,
): string => `${reservationId}:${resourceKind}:${resourceId}`;

/** The booking events of the registered resource kinds (resource-kinds.ts), each with its kind. */
const KIND_BOOKINGS: ReadonlyMap<string, AnyResourceKind> = new Map(
  RESOURCE_KINDS.flatMap((kind) => kind.calendar.events.map((type) => [type, kind] as const)),
);

const kindFact = (recorded: FoldableEvent): { readonly kind: AnyResourceKind; readonly fact: CalendarFact } | null => {
  const kind = KIND_BOOKINGS.get(recorded.type);
  const fact = kind?.calendar.fact({ type: recorded.type, data: recorded.data }) ?? null;
  return kind === undefined || fact === null ? null : { kind, fact };
};

/** A booking of a registered kind's resource: booked (a whole row), moved, or released. */
const applyKindFact = (rows: BatchRows, kind: AnyResourceKind, fact: CalendarFact): void => {
  const id = availabilityIntervalId(fact.reservationId, kind.kind, fact.resourceId);
  const intervals = rows.table(AvailabilityIntervalEntity);
  const row = intervals.loaded(id);
  switch (fact.did) {
    case 'booked': {
      const { resourceId, reservationId, leaseId } = fact;
      const [startMs, endMs] = [Date.parse(fact.startDate), Date.parse(fact.endDate)];
      const noSlots = { slotCount: null, slotVcpus: null, slotMemoryMb: null, slotDiskGb: null };
      intervals.put({ id, resourceKind: kind.kind, resourceId, reservationId, leaseId, startMs, endMs, ...noSlots });
      return;
    }
    case 'moved':
      if (row !== null) intervals.put(movedRow(row, fact));
      return;
    case 'released':
      if (row !== null) intervals.remove(id);
      return;
    default: {
      const _never: never = fact;
      return _never;
    }
  }
};

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
 * lh_availability: every reservable resource's booked intervals (hosts whole or in slots, floating IPs, the registered
 * kinds' resources),
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
    ...KIND_BOOKINGS.keys(),
  ],
  async preload(rows, events): Promise<void> {
    const idOf = (recorded: FoldableEvent): string => {
      const booking = kindFact(recorded);
      if (booking === null) return intervalIdOf({ type: recorded.type, data: recorded.data } as BookingEvent);
      return availabilityIntervalId(booking.fact.reservationId, booking.kind.kind, booking.fact.resourceId);
    };
    await rows.table(AvailabilityIntervalEntity).load(events.map(idOf));
  },
  apply(rows, recorded: FoldableEvent): void {
    const booking = kindFact(recorded);
    if (booking !== null) {
      applyKindFact(rows, booking.kind, booking.fact);
      return;
    }
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
