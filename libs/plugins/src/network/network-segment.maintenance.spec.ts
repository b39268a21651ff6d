import { describe, expect, it } from 'vitest';
import { foldEvents } from '#domain/index.js';
import { DeciderSpecification } from '#domain/shared/specification.js';
import { type NetworkAllocationRequest, allocateNetworkSegment, notEnoughNetworksError } from './network-allocation.policy.js';
import type {
  BookNetworkSegment,
  CancelNetworkSegmentMaintenance,
  MoveNetworkSegmentBooking,
  ScheduleNetworkSegmentMaintenance,
} from './network-segment.commands.js';
import { networkSegmentDecider } from './network-segment.decide.js';
import type {
  NetworkSegmentBooked,
  NetworkSegmentEvent,
  NetworkSegmentMaintenanceCancelled,
  NetworkSegmentMaintenanceScheduled,
  NetworkSegmentRegistered,
} from './network-segment.events.js';
import { EMPTY_QUERY } from '../query/blazar-query.js';
import { networkSnapshot } from './network-snapshot.js';

// ---------------------------------------------------------------------------------------------
// Segment vlan physnet1 1234 out for a switch upgrade on 2030-01-01 from 12:00 to 14:00; "now" is 09:00.
// ---------------------------------------------------------------------------------------------

const NETWORK_ID = 'net-1';
const pad = (n: number): string => String(n).padStart(2, '0');
const at = (hours: number, minutes = 0): string => `2030-01-01T${pad(hours)}:${pad(minutes)}:00.000Z`;
const NOW = at(9);
const WINDOW = 'mw-1';
const given = DeciderSpecification.for(networkSegmentDecider);

const registered = (networkId = NETWORK_ID, segmentId = 1234): NetworkSegmentRegistered => ({
  type: 'NetworkSegment.Registered',
  data: { networkId, networkType: 'vlan', physicalNetwork: 'physnet1', segmentId, capabilities: {}, registeredAt: at(0) },
});

const schedule = (startDate: string, endDate: string, windowId = WINDOW): ScheduleNetworkSegmentMaintenance => ({
  type: 'ScheduleNetworkSegmentMaintenance',
  data: { windowId, startDate, endDate, reason: 'switch upgrade', now: NOW },
});

const scheduled = (startDate: string, endDate: string, windowId = WINDOW, networkId = NETWORK_ID): NetworkSegmentMaintenanceScheduled => ({
  type: 'NetworkSegment.MaintenanceScheduled',
  data: { networkId, windowId, startDate, endDate, reason: 'switch upgrade', scheduledAt: NOW },
});

const cancel = (windowId = WINDOW, now = NOW): CancelNetworkSegmentMaintenance => ({
  type: 'CancelNetworkSegmentMaintenance',
  data: { windowId, now },
});

const cancelled = (windowId = WINDOW): NetworkSegmentMaintenanceCancelled => ({
  type: 'NetworkSegment.MaintenanceCancelled',
  data: { networkId: NETWORK_ID, windowId, cancelledAt: NOW },
});

const book = (reservationId: string, startDate: string, endDate: string, cleaningTimeMinutes = 0): BookNetworkSegment => ({
  type: 'BookNetworkSegment',
  data: { reservationId, leaseId: 'lease-1', startDate, endDate, propertyNames: [], cleaningTimeMinutes },
});

const booked = (reservationId: string, startDate: string, endDate: string): NetworkSegmentBooked => ({
  type: 'NetworkSegment.Booked',
  data: { networkId: NETWORK_ID, reservationId, leaseId: 'lease-1', startDate, endDate, propertyNames: [] },
});

const move = (reservationId: string, startDate: string, endDate: string): MoveNetworkSegmentBooking => ({
  type: 'MoveNetworkSegmentBooking',
  data: { reservationId, startDate, endDate, propertyNames: [], cleaningTimeMinutes: 0 },
});

