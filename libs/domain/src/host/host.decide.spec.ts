import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { toMs } from '../shared/interval.js';
import { DeciderSpecification } from '../shared/specification.js';
import type {
  BookHost,
  MoveHostBooking,
  RegisterHost,
  ReleaseHostBooking,
  SetHostReservable,
  UnregisterHost,
  UpdateHostCapabilities,
} from './host.commands.js';
import { hostDecider } from './host.decide.js';
import type {
  HostBooked,
  HostBookingMoved,
  HostBookingReleased,
  HostCapabilitiesUpdated,
  HostEvent,
  HostRegistered,
  HostReservableChanged,
  HostUnregistered,
} from './host.events.js';
import type { HostState } from './host.state.js';
import type { Capabilities, HostInfo } from './host.types.js';

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const HOST_ID = '7';
const HOSTNAME = 'compute-7';
const LEASE_ID = 'lease-1';

/** '2030-01-01T<hh>:<mm>:00.000Z' */
const at = (hours: number, minutes = 0): string =>
  `2030-01-01T${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}:00.000Z`;

const REGISTERED_AT = '2029-12-31T12:00:00.000Z';
const NOW = at(9);

const info = (): HostInfo => ({
  hypervisorHostname: HOSTNAME,
  serviceName: 'nova-compute',
  vcpus: 16,
  memoryMb: 65536,
  localGb: 500,
  cpuInfo: '{"arch": "x86_64"}',
  hypervisorType: 'QEMU',
  hypervisorVersion: 6002000,
  availabilityZone: 'nova',
});

const baseCapabilities: Capabilities = { gpu: 'true', rack: 'r1' };

const registered = (capabilities: Capabilities = baseCapabilities): HostRegistered => ({
  type: 'Host.Registered',
  data: { hostId: HOST_ID, info: info(), capabilities, registeredAt: REGISTERED_AT },
});

const booked = (reservationId: string, startDate: string, endDate: string, propertyNames: readonly string[] = []): HostBooked => ({
  type: 'Host.Booked',
  data: { hostId: HOST_ID, reservationId, leaseId: LEASE_ID, startDate, endDate, propertyNames },
});

const bookingMoved = (
  reservationId: string,
  startDate: string,
  endDate: string,
  propertyNames: readonly string[] = [],
): HostBookingMoved => ({
  type: 'Host.BookingMoved',
  data: { hostId: HOST_ID, reservationId, startDate, endDate, propertyNames },
});

const bookingReleased = (reservationId: string): HostBookingReleased => ({
  type: 'Host.BookingReleased',
  data: { hostId: HOST_ID, reservationId, leaseId: LEASE_ID },
});

const reservableChanged = (reservable: boolean, changedAt = NOW): HostReservableChanged => ({
  type: 'Host.ReservableChanged',
  data: { hostId: HOST_ID, reservable, reason: 'maintenance', changedAt },
});

const capabilitiesUpdated = (capabilities: Capabilities, updatedAt = NOW): HostCapabilitiesUpdated => ({
  type: 'Host.CapabilitiesUpdated',
  data: { hostId: HOST_ID, capabilities, updatedAt },
});

const unregistered = (unregisteredAt = NOW): HostUnregistered => ({
  type: 'Host.Unregistered',
  data: { hostId: HOST_ID, hypervisorHostname: HOSTNAME, unregisteredAt },
});

const registerHost = (capabilities: Capabilities = baseCapabilities): RegisterHost => ({
  type: 'RegisterHost',
  data: { hostId: HOST_ID, info: info(), capabilities, now: REGISTERED_AT },
});

const updateCapabilities = (capabilities: Capabilities, now = NOW): UpdateHostCapabilities => ({
  type: 'UpdateHostCapabilities',
  data: { capabilities, now },
});

const setReservable = (reservable: boolean, now = NOW): SetHostReservable => ({
  type: 'SetHostReservable',
  data: { reservable, reason: 'maintenance', now },
});

const unregisterHost = (now = NOW): UnregisterHost => ({ type: 'UnregisterHost', data: { now } });

const bookHost = (
  reservationId: string,
  startDate: string,
  endDate: string,
  cleaningTimeMinutes = 0,
  propertyNames: readonly string[] = [],
): BookHost => ({
  type: 'BookHost',
  data: { reservationId, leaseId: LEASE_ID, startDate, endDate, propertyNames, cleaningTimeMinutes },
});

