import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type {
  BookFloatingIp,
  CancelFloatingIpMaintenance,
  MoveFloatingIpBooking,
  ScheduleFloatingIpMaintenance,
} from './floating-ip.commands.js';
import { floatingIpDecider } from './floating-ip.decide.js';
import type {
  FloatingIpBooked,
  FloatingIpEvent,
  FloatingIpMaintenanceCancelled,
  FloatingIpMaintenanceScheduled,
  FloatingIpRegistered,
} from './floating-ip.events.js';
import { floatingIpHoldsOf } from './floating-ip.maintenance.js';
import type { RegisteredFloatingIp } from './floating-ip.state.js';

// ---------------------------------------------------------------------------------------------
// Floating IP fip-1 (172.24.4.10) out for a router swap on 2030-01-01 from 12:00 to 14:00; "now" is 09:00.
// ---------------------------------------------------------------------------------------------

const FIP_ID = 'fip-1';
const pad = (n: number): string => String(n).padStart(2, '0');
const at = (hours: number, minutes = 0): string => `2030-01-01T${pad(hours)}:${pad(minutes)}:00.000Z`;
const NOW = at(9);
const WINDOW = 'mw-1';
const given = DeciderSpecification.for(floatingIpDecider);

const registered: FloatingIpRegistered = {
  type: 'FloatingIp.Registered',
  data: { floatingIpId: FIP_ID, networkId: 'net-ext', subnetId: null, address: '172.24.4.10', registeredAt: at(0) },
};

const schedule = (startDate: string, endDate: string, windowId = WINDOW, now = NOW): ScheduleFloatingIpMaintenance => ({
  type: 'ScheduleFloatingIpMaintenance',
  data: { windowId, startDate, endDate, reason: 'router swap', now },
});

const scheduled = (startDate: string, endDate: string, windowId = WINDOW): FloatingIpMaintenanceScheduled => ({
  type: 'FloatingIp.MaintenanceScheduled',
  data: { floatingIpId: FIP_ID, windowId, startDate, endDate, reason: 'router swap', scheduledAt: NOW },
});

const cancel = (windowId = WINDOW, now = NOW): CancelFloatingIpMaintenance => ({
  type: 'CancelFloatingIpMaintenance',
  data: { windowId, now },
});

const cancelled = (windowId = WINDOW): FloatingIpMaintenanceCancelled => ({
  type: 'FloatingIp.MaintenanceCancelled',
  data: { floatingIpId: FIP_ID, windowId, cancelledAt: NOW },
});

const book = (reservationId: string, startDate: string, endDate: string, cleaningTimeMinutes = 0): BookFloatingIp => ({
  type: 'BookFloatingIp',
  data: { reservationId, leaseId: 'lease-1', startDate, endDate, cleaningTimeMinutes },
});

const booked = (reservationId: string, startDate: string, endDate: string): FloatingIpBooked => ({
  type: 'FloatingIp.Booked',
  data: { floatingIpId: FIP_ID, reservationId, leaseId: 'lease-1', startDate, endDate },
});

const move = (reservationId: string, startDate: string, endDate: string): MoveFloatingIpBooking => ({
  type: 'MoveFloatingIpBooking',
  data: { reservationId, startDate, endDate, cleaningTimeMinutes: 0 },
});

const inMaintenance: FloatingIpEvent[] = [registered, scheduled(at(12), at(14))];

const registeredIp = (events: readonly FloatingIpEvent[]): RegisteredFloatingIp => {
  const state = foldEvents(floatingIpDecider, events);
  if (state.status !== 'Registered') throw new Error('not registered');
  return state;
};

