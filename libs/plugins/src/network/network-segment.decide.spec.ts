import { describe, expect, it } from 'vitest';
import { foldEvents } from '#domain/index.js';
import { DeciderSpecification } from '#domain/shared/specification.js';
import type {
  BookNetworkSegment,
  MoveNetworkSegmentBooking,
  RegisterNetworkSegment,
  ReleaseNetworkSegmentBooking,
  UnregisterNetworkSegment,
  UpdateNetworkSegment,
} from './network-segment.commands.js';
import { networkSegmentDecider } from './network-segment.decide.js';
import type {
  NetworkSegmentBooked,
  NetworkSegmentBookingMoved,
  NetworkSegmentBookingReleased,
  NetworkSegmentEvent,
  NetworkSegmentRegistered,
  NetworkSegmentUnregistered,
  NetworkSegmentUpdated,
} from './network-segment.events.js';
import type { NetworkCapabilities, NetworkSegmentInfo } from './network-segment.types.js';

const NETWORK_ID = 'net-1';
const LEASE_ID = 'lease-1';
const REGISTERED_AT = '2029-12-31T12:00:00.000Z';
const pad = (n: number): string => String(n).padStart(2, '0');
/** '2030-01-01T<hh>:<mm>:00.000Z' */
const at = (hours: number, minutes = 0): string => `2030-01-01T${pad(hours)}:${pad(minutes)}:00.000Z`;
const NOW = at(9);

const VLAN: NetworkSegmentInfo = { networkId: NETWORK_ID, networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: 1234 };

const registered = (capabilities: NetworkCapabilities = {}, info: NetworkSegmentInfo = VLAN): NetworkSegmentRegistered => ({
  type: 'NetworkSegment.Registered',
  data: { ...info, capabilities, registeredAt: REGISTERED_AT },
});
const updated = (capabilities: NetworkCapabilities, removed: readonly string[] = [], updatedAt = NOW): NetworkSegmentUpdated => ({
  type: 'NetworkSegment.Updated',
  data: { networkId: NETWORK_ID, capabilities, removed, updatedAt },
});
const unregistered = (unregisteredAt = NOW): NetworkSegmentUnregistered => ({
  type: 'NetworkSegment.Unregistered',
  data: { ...VLAN, unregisteredAt },
});
const booked = (
  reservationId: string,
  startDate: string,
  endDate: string,
  propertyNames: readonly string[] = [],
): NetworkSegmentBooked => ({
  type: 'NetworkSegment.Booked',
  data: { networkId: NETWORK_ID, reservationId, leaseId: LEASE_ID, startDate, endDate, propertyNames },
});
const moved = (
  reservationId: string,
  startDate: string,
  endDate: string,
  propertyNames: readonly string[] = [],
): NetworkSegmentBookingMoved => ({
  type: 'NetworkSegment.BookingMoved',
  data: { networkId: NETWORK_ID, reservationId, leaseId: LEASE_ID, startDate, endDate, propertyNames },
});
const released = (reservationId: string): NetworkSegmentBookingReleased => ({
  type: 'NetworkSegment.BookingReleased',
  data: { networkId: NETWORK_ID, reservationId, leaseId: LEASE_ID },
});

const register = (info: NetworkSegmentInfo = VLAN, capabilities: NetworkCapabilities = {}): RegisterNetworkSegment => ({
  type: 'RegisterNetworkSegment',
  data: { ...info, capabilities, now: REGISTERED_AT },
});
const update = (set: NetworkCapabilities, unset: readonly string[] = [], now = NOW): UpdateNetworkSegment => ({
  type: 'UpdateNetworkSegment',
  data: { set, unset, now },
});
const unregister = (now = NOW): UnregisterNetworkSegment => ({ type: 'UnregisterNetworkSegment', data: { now } });
const book = (
  reservationId: string,
  startDate: string,
  endDate: string,
  cleaningTimeMinutes = 0,
  propertyNames: string[] = [],
): BookNetworkSegment => ({
  type: 'BookNetworkSegment',
  data: { reservationId, leaseId: LEASE_ID, startDate, endDate, propertyNames, cleaningTimeMinutes },
});
const move = (
  reservationId: string,
  startDate: string,
  endDate: string,
  cleaningTimeMinutes = 0,
  propertyNames: string[] = [],
): MoveNetworkSegmentBooking => ({
  type: 'MoveNetworkSegmentBooking',
  data: { reservationId, startDate, endDate, propertyNames, cleaningTimeMinutes },
});
const release = (reservationId: string): ReleaseNetworkSegmentBooking => ({
  type: 'ReleaseNetworkSegmentBooking',
  data: { reservationId },
});

const given = DeciderSpecification.for(networkSegmentDecider);