const inMaintenance: NetworkSegmentEvent[] = [registered(), scheduled(at(12), at(14))];

describe('ScheduleNetworkSegmentMaintenance', () => {
  it('records the window, refuses an unknown segment, an overlap (naming it) and a past one', () => {
    given([registered()])
      .when(schedule(at(12), at(14)))
      .then([scheduled(at(12), at(14))]);
    given([])
      .when(schedule(at(12), at(14)))
      .thenThrows('NETWORK_NOT_FOUND');
    given(inMaintenance)
      .when(schedule(at(13), at(15), 'mw-2'))
      .thenThrows('MAINTENANCE_OVERLAPS', 'mw-1');
    given([registered()])
      .when(schedule(at(7), at(8)))
      .thenThrows('MAINTENANCE_IN_PAST');
  });

  it('keeps windows sorted by start, and a cancellation removes one', () => {
    const state = foldEvents(networkSegmentDecider, [...inMaintenance, scheduled(at(10), at(11), 'mw-0')]);
    expect(state.status === 'Registered' ? state.maintenance.map((w) => w.windowId) : null).toEqual(['mw-0', 'mw-1']);
    given(inMaintenance).when(cancel()).then([cancelled()]);
    given(inMaintenance)
      .when(cancel(WINDOW, at(14)))
      .thenThrows('MAINTENANCE_ENDED');
    given(inMaintenance).when(cancel('mw-9')).thenThrows('MAINTENANCE_NOT_FOUND');
  });
});

describe('a booking of the segment never gains an instant inside a window', () => {
  it('refuses a booking or a move into it, the cleaning time counted', () => {
    given(inMaintenance)
      .when(book('r1', at(11), at(13)))
      .thenThrows('NETWORK_IN_MAINTENANCE');
    given(inMaintenance)
      .when(book('r1', at(10), at(12), 30))
      .thenThrows('NETWORK_IN_MAINTENANCE');
    given([...inMaintenance, booked('r1', at(10), at(12))])
      .when(move('r1', at(10), at(13)))
      .thenThrows('NETWORK_IN_MAINTENANCE');
  });

  it('takes bookings around it, and in it once cancelled', () => {
    given(inMaintenance)
      .when(book('r1', at(14), at(16)))
      .then([booked('r1', at(14), at(16))]);
    given([...inMaintenance, cancelled()])
      .when(book('r1', at(12), at(14)))
      .then([booked('r1', at(12), at(14))]);
  });
});

describe('the segment policy and maintenance windows', () => {
  const snapshots = (events: readonly NetworkSegmentEvent[][]) =>
    events.map((history) => networkSnapshot(foldEvents(networkSegmentDecider, history))).filter((s) => s !== null);
  const request = (hours: [number, number]): NetworkAllocationRequest => ({
    query: EMPTY_QUERY,
    window: { start: Date.parse(at(hours[0])), end: Date.parse(at(hours[1])) },
    cleaningTimeMs: 0,
  });

  it('passes over a segment in maintenance for another, and names the window when none is left', () => {
    const pool = snapshots([inMaintenance, [registered('net-2', 1235)]]);
    expect(allocateNetworkSegment(request([13, 15]), pool)).toMatchObject({ ok: true, allocation: { networkId: 'net-2' } });
    const alone = snapshots([inMaintenance]);
    const failure = allocateNetworkSegment(request([13, 15]), alone);
    expect(failure).toEqual({ ok: false, matching: 1, free: 0, inMaintenance: 1, keptBusy: false });
    if (failure.ok) throw new Error('allocated');
    const error = notEnoughNetworksError(failure);
    expect(error.code).toBe('NETWORK_IN_MAINTENANCE');
    expect(error.message).toContain('1 in maintenance during part of this period');
    expect(allocateNetworkSegment(request([14, 15]), alone)).toMatchObject({ ok: true, allocation: { networkId: NETWORK_ID } });
  });
});