describe('ScheduleFloatingIpMaintenance', () => {
  it('records the window, and one that has begun', () => {
    given([registered])
      .when(schedule(at(12), at(14)))
      .then([scheduled(at(12), at(14))]);
    given([registered])
      .when(schedule(at(8), at(14)))
      .then([scheduled(at(8), at(14))]);
  });

  it('refuses an unknown address', () => {
    given([])
      .when(schedule(at(12), at(14)))
      .thenThrows('FLOATING_IP_NOT_FOUND');
  });

  it.each([
    ['ends before it starts', at(14), at(12), 'INVALID_PERIOD'],
    ['ended before now', at(7), at(8), 'MAINTENANCE_IN_PAST'],
  ])('refuses a window that %s', (_, start, end, code) => {
    given([registered]).when(schedule(start, end)).thenThrows(code);
  });

  it('refuses a window overlapping another of the address, naming it, and takes an adjacent one', () => {
    given(inMaintenance)
      .when(schedule(at(13), at(15), 'mw-2'))
      .thenThrows('MAINTENANCE_OVERLAPS', 'mw-1');
    given(inMaintenance)
      .when(schedule(at(14), at(15), 'mw-2'))
      .then([scheduled(at(14), at(15), 'mw-2')]);
  });

  it('keeps windows sorted by start', () => {
    const ip = registeredIp([...inMaintenance, scheduled(at(10), at(11), 'mw-0')]);
    expect(ip.maintenance.map((w) => w.windowId)).toEqual(['mw-0', 'mw-1']);
  });
});

describe('CancelFloatingIpMaintenance', () => {
  it('removes a window to come', () => {
    given(inMaintenance).when(cancel()).then([cancelled()]);
    expect(registeredIp([...inMaintenance, cancelled()]).maintenance).toEqual([]);
  });

  it('refuses an unknown window, and one that has ended', () => {
    given(inMaintenance).when(cancel('mw-9')).thenThrows('MAINTENANCE_NOT_FOUND');
    given(inMaintenance)
      .when(cancel(WINDOW, at(14)))
      .thenThrows('MAINTENANCE_ENDED');
  });
});

describe('a booking of the address never gains an instant inside a window', () => {
  it.each([
    ['overlapping its start', at(11), at(13)],
    ['inside it', at(12, 30), at(13)],
    ['covering it', at(10), at(16)],
  ])('refuses a booking %s', (_, startDate, endDate) => {
    given(inMaintenance)
      .when(book('r1', startDate, endDate))
      .thenThrows('FLOATING_IP_IN_MAINTENANCE');
  });

  it('takes bookings that end at its start or start at its end, and counts the cleaning time', () => {
    given(inMaintenance)
      .when(book('r1', at(10), at(12)))
      .then([booked('r1', at(10), at(12))]);
    given(inMaintenance)
      .when(book('r1', at(14), at(16)))
      .then([booked('r1', at(14), at(16))]);
    given(inMaintenance)
      .when(book('r1', at(10), at(12), 30))
      .thenThrows('FLOATING_IP_IN_MAINTENANCE');
  });

  it('refuses a move into it, and lets a booking made before it shrink', () => {
    given([...inMaintenance, booked('r1', at(10), at(12))])
      .when(move('r1', at(10), at(13)))
      .thenThrows('FLOATING_IP_IN_MAINTENANCE');
    given([registered, booked('r1', at(11), at(15)), scheduled(at(12), at(14))])
      .when(move('r1', at(11), at(13)))
      .then([{ type: 'FloatingIp.BookingMoved', data: { floatingIpId: FIP_ID, reservationId: 'r1', startDate: at(11), endDate: at(13) } }]);
  });

  it('frees the time again once cancelled', () => {
    given([...inMaintenance, cancelled()])
      .when(book('r1', at(12), at(14)))
      .then([booked('r1', at(12), at(14))]);
  });
});

describe('floatingIpHoldsOf: the calendar the policy and the sweeps see', () => {
  it('is the bookings themselves without a window', () => {
    const ip = registeredIp([registered, booked('r1', at(10), at(11))]);
    expect(floatingIpHoldsOf(ip)).toBe(ip.bookings);
  });

  it('adds each window as a hold, sorted by start', () => {
    const ip = registeredIp([...inMaintenance, booked('r1', at(15), at(16)), booked('r0', at(9), at(10))]);
    expect(floatingIpHoldsOf(ip).map((b) => b.reservationId)).toEqual(['r0', 'maintenance-mw-1', 'r1']);
  });
});