describe('registering a network segment', () => {
  it('records the segment and its extra capabilities', () => {
    given([])
      .when(register(VLAN, { switch: 's1' }))
      .then([registered({ switch: 's1' })]);
  });

  it.each([
    ['vxlan', { networkType: 'vxlan', physicalNetwork: null, segmentId: 16_777_215 }],
    ['geneve', { networkType: 'geneve', physicalNetwork: null, segmentId: 1 }],
    ['gre', { networkType: 'gre', physicalNetwork: null, segmentId: 4_294_967_295 }],
    ['flat', { networkType: 'flat', physicalNetwork: 'physnet2', segmentId: null }],
  ] as const)('takes a %s segment', (_type, segment) => {
    const info = { networkId: NETWORK_ID, ...segment };
    given([])
      .when(register(info))
      .then([registered({}, info)]);
  });

  it.each([
    [{ physicalNetwork: null }, 'MISSING_PARAMETER', 'Missing parameter physical_network (required for vlan segments)'],
    [{ segmentId: null }, 'MISSING_PARAMETER', 'Missing parameter segment_id (required for vlan segments)'],
    [{ segmentId: 0 }, 'MALFORMED_PARAMETER', 'between 1 and 4094 for vlan segments'],
    [{ segmentId: 4095 }, 'MALFORMED_PARAMETER', 'between 1 and 4094 for vlan segments'],
    [{ segmentId: 1.5 }, 'MALFORMED_PARAMETER', 'between 1 and 4094'],
    [{ networkType: 'vxlan' }, 'MALFORMED_PARAMETER', 'Malformed parameter physical_network (vxlan segments have none)'],
    [{ networkType: 'vxlan', physicalNetwork: null, segmentId: 16_777_216 }, 'MALFORMED_PARAMETER', 'between 1 and 16777215'],
    [{ networkType: 'flat' }, 'MALFORMED_PARAMETER', 'Malformed parameter segment_id (flat segments have none)'],
    [{ networkType: 'flat', physicalNetwork: null, segmentId: null }, 'MISSING_PARAMETER', 'required for flat segments'],
  ] as const)('refuses a segment Neutron could not create: %j', (changes, code, message) => {
    given([])
      .when(register({ ...VLAN, ...changes }))
      .thenThrows(code, message);
  });

  it('refuses a capability name longer than 64 characters, or empty', () => {
    given([])
      .when(register(VLAN, { ['k'.repeat(65)]: 'v' }))
      .thenThrows('EXTRA_CAPABILITY_TOO_LONG');
    given([])
      .when(register(VLAN, { '': 'v' }))
      .thenThrows('MALFORMED_PARAMETER');
  });

  it('refuses a second registration of the same stream', () => {
    given([registered()]).when(register()).thenThrows('NETWORK_EXISTS');
  });
});

describe("updating a segment's extra capabilities", () => {
  it('records only what changes: new or different values, and names it has that are unset', () => {
    given([registered({ switch: 's1', rack: 'r1' })])
      .when(update({ switch: 's1', rack: 'r2', pod: 'p1' }, ['missing', 'switch']))
      .then([updated({ rack: 'r2', pod: 'p1' }, ['switch'])]);
  });

  it('records nothing when nothing changes', () => {
    given([registered({ switch: 's1' })])
      .when(update({ switch: 's1' }, ['missing']))
      .thenNothing();
  });

  it('refuses to change or unset a capability a booking not yet ended depends on, and adding a new one is fine', () => {
    const history = [registered({ switch: 's1' }), booked('r-1', at(10), at(12), ['switch'])];
    given(history)
      .when(update({ switch: 's2' }))
      .thenThrows('CAPABILITY_IN_USE', 'switch');
    given(history)
      .when(update({}, ['switch']))
      .thenThrows('CAPABILITY_IN_USE', 'switch');
    given(history)
      .when(update({ rack: 'r1' }))
      .then([updated({ rack: 'r1' })]);
  });

  it('lets a capability change once the bookings depending on it have ended', () => {
    given([registered({ switch: 's1' }), booked('r-1', at(6), at(8), ['switch'])])
      .when(update({ switch: 's2' }))
      .then([updated({ switch: 's2' })]);
  });

  it('answers 404 for a segment not registered, or removed', () => {
    given([])
      .when(update({ a: 'b' }))
      .thenThrows('NETWORK_NOT_FOUND');
    given([registered(), unregistered()])
      .when(update({ a: 'b' }))
      .thenThrows('NETWORK_NOT_FOUND', NETWORK_ID);
  });

  it('folds sets and unsets into the state', () => {
    const state = foldEvents(networkSegmentDecider, [registered({ a: '1', b: '2' }), updated({ c: '3', a: '9' }, ['b'])]);
    expect(state).toMatchObject({ status: 'Registered', capabilities: { a: '9', c: '3' } });
  });
});

