import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { toMs } from '../shared/interval.js';
import { DeciderSpecification } from '../shared/specification.js';
import { wholeHostFree } from './host.capacity.js';
import type { CancelHostMaintenance, ScheduleHostMaintenance } from './host.commands.js';
import { hostDecider } from './host.decide.js';
import type { HostEvent, HostMaintenanceCancelled, HostMaintenanceScheduled } from './host.events.js';
import { holdsOf, longestHoldMs } from './host.maintenance.js';
import type { RegisteredHost } from './host.state.js';
import {
  HOST_ID,
  at,
  bookHost,
  bookSlots,
  hostBooked,
  hostRegistered,
  moveHostBooking,
  moveSlots,
  slots,
  slotsBooked,
} from './testing/host.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Host 7 taken out for firmware on 2030-01-01 from 12:00 to 14:00; "now" is 09:00 that day.
// ---------------------------------------------------------------------------------------------

const given = DeciderSpecification.for(hostDecider);
const NOW = at(9);
const WINDOW = 'mw-1';

const schedule = (startDate: string, endDate: string, windowId = WINDOW, now = NOW): ScheduleHostMaintenance => ({
  type: 'ScheduleHostMaintenance',
  data: { windowId, startDate, endDate, reason: 'firmware', now },
});

const scheduled = (startDate: string, endDate: string, windowId = WINDOW): HostMaintenanceScheduled => ({
  type: 'Host.MaintenanceScheduled',
  data: { hostId: HOST_ID, windowId, startDate, endDate, reason: 'firmware', scheduledAt: NOW },
});

const cancel = (windowId = WINDOW, now = NOW): CancelHostMaintenance => ({ type: 'CancelHostMaintenance', data: { windowId, now } });

const cancelled = (windowId = WINDOW): HostMaintenanceCancelled => ({
  type: 'Host.MaintenanceCancelled',
  data: { hostId: HOST_ID, windowId, cancelledAt: NOW },
});

const inMaintenance: HostEvent[] = [hostRegistered(), scheduled(at(12), at(14))];

const registeredHost = (events: readonly HostEvent[]): RegisteredHost => {
  const state = foldEvents(hostDecider, events);
  if (state.status !== 'Registered') throw new Error('not registered');
  return state;
};

describe('ScheduleHostMaintenance', () => {
  it('records the window', () => {
    given([hostRegistered()])
      .when(schedule(at(12), at(14)))
      .then([scheduled(at(12), at(14))]);
  });

  it('takes a window that has begun: it holds the host from now on', () => {
    given([hostRegistered()])
      .when(schedule(at(8), at(14)))
      .then([scheduled(at(8), at(14))]);
  });

  it('refuses an unknown host', () => {
    given([])
      .when(schedule(at(12), at(14)))
      .thenThrows('HOST_NOT_FOUND');
  });

  it.each([
    ['ends before it starts', at(14), at(12), 'INVALID_PERIOD'],
    ['is empty', at(12), at(12), 'INVALID_PERIOD'],
    ['ended before now', at(7), at(8), 'MAINTENANCE_IN_PAST'],
    ['ends now', at(7), NOW, 'MAINTENANCE_IN_PAST'],
  ])('refuses a window that %s', (_, start, end, code) => {
    given([hostRegistered()]).when(schedule(start, end)).thenThrows(code);
  });

  it('refuses a window overlapping another of the host, naming it', () => {
    given(inMaintenance)
      .when(schedule(at(13), at(15), 'mw-2'))
      .thenThrows('MAINTENANCE_OVERLAPS', 'mw-1');
  });

  it('takes a window that touches another end to start', () => {
    given(inMaintenance)
      .when(schedule(at(14), at(15), 'mw-2'))
      .then([scheduled(at(14), at(15), 'mw-2')]);
  });

  it('refuses a window id the host already has', () => {
    given(inMaintenance)
      .when(schedule(at(15), at(16)))
      .thenThrows('MAINTENANCE_EXISTS');
  });

  it('keeps windows sorted by start', () => {
    const host = registeredHost([...inMaintenance, scheduled(at(10), at(11), 'mw-0')]);
    expect(host.maintenance.map((w) => w.windowId)).toEqual(['mw-0', 'mw-1']);
  });
});

describe('CancelHostMaintenance', () => {
  it('removes a window to come', () => {
    given(inMaintenance).when(cancel()).then([cancelled()]);
    expect(registeredHost([...inMaintenance, cancelled()]).maintenance).toEqual([]);
  });

  it('refuses an unknown window', () => {
    given(inMaintenance).when(cancel('mw-9')).thenThrows('MAINTENANCE_NOT_FOUND');
  });

  it('refuses a window that has ended', () => {
    given(inMaintenance)
      .when(cancel(WINDOW, at(14)))
      .thenThrows('MAINTENANCE_ENDED');
  });
});