const moveBooking = (
  reservationId: string,
  startDate: string,
  endDate: string,
  cleaningTimeMinutes = 0,
  propertyNames: readonly string[] = [],
): MoveHostBooking => ({
  type: 'MoveHostBooking',
  data: { reservationId, startDate, endDate, propertyNames, cleaningTimeMinutes },
});

const releaseBooking = (reservationId: string): ReleaseHostBooking => ({ type: 'ReleaseHostBooking', data: { reservationId } });

const given = DeciderSpecification.for(hostDecider);

const fold = (events: readonly HostEvent[]): HostState => foldEvents(hostDecider, events);

const bookingIdsOf = (state: HostState): string[] => (state.status === 'Registered' ? state.bookings.map((b) => b.reservationId) : []);

// ---------------------------------------------------------------------------------------------
// RegisterHost
// ---------------------------------------------------------------------------------------------

describe('RegisterHost', () => {
  describe('When unregistered', () => {
    it('registers the host with its info and capabilities', () => {
      given([]).when(registerHost()).then([registered()]);
    });

    it('accepts a capability key of exactly 64 characters', () => {
      const capabilities = { ['k'.repeat(64)]: 'v' };
      given([])
        .when(registerHost(capabilities))
        .then([registered(capabilities)]);
    });

    it('accepts a host without extra capabilities', () => {
      given([])
        .when(registerHost({}))
        .then([registered({})]);
    });

    it('refuses a capability key longer than 64 characters', () => {
      given([])
        .when(registerHost({ ['k'.repeat(65)]: 'v' }))
        .thenThrows('EXTRA_CAPABILITY_TOO_LONG', 'Extra capability key too long');
    });

    it('refuses an empty capability key', () => {
      given([])
        .when(registerHost({ '': 'v' }))
        .thenThrows('MALFORMED_PARAMETER');
    });

    it('reports invalid capability keys with kind "invalid"', () => {
      const decide = (): unknown => hostDecider.decide(registerHost({ '': 'v' }), hostDecider.initialState());
      expect(decide).toThrowError(DomainError);
      expect(decide).toThrowError(expect.objectContaining({ code: 'MALFORMED_PARAMETER', kind: 'invalid' }));
    });
  });

  describe('When registered', () => {
    it('refuses to register it again', () => {
      given([registered()]).when(registerHost()).thenThrows('HOST_ALREADY_REGISTERED', 'Host 7 is already registered');
    });
  });

  describe('When removed', () => {
    it('refuses to register the same host stream again', () => {
      given([registered(), unregistered()]).when(registerHost()).thenThrows('HOST_ALREADY_REGISTERED');
    });
  });
});

// ---------------------------------------------------------------------------------------------
// UpdateHostCapabilities
// ---------------------------------------------------------------------------------------------