describe('unregistering a segment', () => {
  it('records its removal', () => {
    given([registered()]).when(unregister()).then([unregistered()]);
  });

  it('is refused while a booking has not ended (Chameleon: while allocated)', () => {
    given([registered(), booked('r-1', at(8), at(10))])
      .when(unregister(at(9)))
      .thenThrows('NETWORK_RESERVED', "Can't delete network net-1");
    given([registered(), booked('r-1', at(10), at(12))])
      .when(unregister(at(9)))
      .thenThrows('NETWORK_RESERVED');
  });

  it('is allowed once every booking has ended, or been released', () => {
    given([registered(), booked('r-1', at(6), at(8))])
      .when(unregister(at(9)))
      .then([unregistered(at(9))]);
    given([registered(), booked('r-1', at(10), at(12)), released('r-1')])
      .when(unregister())
      .then([unregistered()]);
  });

  it('answers 404 for one not registered, or already removed', () => {
    given([]).when(unregister()).thenThrows('NETWORK_NOT_FOUND');
    given([registered(), unregistered()]).when(unregister()).thenThrows('NETWORK_NOT_FOUND');
  });
});

describe("the segment's calendar: one holder at a time, cleaning time between", () => {
  it('books a free window', () => {
    given([registered()])
      .when(book('r-1', at(10), at(12), 0, ['switch']))
      .then([booked('r-1', at(10), at(12), ['switch'])]);
  });

  it('refuses an overlapping window', () => {
    given([registered(), booked('r-1', at(10), at(12))])
      .when(book('r-2', at(11), at(13)))
      .thenThrows('NETWORK_ALREADY_BOOKED', 'vlan physnet1 1234');
  });

  it('takes back-to-back windows, but not within the cleaning time', () => {
    given([registered(), booked('r-1', at(10), at(12))])
      .when(book('r-2', at(12), at(14)))
      .then([booked('r-2', at(12), at(14))]);
    given([registered(), booked('r-1', at(10), at(12))])
      .when(book('r-2', at(12, 30), at(14), 60))
      .thenThrows('NETWORK_ALREADY_BOOKED');
    given([registered(), booked('r-1', at(10), at(12))])
      .when(book('r-2', at(13), at(14), 60))
      .then([booked('r-2', at(13), at(14))]);
  });

  it('refuses a second booking of one reservation, an inverted window, and an unregistered segment', () => {
    given([registered(), booked('r-1', at(10), at(12))])
      .when(book('r-1', at(14), at(16)))
      .thenThrows('NETWORK_ALREADY_BOOKED', 'r-1');
    given([registered()])
      .when(book('r-1', at(12), at(10)))
      .thenThrows('INVALID_PERIOD');
    given([])
      .when(book('r-1', at(10), at(12)))
      .thenThrows('NETWORK_NOT_FOUND');
    given([registered(), unregistered()])
      .when(book('r-1', at(10), at(12)))
      .thenThrows('NETWORK_NOT_FOUND');
  });

  it('moves a booking where it stays free of the others, its own old window aside', () => {
    given([registered(), booked('r-1', at(10), at(12))])
      .when(move('r-1', at(11), at(13)))
      .then([moved('r-1', at(11), at(13))]);
    given([registered(), booked('r-1', at(10), at(12)), booked('r-2', at(13), at(14))])
      .when(move('r-1', at(11), at(13, 30)))
      .thenThrows('NETWORK_ALREADY_BOOKED');
  });

  it('moves nothing when the window and the capability names stay; a new name is a move', () => {
    given([registered(), booked('r-1', at(10), at(12))])
      .when(move('r-1', at(10), at(12)))
      .thenNothing();
    given([registered(), booked('r-1', at(10), at(12))])
      .when(move('r-1', at(10), at(12), 0, ['switch']))
      .then([moved('r-1', at(10), at(12), ['switch'])]);
  });

  it('answers 404 for a move of a booking it does not hold', () => {
    given([registered()])
      .when(move('r-9', at(10), at(12)))
      .thenThrows('BOOKING_NOT_FOUND');
  });

  it('releases a booking, and nothing for one it does not hold', () => {
    given([registered(), booked('r-1', at(10), at(12))])
      .when(release('r-1'))
      .then([released('r-1')]);
    given([registered()]).when(release('r-1')).thenNothing();
  });

  it('frees the window once released, and the moved window once moved', () => {
    given([registered(), booked('r-1', at(10), at(12)), released('r-1')])
      .when(book('r-2', at(10), at(12)))
      .then([booked('r-2', at(10), at(12))]);
    given([registered(), booked('r-1', at(10), at(12)), moved('r-1', at(14), at(16))])
      .when(book('r-2', at(10), at(12)))
      .then([booked('r-2', at(10), at(12))]);
  });

  it('keeps the bookings sorted by start in its state', () => {
    const events: NetworkSegmentEvent[] = [registered(), booked('r-2', at(14), at(16)), booked('r-1', at(10), at(12))];
    const state = foldEvents(networkSegmentDecider, events);
    expect(state.status === 'Registered' ? state.bookings.map((b) => b.reservationId) : []).toEqual(['r-1', 'r-2']);
  });
});
