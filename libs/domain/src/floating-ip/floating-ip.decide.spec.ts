import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { toMs } from '../shared/interval.js';
import { DeciderSpecification } from '../shared/specification.js';
import type {
  BookFloatingIp,
  MoveFloatingIpBooking,
  RegisterFloatingIp,
  ReleaseFloatingIpBooking,
  UnregisterFloatingIp,
} from './floating-ip.commands.js';
import { floatingIpDecider } from './floating-ip.decide.js';
import type {
  FloatingIpBooked,
  FloatingIpBookingMoved,
  FloatingIpBookingReleased,
  FloatingIpEvent,
  FloatingIpRegistered,
  FloatingIpUnregistered,
} from './floating-ip.events.js';
import type { FloatingIpState } from './floating-ip.state.js';
import { floatingIpStream } from './floating-ip.stream.js';
import type { FloatingIpInfo } from './floating-ip.types.js';

// ---------------------------------------------------------------------------------------------
// Fixtures: floating IP fip-1 (172.24.4.10 on network net-ext), times on 2030-01-01
// ---------------------------------------------------------------------------------------------

const FIP_ID = 'fip-1';
const LEASE_ID = 'lease-1';
const REGISTERED_AT = '2029-12-31T12:00:00.000Z';

const pad = (n: number): string => String(n).padStart(2, '0');
/** '2030-01-01T<hh>:<mm>:00.000Z' */
const at = (hours: number, minutes = 0): string => `2030-01-01T${pad(hours)}:${pad(minutes)}:00.000Z`;
const NOW = at(9);

const info = (overrides: Partial<FloatingIpInfo> = {}): FloatingIpInfo => ({
  floatingIpId: FIP_ID,
  networkId: 'net-ext',
  subnetId: 'subnet-ext',
  address: '172.24.4.10',
  ...overrides,
});

const registered = (overrides: Partial<FloatingIpInfo> = {}): FloatingIpRegistered => ({
  type: 'FloatingIp.Registered',
  data: { ...info(overrides), registeredAt: REGISTERED_AT },
});

const unregistered = (unregisteredAt = NOW): FloatingIpUnregistered => ({
  type: 'FloatingIp.Unregistered',
  data: { floatingIpId: FIP_ID, networkId: 'net-ext', address: '172.24.4.10', unregisteredAt },
});

const booked = (reservationId: string, startDate: string, endDate: string, leaseId = LEASE_ID): FloatingIpBooked => ({
  type: 'FloatingIp.Booked',
  data: { floatingIpId: FIP_ID, reservationId, leaseId, startDate, endDate },
});

const bookingMoved = (reservationId: string, startDate: string, endDate: string): FloatingIpBookingMoved => ({
  type: 'FloatingIp.BookingMoved',
  data: { floatingIpId: FIP_ID, reservationId, startDate, endDate },
});

const bookingReleased = (reservationId: string, leaseId = LEASE_ID): FloatingIpBookingReleased => ({
  type: 'FloatingIp.BookingReleased',
  data: { floatingIpId: FIP_ID, reservationId, leaseId },
});

const register = (overrides: Partial<FloatingIpInfo> = {}): RegisterFloatingIp => ({
  type: 'RegisterFloatingIp',
  data: { ...info(overrides), now: REGISTERED_AT },
});

const unregister = (now = NOW): UnregisterFloatingIp => ({ type: 'UnregisterFloatingIp', data: { now } });

const book = (reservationId: string, startDate: string, endDate: string, cleaningTimeMinutes = 0, leaseId = LEASE_ID): BookFloatingIp => ({
  type: 'BookFloatingIp',
  data: { reservationId, leaseId, startDate, endDate, cleaningTimeMinutes },
});

const move = (reservationId: string, startDate: string, endDate: string, cleaningTimeMinutes = 0): MoveFloatingIpBooking => ({
  type: 'MoveFloatingIpBooking',
  data: { reservationId, startDate, endDate, cleaningTimeMinutes },
});

const release = (reservationId: string): ReleaseFloatingIpBooking => ({ type: 'ReleaseFloatingIpBooking', data: { reservationId } });

const given = DeciderSpecification.for(floatingIpDecider);

const fold = (events: readonly FloatingIpEvent[]): FloatingIpState => foldEvents(floatingIpDecider, events);