describe('UpdateHostCapabilities', () => {
  describe('When unregistered', () => {
    it('refuses: the host is not found', () => {
      given([])
        .when(updateCapabilities({ gpu: 'false' }))
        .thenThrows('HOST_NOT_FOUND', 'Host unknown not found');
    });
  });

  describe('When removed', () => {
    it('refuses: the host is not found', () => {
      given([registered(), unregistered()])
        .when(updateCapabilities({ gpu: 'false' }))
        .thenThrows('HOST_NOT_FOUND', 'Host 7 not found');
    });
  });

  describe('When registered', () => {
    it('records only the keys whose value changes', () => {
      given([registered()])
        .when(updateCapabilities({ gpu: 'true', rack: 'r2' }))
        .then([capabilitiesUpdated({ rack: 'r2' })]);
    });

    it('records a new key', () => {
      given([registered()])
        .when(updateCapabilities({ zone: 'z1' }))
        .then([capabilitiesUpdated({ zone: 'z1' })]);
    });

    it('does nothing when no value changes', () => {
      given([registered()])
        .when(updateCapabilities({ gpu: 'true', rack: 'r1' }))
        .thenNothing();
    });

    it('does nothing for an empty update', () => {
      given([registered()]).when(updateCapabilities({})).thenNothing();
    });

    it('refuses a key longer than 64 characters', () => {
      given([registered()])
        .when(updateCapabilities({ ['k'.repeat(65)]: 'v' }))
        .thenThrows('EXTRA_CAPABILITY_TOO_LONG', 'Extra capability key too long');
    });

    it('refuses an empty key', () => {
      given([registered()])
        .when(updateCapabilities({ '': 'v' }))
        .thenThrows('MALFORMED_PARAMETER');
    });
  });

  describe('When registered with bookings', () => {
    it('allows a new key even when bookings exist', () => {
      given([registered(), booked('res-1', at(10), at(12), ['gpu', 'zone'])])
        .when(updateCapabilities({ zone: 'z1' }))
        .then([capabilitiesUpdated({ zone: 'z1' })]);
    });

    it('refuses to change a key that a live booking depends on', () => {
      given([registered(), booked('res-1', at(10), at(12), ['gpu'])])
        .when(updateCapabilities({ gpu: 'false' }))
        .thenThrows('CAPABILITY_IN_USE', "Can't update extra capability gpu of host 7");
    });

    it('refuses when the booking depending on the key is current (started before now)', () => {
      given([registered(), booked('res-1', at(8), at(12), ['rack'])])
        .when(updateCapabilities({ rack: 'r2' }))
        .thenThrows('CAPABILITY_IN_USE');
    });

    it('names every key in use', () => {
      given([registered(), booked('res-1', at(10), at(12), ['gpu', 'rack'])])
        .when(updateCapabilities({ gpu: 'false', rack: 'r2' }))
        .thenThrows('CAPABILITY_IN_USE', 'gpu, rack');
    });

    it('allows changing a key that is not referenced by any booking', () => {
      given([registered(), booked('res-1', at(10), at(12), ['gpu'])])
        .when(updateCapabilities({ rack: 'r2' }))
        .then([capabilitiesUpdated({ rack: 'r2' })]);
    });

    it('allows re-sending a referenced key with its current value', () => {
      given([registered(), booked('res-1', at(10), at(12), ['gpu'])])
        .when(updateCapabilities({ gpu: 'true', rack: 'r2' }))
        .then([capabilitiesUpdated({ rack: 'r2' })]);
    });

    it('allows changing a key referenced only by a booking that ended before now', () => {
      given([registered(), booked('res-1', at(6), at(8), ['gpu'])])
        .when(updateCapabilities({ gpu: 'false' }))
        .then([capabilitiesUpdated({ gpu: 'false' })]);
    });

    it('allows changing a key referenced only by a booking that ends exactly now', () => {
      given([registered(), booked('res-1', at(7), NOW, ['gpu'])])
        .when(updateCapabilities({ gpu: 'false' }))
        .then([capabilitiesUpdated({ gpu: 'false' })]);
    });

    it('ignores released bookings', () => {
      given([registered(), booked('res-1', at(10), at(12), ['gpu']), bookingReleased('res-1')])
        .when(updateCapabilities({ gpu: 'false' }))
        .then([capabilitiesUpdated({ gpu: 'false' })]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// SetHostReservable
// ---------------------------------------------------------------------------------------------

describe('SetHostReservable', () => {
  describe('When unregistered', () => {
    it('refuses: the host is not found', () => {
      given([]).when(setReservable(false)).thenThrows('HOST_NOT_FOUND');
    });
  });

  describe('When removed', () => {
    it('refuses: the host is not found', () => {
      given([registered(), unregistered()]).when(setReservable(false)).thenThrows('HOST_NOT_FOUND', 'Host 7 not found');
    });
  });

  describe('When reservable', () => {
    it('makes the host unreservable', () => {
      given([registered()])
        .when(setReservable(false))
        .then([reservableChanged(false)]);
    });

    it('does nothing when asked to make it reservable', () => {
      given([registered()]).when(setReservable(true)).thenNothing();
    });
  });

  describe('When not reservable', () => {
    it('makes the host reservable again', () => {
      given([registered(), reservableChanged(false)])
        .when(setReservable(true))
        .then([reservableChanged(true)]);
    });

    it('does nothing when asked to make it unreservable', () => {
      given([registered(), reservableChanged(false)])
        .when(setReservable(false))
        .thenNothing();
    });
  });
});

// ---------------------------------------------------------------------------------------------
// UnregisterHost
// ---------------------------------------------------------------------------------------------

describe('UnregisterHost', () => {
  describe('When unregistered', () => {
    it('refuses: the host is not found', () => {
      given([]).when(unregisterHost()).thenThrows('HOST_NOT_FOUND');
    });
  });

  describe('When removed', () => {
    it('refuses: the host is not found', () => {
      given([registered(), unregistered()]).when(unregisterHost()).thenThrows('HOST_NOT_FOUND', 'Host 7 not found');
    });
  });

  describe('When registered without bookings', () => {
    it('unregisters the host', () => {
      given([registered()]).when(unregisterHost()).then([unregistered()]);
    });
  });

  describe('When registered with bookings', () => {
    it('unregisters the host when every booking is in the past', () => {
      given([registered(), booked('res-1', at(5), at(6)), booked('res-2', at(7), at(8))])
        .when(unregisterHost())
        .then([unregistered()]);
    });

    it('unregisters the host when the last booking ends exactly now', () => {
      given([registered(), booked('res-1', at(7), NOW)])
        .when(unregisterHost())
        .then([unregistered()]);
    });

    it('refuses while a booking is current', () => {
      given([registered(), booked('res-1', at(8), at(10))])
        .when(unregisterHost())
        .thenThrows('HOST_RESERVED', "Can't delete host 7. The host is reserved.");
    });

    it('refuses while a booking is in the future', () => {
      given([registered(), booked('res-1', at(6), at(7)), booked('res-2', at(20), at(22))])
        .when(unregisterHost())
        .thenThrows('HOST_RESERVED', "Can't delete host 7. The host is reserved.");
    });

    it('unregisters the host once its future booking is released', () => {
      given([registered(), booked('res-1', at(20), at(22)), bookingReleased('res-1')])
        .when(unregisterHost())
        .then([unregistered()]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// BookHost
// ---------------------------------------------------------------------------------------------

describe('BookHost', () => {
  describe('When unregistered', () => {
    it('refuses: the host is not found', () => {
      given([])
        .when(bookHost('res-1', at(10), at(12)))
        .thenThrows('HOST_NOT_FOUND');
    });
  });

  describe('When removed', () => {
    it('refuses: the host is not found', () => {
      given([registered(), unregistered()])
        .when(bookHost('res-1', at(10), at(12)))
        .thenThrows('HOST_NOT_FOUND');
    });
  });

  describe('When not reservable', () => {
    it('refuses the booking', () => {
      given([registered(), reservableChanged(false)])
        .when(bookHost('res-1', at(10), at(12)))
        .thenThrows('HOST_NOT_RESERVABLE', 'Host 7 is not reservable');
    });
  });

  describe('When registered and free', () => {
    it('books the host, dropping the cleaning time from the event', () => {
      given([registered()])
        .when(bookHost('res-1', at(10), at(12), 30, ['gpu']))
        .then([booked('res-1', at(10), at(12), ['gpu'])]);
    });
  });

  describe('When registered with a booking [10:00, 12:00)', () => {
    const history = (): HostEvent[] => [registered(), booked('res-1', at(10), at(12))];

    it('refuses the same reservation twice', () => {
      given(history())
        .when(bookHost('res-1', at(14), at(16)))
        .thenThrows('HOST_ALREADY_BOOKED', 'already booked by reservation res-1');
    });

    it('refuses an overlapping booking', () => {
      given(history())
        .when(bookHost('res-2', at(11), at(13)))
        .thenThrows('HOST_ALREADY_BOOKED', 'Host 7 is already booked between');
    });

    it('refuses a booking that contains the existing one', () => {
      given(history())
        .when(bookHost('res-2', at(9), at(13)))
        .thenThrows('HOST_ALREADY_BOOKED');
    });

    it('refuses a booking inside the existing one', () => {
      given(history())
        .when(bookHost('res-2', at(10, 30), at(11, 30)))
        .thenThrows('HOST_ALREADY_BOOKED');
    });

    it('accepts a back-to-back booking after it with cleaning time 0', () => {
      given(history())
        .when(bookHost('res-2', at(12), at(14), 0))
        .then([booked('res-2', at(12), at(14))]);
    });

    it('accepts a back-to-back booking before it with cleaning time 0', () => {
      given(history())
        .when(bookHost('res-2', at(8), at(10), 0))
        .then([booked('res-2', at(8), at(10))]);
    });

    it('refuses a back-to-back booking after it with cleaning time 30', () => {
      given(history())
        .when(bookHost('res-2', at(12), at(14), 30))
        .thenThrows('HOST_ALREADY_BOOKED');
    });

    it('refuses a back-to-back booking before it with cleaning time 30', () => {
      given(history())
        .when(bookHost('res-2', at(8), at(10), 30))
        .thenThrows('HOST_ALREADY_BOOKED');
    });

    it('accepts a gap of exactly the cleaning time after it', () => {
      given(history())
        .when(bookHost('res-2', at(12, 30), at(14), 30))
        .then([booked('res-2', at(12, 30), at(14))]);
    });

    it('accepts a gap of exactly the cleaning time before it', () => {
      given(history())
        .when(bookHost('res-2', at(8), at(9, 30), 30))
        .then([booked('res-2', at(8), at(9, 30))]);
    });

    it('refuses a gap one minute shorter than the cleaning time', () => {
      given(history())
        .when(bookHost('res-2', at(12, 29), at(14), 30))
        .thenThrows('HOST_ALREADY_BOOKED');
    });

    it('accepts the same reservation again once its booking was released', () => {
      given([...history(), bookingReleased('res-1')])
        .when(bookHost('res-1', at(11), at(13)))
        .then([booked('res-1', at(11), at(13))]);
    });
  });

  describe('When registered with several bookings', () => {
    const history = (): HostEvent[] => [
      registered(),
      booked('res-1', at(8), at(9)),
      booked('res-2', at(10), at(11)),
      booked('res-3', at(13), at(14)),
    ];

    it('accepts a booking that exactly fills a gap', () => {
      given(history())
        .when(bookHost('res-4', at(11), at(13)))
        .then([booked('res-4', at(11), at(13))]);
    });

    it('refuses a booking spanning a gap and the next booking', () => {
      given(history())
        .when(bookHost('res-4', at(11), at(13, 1)))
        .thenThrows('HOST_ALREADY_BOOKED');
    });

    it('refuses a booking that overlaps the last booking only', () => {
      given(history())
        .when(bookHost('res-4', at(13, 59), at(15)))
        .thenThrows('HOST_ALREADY_BOOKED');
    });
  });
});

// ---------------------------------------------------------------------------------------------
// MoveHostBooking
// ---------------------------------------------------------------------------------------------

describe('MoveHostBooking', () => {
  describe('When unregistered', () => {
    it('refuses: the host is not found', () => {
      given([])
        .when(moveBooking('res-1', at(10), at(12)))
        .thenThrows('HOST_NOT_FOUND');
    });
  });

  describe('When removed', () => {
    it('refuses: the host is not found', () => {
      given([registered(), booked('res-1', at(5), at(6)), unregistered()])
        .when(moveBooking('res-1', at(10), at(12)))
        .thenThrows('HOST_NOT_FOUND');
    });
  });

  describe('When registered with bookings [10:00, 12:00) and [14:00, 16:00)', () => {
    const history = (): HostEvent[] => [registered(), booked('res-1', at(10), at(12)), booked('res-2', at(14), at(16))];

    it('moves a booking to a free slot', () => {
      given(history())
        .when(moveBooking('res-1', at(17), at(19)))
        .then([bookingMoved('res-1', at(17), at(19))]);
    });

    it('refuses to move an unknown reservation', () => {
      given(history())
        .when(moveBooking('res-9', at(17), at(19)))
        .thenThrows('BOOKING_NOT_FOUND', 'Host 7 has no booking for reservation res-9');
    });

    it('refuses to move a released reservation', () => {
      given([...history(), bookingReleased('res-1')])
        .when(moveBooking('res-1', at(17), at(19)))
        .thenThrows('BOOKING_NOT_FOUND');
    });

    it('does nothing when the dates are unchanged', () => {
      given(history())
        .when(moveBooking('res-1', at(10), at(12)))
        .thenNothing();
    });

    it('does nothing when the dates are unchanged, even if the cleaning time would now conflict', () => {
      given([registered(), booked('res-1', at(10), at(12)), booked('res-2', at(12), at(14))])
        .when(moveBooking('res-1', at(10), at(12), 30))
        .thenNothing();
    });

    it('refuses to move onto another booking', () => {
      given(history())
        .when(moveBooking('res-1', at(13), at(15)))
        .thenThrows('HOST_ALREADY_BOOKED');
    });

    it('refuses to move over another booking entirely', () => {
      given(history())
        .when(moveBooking('res-1', at(9), at(17)))
        .thenThrows('HOST_ALREADY_BOOKED');
    });

    it('may overlap its own old interval (extending the end)', () => {
      given(history())
        .when(moveBooking('res-1', at(10), at(14)))
        .then([bookingMoved('res-1', at(10), at(14))]);
    });

    it('may overlap its own old interval (shifting it)', () => {
      given(history())
        .when(moveBooking('res-1', at(11), at(13)))
        .then([bookingMoved('res-1', at(11), at(13))]);
    });

    it('may shrink to inside its own old interval', () => {
      given(history())
        .when(moveBooking('res-2', at(14, 30), at(15)))
        .then([bookingMoved('res-2', at(14, 30), at(15))]);
    });

    it('refuses when the cleaning time around the new dates reaches another booking', () => {
      given(history())
        .when(moveBooking('res-1', at(10), at(14), 30))
        .thenThrows('HOST_ALREADY_BOOKED');
    });

    it('accepts a gap of exactly the cleaning time', () => {
      given(history())
        .when(moveBooking('res-1', at(10), at(13, 30), 30))
        .then([bookingMoved('res-1', at(10), at(13, 30))]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// ReleaseHostBooking
// ---------------------------------------------------------------------------------------------

describe('ReleaseHostBooking', () => {
  describe('When unregistered', () => {
    it('refuses: the host is not found', () => {
      given([]).when(releaseBooking('res-1')).thenThrows('HOST_NOT_FOUND');
    });
  });

  describe('When removed', () => {
    it('refuses: the host is not found', () => {
      given([registered(), unregistered()]).when(releaseBooking('res-1')).thenThrows('HOST_NOT_FOUND');
    });
  });

  describe('When registered with a booking', () => {
    it('releases the booking, naming its lease', () => {
      given([registered(), booked('res-1', at(10), at(12))])
        .when(releaseBooking('res-1'))
        .then([bookingReleased('res-1')]);
    });

    it('does nothing for an unknown reservation', () => {
      given([registered(), booked('res-1', at(10), at(12))])
        .when(releaseBooking('res-9'))
        .thenNothing();
    });

    it('does nothing for a booking already released', () => {
      given([registered(), booked('res-1', at(10), at(12)), bookingReleased('res-1')])
        .when(releaseBooking('res-1'))
        .thenNothing();
    });
  });
});

// ---------------------------------------------------------------------------------------------
// evolve
// ---------------------------------------------------------------------------------------------

describe('evolve', () => {
  it('starts unregistered', () => {
    expect(hostDecider.initialState()).toEqual({ status: 'Unregistered' });
  });

  it('Registered -> a reservable host without bookings', () => {
    expect(fold([registered()])).toEqual({
      status: 'Registered',
      hostId: HOST_ID,
      info: info(),
      capabilities: baseCapabilities,
      reservable: true,
      health: { status: 'up' },
      bookings: [],
      longestBookingMs: 0,
      maintenance: [],
      registeredAt: REGISTERED_AT,
      updatedAt: null,
    });
  });

  it('CapabilitiesUpdated merges the changed keys', () => {
    const state = fold([registered(), capabilitiesUpdated({ rack: 'r2', zone: 'z1' }, at(9, 30))]);
    expect(state).toMatchObject({ capabilities: { gpu: 'true', rack: 'r2', zone: 'z1' }, updatedAt: at(9, 30) });
  });

  it('ReservableChanged sets the flag', () => {
    expect(fold([registered(), reservableChanged(false, at(9, 15))])).toMatchObject({ reservable: false, updatedAt: at(9, 15) });
    expect(fold([registered(), reservableChanged(false), reservableChanged(true)])).toMatchObject({ reservable: true });
  });

  it('Booked keeps the bookings sorted by start and records their bounds in ms', () => {
    const state = fold([
      registered(),
      booked('res-c', at(14), at(15)),
      booked('res-a', at(8), at(9)),
      booked('res-b', at(10), at(11), ['gpu']),
    ]);
    expect(bookingIdsOf(state)).toEqual(['res-a', 'res-b', 'res-c']);
    expect(state.status === 'Registered' ? state.bookings[1] : undefined).toEqual({
      reservationId: 'res-b',
      leaseId: LEASE_ID,
      startDate: at(10),
      endDate: at(11),
      start: toMs(at(10)),
      end: toMs(at(11)),
      propertyNames: ['gpu'],
      slots: null,
    });
  });

  it('BookingMoved keeps the bookings sorted by start', () => {
    const history = [registered(), booked('res-a', at(8), at(9)), booked('res-b', at(10), at(11)), booked('res-c', at(14), at(15))];
    expect(bookingIdsOf(fold([...history, bookingMoved('res-a', at(16), at(17))]))).toEqual(['res-b', 'res-c', 'res-a']);
    expect(bookingIdsOf(fold([...history, bookingMoved('res-c', at(6), at(7))]))).toEqual(['res-c', 'res-a', 'res-b']);
    expect(bookingIdsOf(fold([...history, bookingMoved('res-a', at(11), at(12))]))).toEqual(['res-b', 'res-a', 'res-c']);
  });

  it('BookingMoved updates the dates, ms bounds and property names but keeps the lease', () => {
    const state = fold([registered(), booked('res-a', at(8), at(9), ['rack']), bookingMoved('res-a', at(16), at(17), ['gpu'])]);
    expect(state.status === 'Registered' ? state.bookings : undefined).toEqual([
      {
        reservationId: 'res-a',
        leaseId: LEASE_ID,
        startDate: at(16),
        endDate: at(17),
        start: toMs(at(16)),
        end: toMs(at(17)),
        propertyNames: ['gpu'],
        slots: null,
      },
    ]);
  });

  it('BookingMoved of an unknown reservation changes nothing', () => {
    const before = fold([registered(), booked('res-a', at(8), at(9))]);
    expect(hostDecider.evolve(before, bookingMoved('res-x', at(16), at(17)))).toEqual(before);
  });

  it('BookingReleased removes the booking and keeps the rest sorted', () => {
    const state = fold([
      registered(),
      booked('res-b', at(10), at(11)),
      booked('res-a', at(8), at(9)),
      booked('res-c', at(14), at(15)),
      bookingReleased('res-b'),
    ]);
    expect(bookingIdsOf(state)).toEqual(['res-a', 'res-c']);
  });

  it('Unregistered -> Removed, keeping only the host id', () => {
    expect(fold([registered(), booked('res-a', at(5), at(6)), unregistered()])).toEqual({ status: 'Removed', hostId: HOST_ID });
  });

  it('ignores non-registration events before registration and after removal', () => {
    expect(fold([booked('res-a', at(8), at(9))])).toEqual({ status: 'Unregistered' });
    expect(fold([registered(), unregistered(), booked('res-a', at(8), at(9)), reservableChanged(false)])).toEqual({
      status: 'Removed',
      hostId: HOST_ID,
    });
  });
});

describe('Regressions', () => {
  it('treats a capability named like an Object.prototype member as new, not as in use', () => {
    given([registered(), booked('res-1', at(10), at(12), ['constructor'])])
      .when(updateCapabilities({ constructor: 'x' }))
      .then([{ type: 'Host.CapabilitiesUpdated', data: { hostId: '7', capabilities: { constructor: 'x' }, updatedAt: NOW } }]);
  });

  it('refuses a booking whose end is before its start', () => {
    given([registered()])
      .when(bookHost('res-1', at(12), at(10)))
      .thenThrows('INVALID_PERIOD');
  });

  it('accepts an empty booking (a lease ended in its first minute)', () => {
    given([registered(), booked('res-1', at(12), at(14))])
      .when(moveBooking('res-1', at(12), at(12)))
      .then([bookingMoved('res-1', at(12), at(12))]);
  });
});

describe('MoveHostBooking with new property names', () => {
  it('records the names a reservation now depends on even when its dates stay', () => {
    given([registered(), booked('res-1', at(10), at(12))])
      .when(moveBooking('res-1', at(10), at(12), 0, ['gpu']))
      .then([bookingMoved('res-1', at(10), at(12), ['gpu'])]);
  });

  it('protects a capability the reservation started asking for through an update', () => {
    given([registered({ gpu: 'true' }), booked('res-1', at(10), at(12)), bookingMoved('res-1', at(10), at(12), ['gpu'])])
      .when(updateCapabilities({ gpu: 'false' }))
      .thenThrows('CAPABILITY_IN_USE');
  });

  it('releases a capability the reservation no longer asks for', () => {
    given([registered({ gpu: 'true' }), booked('res-1', at(10), at(12), ['gpu']), bookingMoved('res-1', at(10), at(12), [])])
      .when(updateCapabilities({ gpu: 'false' }))
      .then([{ type: 'Host.CapabilitiesUpdated', data: { hostId: '7', capabilities: { gpu: 'false' }, updatedAt: NOW } }]);
  });
});