describe('a booking never gains an instant inside a window', () => {
  it.each([
    ['overlapping its start', at(11), at(13)],
    ['inside it', at(12, 30), at(13)],
    ['covering it', at(10), at(16)],
  ])('refuses a whole-host booking %s', (_, startDate, endDate) => {
    given(inMaintenance).when(bookHost('r1', { startDate, endDate })).thenThrows('HOST_IN_MAINTENANCE');
  });

  it('refuses instance slots in it', () => {
    given(inMaintenance)
      .when(bookSlots('r1', slots(1), { startDate: at(13), endDate: at(15) }))
      .thenThrows('HOST_IN_MAINTENANCE');
  });

  it('takes bookings that end at its start or start at its end', () => {
    given(inMaintenance)
      .when(bookHost('r1', { startDate: at(10), endDate: at(12) }))
      .then([hostBooked('r1', { startDate: at(10), endDate: at(12) })]);
    given(inMaintenance)
      .when(bookHost('r1', { startDate: at(14), endDate: at(16) }))
      .then([hostBooked('r1', { startDate: at(14), endDate: at(16) })]);
  });

  it('counts the cleaning time around the booking, as against another booking', () => {
    given(inMaintenance)
      .when(bookHost('r1', { startDate: at(10), endDate: at(12), cleaningTimeMinutes: 30 }))
      .thenThrows('HOST_IN_MAINTENANCE');
  });

  it('refuses a move or an extension of a booking into it', () => {
    const booked = [...inMaintenance, hostBooked('r1', { startDate: at(10), endDate: at(12) })];
    given(booked)
      .when(moveHostBooking('r1', { startDate: at(10), endDate: at(13) }))
      .thenThrows('HOST_IN_MAINTENANCE');
  });

  it('lets a booking made before the window keep, shrink or move within what it held', () => {
    const before = [hostRegistered(), hostBooked('r1', { startDate: at(11), endDate: at(15) }), scheduled(at(12), at(14))];
    given(before)
      .when(moveHostBooking('r1', { startDate: at(11), endDate: at(13) }))
      .then([
        {
          type: 'Host.BookingMoved',
          data: { hostId: HOST_ID, reservationId: 'r1', startDate: at(11), endDate: at(13), propertyNames: [] },
        },
      ]);
    const slotsBefore = [hostRegistered(), slotsBooked('r1', slots(1), { startDate: at(11), endDate: at(15) }), scheduled(at(12), at(14))];
    given(slotsBefore)
      .when(moveSlots('r1', slots(2), { startDate: at(11), endDate: at(15) }))
      .then([
        {
          type: 'Host.SlotsMoved',
          data: { hostId: HOST_ID, reservationId: 'r1', startDate: at(11), endDate: at(15), propertyNames: [], slots: slots(2) },
        },
      ]);
  });

  it('lets a booking made before the window not grow further into it', () => {
    const before = [hostRegistered(), hostBooked('r1', { startDate: at(11), endDate: at(13) }), scheduled(at(12), at(14))];
    given(before)
      .when(moveHostBooking('r1', { startDate: at(11), endDate: at(13, 30) }))
      .thenThrows('HOST_IN_MAINTENANCE');
  });

  it('frees the time again once cancelled', () => {
    given([...inMaintenance, cancelled()])
      .when(bookHost('r1', { startDate: at(12), endDate: at(14) }))
      .then([hostBooked('r1', { startDate: at(12), endDate: at(14) })]);
  });
});

describe('holdsOf: the calendar sweeps see', () => {
  it('is the bookings themselves without a window', () => {
    const host = registeredHost([hostRegistered(), hostBooked('r1', { startDate: at(10), endDate: at(11) })]);
    expect(holdsOf(host)).toBe(host.bookings);
  });

  it('adds each window as a whole-host hold, sorted by start, and bounds the search by the longest', () => {
    const host = registeredHost([...inMaintenance, hostBooked('r1', { startDate: at(15), endDate: at(16) })]);
    expect(holdsOf(host).map((b) => [b.reservationId, b.slots])).toEqual([
      ['maintenance-mw-1', null],
      ['r1', null],
    ]);
    expect(longestHoldMs(host)).toBe(toMs(at(14)) - toMs(at(12)));
    expect(wholeHostFree(host, { start: toMs(at(13)), end: toMs(at(15)) }, 0)).toBe(false);
  });
});