const bookingIdsOf = (state: FloatingIpState): string[] =>
  state.status === 'Registered' ? state.bookings.map((b) => b.reservationId) : [];

// ---------------------------------------------------------------------------------------------
// RegisterFloatingIp
// ---------------------------------------------------------------------------------------------

describe('RegisterFloatingIp', () => {
  describe('When unregistered', () => {
    it('registers the address, its network and subnet', () => {
      given([]).when(register()).then([registered()]);
    });

    it('registers an address without a subnet (standalone)', () => {
      given([])
        .when(register({ subnetId: null }))
        .then([registered({ subnetId: null })]);
    });
  });

  describe('When registered', () => {
    it('refuses to register it again', () => {
      given([registered()]).when(register()).thenThrows('FLOATING_IP_EXISTS', 'Floating IP fip-1 already exists');
    });
  });

  describe('When removed', () => {
    it('refuses to register the same stream again', () => {
      given([registered(), unregistered()]).when(register()).thenThrows('FLOATING_IP_EXISTS');
    });
  });
});

// ---------------------------------------------------------------------------------------------
// UnregisterFloatingIp
// ---------------------------------------------------------------------------------------------

describe('UnregisterFloatingIp', () => {
  describe('When unregistered', () => {
    it('refuses: the floating IP is not found', () => {
      given([]).when(unregister()).thenThrows('FLOATING_IP_NOT_FOUND', 'Floating IP unknown not found.');
    });
  });

  describe('When removed', () => {
    it('refuses: the floating IP is not found', () => {
      given([registered(), unregistered()]).when(unregister()).thenThrows('FLOATING_IP_NOT_FOUND', 'Floating IP fip-1 not found.');
    });
  });

  describe('When registered', () => {
    it('unregisters an address without bookings, naming its network and address', () => {
      given([registered()]).when(unregister()).then([unregistered()]);
    });

    it('refuses while a future booking holds it', () => {
      given([registered(), booked('res-1', at(10), at(12))])
        .when(unregister())
        .thenThrows('FLOATING_IP_RESERVED', "Can't delete floating IP fip-1. The floating IP is reserved.");
    });

    it('refuses while a current booking holds it', () => {
      given([registered(), booked('res-1', at(8), at(10))])
        .when(unregister())
        .thenThrows('FLOATING_IP_RESERVED');
    });

    it('unregisters once every booking has ended', () => {
      given([registered(), booked('res-1', at(6), at(8))])
        .when(unregister())
        .then([unregistered()]);
    });

    it('unregisters when the last booking ends exactly now', () => {
      given([registered(), booked('res-1', at(7), NOW)])
        .when(unregister())
        .then([unregistered()]);
    });

    it('unregisters once the booking was released', () => {
      given([registered(), booked('res-1', at(10), at(12)), bookingReleased('res-1')])
        .when(unregister())
        .then([unregistered()]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// BookFloatingIp
// ---------------------------------------------------------------------------------------------

describe('BookFloatingIp', () => {
  describe('When unregistered', () => {
    it('refuses: the floating IP is not found', () => {
      given([])
        .when(book('res-1', at(10), at(12)))
        .thenThrows('FLOATING_IP_NOT_FOUND');
    });
  });

  describe('When removed', () => {
    it('refuses: the floating IP is not found', () => {
      given([registered(), unregistered()])
        .when(book('res-1', at(10), at(12)))
        .thenThrows('FLOATING_IP_NOT_FOUND');
    });
  });

  describe('When registered and free', () => {
    it('books the address, dropping the cleaning time from the event', () => {
      given([registered()])
        .when(book('res-1', at(10), at(12), 30))
        .then([booked('res-1', at(10), at(12))]);
    });

    it('accepts an empty window (a lease ended in its first minute)', () => {
      given([registered()])
        .when(book('res-1', at(10), at(10)))
        .then([booked('res-1', at(10), at(10))]);
    });

    it('refuses a window whose end is before its start', () => {
      given([registered()])
        .when(book('res-1', at(12), at(10)))
        .thenThrows('INVALID_PERIOD', 'The end_date must be later than the start_date.');
    });
  });

  describe('When booked [10:00, 12:00)', () => {
    const history = (): FloatingIpEvent[] => [registered(), booked('res-1', at(10), at(12))];

    it('refuses the same reservation twice', () => {
      given(history())
        .when(book('res-1', at(14), at(16)))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED', 'Floating IP 172.24.4.10 is already booked by reservation res-1');
    });

    it('refuses the same reservation before judging its period', () => {
      given(history())
        .when(book('res-1', at(16), at(14)))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED');
    });

    it('refuses an overlapping booking', () => {
      given(history())
        .when(book('res-2', at(11), at(13)))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED', `Floating IP 172.24.4.10 is already reserved between ${at(11)} and ${at(13)}`);
    });

    it('refuses a booking inside it', () => {
      given(history())
        .when(book('res-2', at(10, 30), at(11)))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED');
    });

    it('refuses a booking containing it', () => {
      given(history())
        .when(book('res-2', at(9), at(13)))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED');
    });

    it('accepts a back-to-back booking after it without cleaning time', () => {
      given(history())
        .when(book('res-2', at(12), at(14)))
        .then([booked('res-2', at(12), at(14))]);
    });

    it('accepts a back-to-back booking before it without cleaning time', () => {
      given(history())
        .when(book('res-2', at(8), at(10)))
        .then([booked('res-2', at(8), at(10))]);
    });

    it('refuses a back-to-back booking after it within the cleaning time', () => {
      given(history())
        .when(book('res-2', at(12), at(14), 30))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED');
    });

    it('refuses a back-to-back booking before it within the cleaning time', () => {
      given(history())
        .when(book('res-2', at(8), at(10), 30))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED');
    });

    it('refuses a gap one minute short of the cleaning time', () => {
      given(history())
        .when(book('res-2', at(12, 29), at(14), 30))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED');
    });

    it('accepts a gap of exactly the cleaning time after it', () => {
      given(history())
        .when(book('res-2', at(12, 30), at(14), 30))
        .then([booked('res-2', at(12, 30), at(14))]);
    });

    it('accepts a gap of exactly the cleaning time before it', () => {
      given(history())
        .when(book('res-2', at(8), at(9, 30), 30))
        .then([booked('res-2', at(8), at(9, 30))]);
    });

    it('accepts another lease once the booking was released', () => {
      given([...history(), bookingReleased('res-1')])
        .when(book('res-2', at(10), at(12), 0, 'lease-2'))
        .then([booked('res-2', at(10), at(12), 'lease-2')]);
    });
  });

  describe('When booked several times', () => {
    const history = (): FloatingIpEvent[] => [
      registered(),
      booked('res-1', at(8), at(9)),
      booked('res-2', at(10), at(11)),
      booked('res-3', at(13), at(14)),
    ];

    it('accepts a booking exactly filling a gap', () => {
      given(history())
        .when(book('res-4', at(11), at(13)))
        .then([booked('res-4', at(11), at(13))]);
    });

    it('refuses a booking spanning a gap and the next booking', () => {
      given(history())
        .when(book('res-4', at(11), at(13, 1)))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED');
    });

    it('refuses a booking overlapping the last booking only', () => {
      given(history())
        .when(book('res-4', at(13, 59), at(15)))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED');
    });
  });
});

// ---------------------------------------------------------------------------------------------
// MoveFloatingIpBooking
// ---------------------------------------------------------------------------------------------

describe('MoveFloatingIpBooking', () => {
  describe('When unregistered', () => {
    it('refuses: the floating IP is not found', () => {
      given([])
        .when(move('res-1', at(10), at(12)))
        .thenThrows('FLOATING_IP_NOT_FOUND');
    });
  });

  describe('When removed', () => {
    it('refuses: the floating IP is not found', () => {
      given([registered(), booked('res-1', at(5), at(6)), unregistered()])
        .when(move('res-1', at(10), at(12)))
        .thenThrows('FLOATING_IP_NOT_FOUND');
    });
  });

  describe('When booked [10:00, 12:00) and [14:00, 16:00)', () => {
    const history = (): FloatingIpEvent[] => [registered(), booked('res-1', at(10), at(12)), booked('res-2', at(14), at(16))];

    it('moves a booking to a free window', () => {
      given(history())
        .when(move('res-1', at(17), at(19)))
        .then([bookingMoved('res-1', at(17), at(19))]);
    });

    it('refuses an unknown reservation', () => {
      given(history())
        .when(move('res-9', at(17), at(19)))
        .thenThrows('BOOKING_NOT_FOUND', 'Floating IP 172.24.4.10 has no booking for reservation res-9');
    });

    it('refuses a released reservation', () => {
      given([...history(), bookingReleased('res-1')])
        .when(move('res-1', at(17), at(19)))
        .thenThrows('BOOKING_NOT_FOUND');
    });

    it('does nothing when the dates are unchanged', () => {
      given(history())
        .when(move('res-1', at(10), at(12)))
        .thenNothing();
    });

    it('does nothing when the dates are unchanged, even if the cleaning time would now conflict', () => {
      given([registered(), booked('res-1', at(10), at(12)), booked('res-2', at(12), at(14))])
        .when(move('res-1', at(10), at(12), 30))
        .thenNothing();
    });

    it('refuses to move onto another booking', () => {
      given(history())
        .when(move('res-1', at(13), at(15)))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED', 'is already reserved between');
    });

    it('refuses to move over another booking entirely', () => {
      given(history())
        .when(move('res-1', at(9), at(17)))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED');
    });

    it('may overlap its own old window', () => {
      given(history())
        .when(move('res-1', at(11), at(14)))
        .then([bookingMoved('res-1', at(11), at(14))]);
    });

    it('refuses when the cleaning time around the new dates reaches another booking', () => {
      given(history())
        .when(move('res-1', at(10), at(14), 30))
        .thenThrows('FLOATING_IP_ALREADY_BOOKED');
    });

    it('accepts a gap of exactly the cleaning time', () => {
      given(history())
        .when(move('res-1', at(10), at(13, 30), 30))
        .then([bookingMoved('res-1', at(10), at(13, 30))]);
    });

    it('accepts an empty window', () => {
      given(history())
        .when(move('res-1', at(10), at(10)))
        .then([bookingMoved('res-1', at(10), at(10))]);
    });

    it('refuses an end before the start', () => {
      given(history())
        .when(move('res-1', at(12), at(11)))
        .thenThrows('INVALID_PERIOD');
    });
  });
});

// ---------------------------------------------------------------------------------------------
// ReleaseFloatingIpBooking
// ---------------------------------------------------------------------------------------------

describe('ReleaseFloatingIpBooking', () => {
  describe('When unregistered', () => {
    it('refuses: the floating IP is not found', () => {
      given([]).when(release('res-1')).thenThrows('FLOATING_IP_NOT_FOUND');
    });
  });

  describe('When removed', () => {
    it('refuses: the floating IP is not found', () => {
      given([registered(), unregistered()]).when(release('res-1')).thenThrows('FLOATING_IP_NOT_FOUND');
    });
  });

  describe('When booked', () => {
    it('releases the booking, naming its lease', () => {
      given([registered(), booked('res-1', at(10), at(12), 'lease-7')])
        .when(release('res-1'))
        .then([bookingReleased('res-1', 'lease-7')]);
    });

    it('does nothing for an unknown reservation', () => {
      given([registered(), booked('res-1', at(10), at(12))])
        .when(release('res-9'))
        .thenNothing();
    });

    it('does nothing for a booking already released', () => {
      given([registered(), booked('res-1', at(10), at(12)), bookingReleased('res-1')])
        .when(release('res-1'))
        .thenNothing();
    });
  });
});

// ---------------------------------------------------------------------------------------------
// evolve
// ---------------------------------------------------------------------------------------------

describe('evolve', () => {
  it('starts unregistered', () => {
    expect(floatingIpDecider.initialState()).toEqual({ status: 'Unregistered' });
  });

  it('Registered -> the address without bookings', () => {
    expect(fold([registered()])).toEqual({
      status: 'Registered',
      floatingIpId: FIP_ID,
      networkId: 'net-ext',
      subnetId: 'subnet-ext',
      address: '172.24.4.10',
      bookings: [],
      maintenance: [],
      registeredAt: REGISTERED_AT,
    });
  });

  it('Booked keeps the bookings sorted by start with their bounds in ms', () => {
    const state = fold([
      registered(),
      booked('res-c', at(14), at(15)),
      booked('res-a', at(8), at(9)),
      booked('res-b', at(10), at(11), 'lease-2'),
    ]);
    expect(bookingIdsOf(state)).toEqual(['res-a', 'res-b', 'res-c']);
    expect(state.status === 'Registered' ? state.bookings[1] : undefined).toEqual({
      reservationId: 'res-b',
      leaseId: 'lease-2',
      startDate: at(10),
      endDate: at(11),
      start: toMs(at(10)),
      end: toMs(at(11)),
    });
  });

  it('BookingMoved keeps the bookings sorted and the lease', () => {
    const history = [registered(), booked('res-a', at(8), at(9)), booked('res-b', at(10), at(11)), booked('res-c', at(14), at(15))];
    expect(bookingIdsOf(fold([...history, bookingMoved('res-a', at(16), at(17))]))).toEqual(['res-b', 'res-c', 'res-a']);
    expect(bookingIdsOf(fold([...history, bookingMoved('res-c', at(6), at(7))]))).toEqual(['res-c', 'res-a', 'res-b']);
    const moved = fold([...history, bookingMoved('res-a', at(16), at(17))]);
    expect(moved.status === 'Registered' ? moved.bookings[2] : undefined).toEqual({
      reservationId: 'res-a',
      leaseId: LEASE_ID,
      startDate: at(16),
      endDate: at(17),
      start: toMs(at(16)),
      end: toMs(at(17)),
    });
  });

  it('BookingMoved of an unknown reservation changes nothing', () => {
    const before = fold([registered(), booked('res-a', at(8), at(9))]);
    expect(floatingIpDecider.evolve(before, bookingMoved('res-x', at(16), at(17)))).toEqual(before);
  });

  it('BookingReleased removes the booking', () => {
    expect(
      bookingIdsOf(fold([registered(), booked('res-a', at(8), at(9)), booked('res-b', at(10), at(11)), bookingReleased('res-a')])),
    ).toEqual(['res-b']);
  });

  it('Unregistered -> Removed, keeping only the id', () => {
    expect(fold([registered(), booked('res-a', at(5), at(6)), unregistered()])).toEqual({ status: 'Removed', floatingIpId: FIP_ID });
  });

  it('ignores other events before registration and after removal', () => {
    expect(fold([booked('res-a', at(8), at(9))])).toEqual({ status: 'Unregistered' });
    expect(fold([registered(), unregistered(), booked('res-a', at(8), at(9))])).toEqual({ status: 'Removed', floatingIpId: FIP_ID });
  });
});

describe('floatingIpStream', () => {
  it('names the stream after the floating IP', () => {
    expect(floatingIpStream(FIP_ID)).toBe('floatingip-fip-1');
  });
});

describe('Regressions', () => {
  // res-2 ends in its first minute at 12:00, where res-1 starts: both are held, neither overlaps
  const emptyAtStartOfAnother = (): FloatingIpEvent[] => [registered(), booked('res-1', at(12), at(14)), booked('res-2', at(10), at(11))];

  it('accepts moving a booking to an empty window at the start of another', () => {
    given(emptyAtStartOfAnother())
      .when(move('res-2', at(12), at(12)))
      .then([bookingMoved('res-2', at(12), at(12))]);
  });

  it('keeps refusing overlaps after an empty booking lands on the start of another', () => {
    given([...emptyAtStartOfAnother(), bookingMoved('res-2', at(12), at(12))])
      .when(book('res-3', at(13), at(15)))
      .thenThrows('FLOATING_IP_ALREADY_BOOKED');
  });

  it('keeps refusing overlaps when the other booking comes after the empty one', () => {
    given([registered(), booked('res-2', at(12), at(12)), booked('res-1', at(12), at(14))])
      .when(book('res-3', at(13), at(15)))
      .thenThrows('FLOATING_IP_ALREADY_BOOKED');
  });

  it('orders bookings with the same start by end, so their ends stay sorted', () => {
    expect(bookingIdsOf(fold([...emptyAtStartOfAnother(), bookingMoved('res-2', at(12), at(12))]))).toEqual(['res-2', 'res-1']);
    expect(bookingIdsOf(fold([registered(), booked('res-2', at(12), at(12)), booked('res-1', at(12), at(14))]))).toEqual([
      'res-2',
      'res-1',
    ]);
  });
});
