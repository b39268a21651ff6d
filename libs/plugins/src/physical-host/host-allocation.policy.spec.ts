import { describe, expect, it } from 'vitest';
import { MINUTE_MS } from '#domain/shared/interval.js';
import { EMPTY_QUERY, parseQuery } from '../query/blazar-query.js';
import {
  type HostAllocationFailure,
  type HostAllocationRequest,
  type HostAllocationResult,
  allocateHosts,
  compareHostIds,
  notEnoughHostsError,
} from './host-allocation.policy.js';
import type { HostBookingSnapshot, HostSnapshot } from './host-snapshot.js';

import { at, booking, host, slotBooking } from '../testing/host-snapshots.js';

/** The lease under request is [100, 200). */
const SMALL = { count: 1, vcpus: 1, memoryMb: 512, diskGb: 1 };
const hosts = (...ids: string[]): HostSnapshot[] => ids.map((id) => host(id));
const busy = (id: string, ...bookings: HostBookingSnapshot[]): HostSnapshot => host(id, { bookings });

const request = (overrides: Partial<HostAllocationRequest> = {}): HostAllocationRequest => ({
  min: 1,
  max: 1,
  query: EMPTY_QUERY,
  window: { start: at(100), end: at(200) },
  cleaningTimeMs: 0,
  ...overrides,
});

const picked = (...hostIds: string[]): HostAllocationResult => ({ ok: true, hostIds });
const shortage = (matching: number, free: number, requested: number): HostAllocationResult => ({ ok: false, matching, free, requested });

interface Scenario {
  readonly name: string;
  readonly given: readonly HostSnapshot[];
  readonly when: Partial<HostAllocationRequest>;
  readonly then: HostAllocationResult;
}

const check = ({ given, when, then }: Scenario): void => {
  expect(allocateHosts(request(when), given)).toEqual(then);
};

describe('allocateHosts: how many', () => {
  it.each<Scenario>([
    { name: 'min = max = 1 of three free', given: hosts('1', '2', '3'), when: { min: 1, max: 1 }, then: picked('1') },
    { name: 'exactly max when more are free', given: hosts('1', '2', '3', '4'), when: { min: 2, max: 3 }, then: picked('1', '2', '3') },
    { name: 'partial fill: all free hosts up to max', given: hosts('1', '2', '3'), when: { min: 1, max: 5 }, then: picked('1', '2', '3') },
    { name: 'exactly min available', given: hosts('1', '2'), when: { min: 2, max: 4 }, then: picked('1', '2') },
    { name: 'one short of min', given: hosts('1', '2'), when: { min: 3, max: 3 }, then: shortage(2, 2, 3) },
    { name: 'no hosts at all', given: [], when: { min: 1, max: 1 }, then: shortage(0, 0, 1) },
    {
      name: 'matching hosts exist but too few are free',
      given: [busy('1', booking('x', 150, 160)), busy('2', booking('y', 90, 110)), host('3')],
      when: { min: 2, max: 2 },
      then: shortage(3, 1, 2),
    },
  ])('$name', check);
});

describe('allocateHosts: which hosts match', () => {
  const fleet = [
    host('1', { columns: { memory_mb: 2048 }, capabilities: { rack: 'r1' } }),
    host('2', { columns: { memory_mb: 8192 }, capabilities: { rack: 'r1' } }),
    host('3', { columns: { memory_mb: 8192 }, capabilities: { rack: 'r2' } }),
    host('4', { columns: { memory_mb: 16384 } }),
    host('5', { columns: { memory_mb: 16384, reservable: false }, capabilities: { rack: 'r1' } }),
  ];
  it.each<Scenario>([
    { name: 'no query: every reservable host', given: fleet, when: { max: 10 }, then: picked('1', '2', '3', '4') },
    {
      name: 'a column condition',
      given: fleet,
      when: { max: 10, query: parseQuery('[">=", "$memory_mb", "4096"]') },
      then: picked('2', '3', '4'),
    },
    {
      name: 'a capability condition skips hosts without it',
      given: fleet,
      when: { max: 10, query: parseQuery('["=", "$rack", "r1"]') },
      then: picked('1', '2'),
    },
    {
      name: 'both conditions',
      given: fleet,
      when: { max: 10, query: parseQuery('["and", [">=", "$memory_mb", "4096"], ["=", "$rack", "r1"]]') },
      then: picked('2'),
    },
    { name: 'nothing matches', given: fleet, when: { query: parseQuery('["=", "$rack", "r9"]') }, then: shortage(0, 0, 1) },
    {
      name: 'a non-reservable host is neither picked nor counted',
      given: fleet,
      when: { min: 2, max: 2, query: parseQuery('[">", "$memory_mb", "10000"]') },
      then: shortage(1, 1, 2),
    },
  ])('$name', check);
});

describe('allocateHosts: when a host is free (lease [100, 200))', () => {
  it.each([
    { name: 'no bookings', bookings: [], cleaning: 0, free: true },
    { name: 'booking well before', bookings: [booking('x', 0, 50)], cleaning: 0, free: true },
    { name: 'booking well after', bookings: [booking('x', 300, 400)], cleaning: 0, free: true },
    { name: 'booking ending exactly at start (back to back)', bookings: [booking('x', 50, 100)], cleaning: 0, free: true },
    { name: 'booking starting exactly at end (back to back)', bookings: [booking('x', 200, 300)], cleaning: 0, free: true },
    { name: 'both neighbours back to back', bookings: [booking('x', 50, 100), booking('y', 200, 300)], cleaning: 0, free: true },
    { name: 'booking ending 1 ms after start', bookings: [{ ...booking('x', 50, 100), end: at(100) + 1 }], cleaning: 0, free: false },
    { name: 'booking starting 1 ms before end', bookings: [{ ...booking('x', 200, 300), start: at(200) - 1 }], cleaning: 0, free: false },
    { name: 'booking inside the lease', bookings: [booking('x', 120, 130)], cleaning: 0, free: false },
    { name: 'booking covering the lease', bookings: [booking('x', 0, 500)], cleaning: 0, free: false },
    { name: 'identical booking', bookings: [booking('x', 100, 200)], cleaning: 0, free: false },
    { name: 'cleaning: back to back before now conflicts', bookings: [booking('x', 50, 100)], cleaning: 30, free: false },
    { name: 'cleaning: back to back after now conflicts', bookings: [booking('x', 200, 300)], cleaning: 30, free: false },
    { name: 'cleaning: gap before exactly the cleaning time', bookings: [booking('x', 20, 70)], cleaning: 30, free: true },
    { name: 'cleaning: gap after exactly the cleaning time', bookings: [booking('x', 230, 300)], cleaning: 30, free: true },
    { name: 'cleaning: gap before one minute short', bookings: [booking('x', 20, 71)], cleaning: 30, free: false },
    { name: 'cleaning: gap after one minute short', bookings: [booking('x', 229, 300)], cleaning: 30, free: false },
    {
      name: 'a long calendar with a gap for the lease',
      bookings: [
        ...Array.from({ length: 50 }, (_, i) => booking(`a${i}`, i, i + 1)),
        ...Array.from({ length: 50 }, (_, i) => booking(`b${i}`, 200 + i, 201 + i)),
      ],
      cleaning: 0,
      free: true,
    },
    {
      name: 'a long calendar with one booking in the lease',
      bookings: [...Array.from({ length: 50 }, (_, i) => booking(`a${i}`, i, i + 1)), booking('hit', 199, 200), booking('after', 250, 260)],
      cleaning: 0,
      free: false,
    },
    { name: 'instance slots inside the lease', bookings: [slotBooking('s', 120, 130, SMALL)], cleaning: 0, free: false },
    { name: 'instance slots back to back before', bookings: [slotBooking('s', 50, 100, SMALL)], cleaning: 0, free: true },
    { name: 'instance slots back to back before, with cleaning', bookings: [slotBooking('s', 50, 100, SMALL)], cleaning: 30, free: false },
    {
      name: 'a long slot booking that started long before (found through the longest booking)',
      bookings: [slotBooking('long', 0, 150, SMALL), ...Array.from({ length: 20 }, (_, i) => slotBooking(`s${i}`, 10 + i, 11 + i, SMALL))],
      cleaning: 0,
      free: false,
    },
    {
      name: 'overlapping slot bookings all ended before the lease',
      bookings: [slotBooking('a', 0, 90, SMALL), slotBooking('b', 10, 95, SMALL), slotBooking('c', 20, 100, SMALL)],
      cleaning: 0,
      free: true,
    },
  ])('$name -> free: $free', ({ bookings, cleaning, free }) => {
    const result = allocateHosts(request({ cleaningTimeMs: cleaning * MINUTE_MS }), [busy('1', ...bookings)]);
    expect(result).toEqual(free ? picked('1') : shortage(1, 0, 1));
  });
});

describe('allocateHosts: on update, the reservation own bookings', () => {
  const mine = booking('r1', 100, 200);
  it.each<Scenario>([
    { name: 'do not make its host busy', given: [busy('1', mine)], when: { reservationId: 'r1' }, then: picked('1') },
    { name: 'still count without a reservation id', given: [busy('1', mine)], when: {}, then: shortage(1, 0, 1) },
    { name: 'are not confused with another reservation', given: [busy('1', mine)], when: { reservationId: 'r2' }, then: shortage(1, 0, 1) },
    {
      name: 'do not hide another booking in the window',
      given: [busy('1', booking('r1', 90, 150), booking('other', 180, 220))],
      when: { reservationId: 'r1' },
      then: shortage(1, 0, 1),
    },
    {
      name: 'are ignored within the cleaning margin too',
      given: [busy('1', booking('r1', 50, 100), booking('r1', 200, 210))],
      when: { reservationId: 'r1', cleaningTimeMs: at(30) },
      then: picked('1'),
    },
  ])('$name', check);
});

describe('allocateHosts: order', () => {
  it.each<Scenario>([
    {
      name: 'numeric id ascending, not text order',
      given: hosts('10', '9', '2', '100'),
      when: { max: 4 },
      then: picked('2', '9', '10', '100'),
    },
    { name: 'independent of the input order', given: hosts('3', '1', '2'), when: { max: 2 }, then: picked('1', '2') },
    { name: 'numeric ids before other ids', given: hosts('b', '20', 'a', '3'), when: { max: 4 }, then: picked('3', '20', 'a', 'b') },
    {
      name: 'kept hosts first, in the given order',
      given: hosts('1', '2', '3', '4'),
      when: { max: 2, keepHostIds: ['3', '1'] },
      then: picked('3', '1'),
    },
    {
      name: 'kept hosts, then the others by id',
      given: hosts('1', '2', '3', '4'),
      when: { max: 3, keepHostIds: ['4'] },
      then: picked('4', '1', '2'),
    },
    {
      name: 'a kept host no longer free is replaced',
      given: [host('1'), busy('2', booking('other', 150, 160)), host('3')],
      when: { max: 2, reservationId: 'r1', keepHostIds: ['2', '3'] },
      then: picked('3', '1'),
    },
    {
      name: 'a kept host no longer matching is replaced',
      given: [
        host('1'),
        host('2', { capabilities: { rack: 'r2' } }),
        host('3', { capabilities: { rack: 'r1' } }),
        host('4', { capabilities: { rack: 'r1' } }),
      ],
      when: { max: 2, query: parseQuery('["=", "$rack", "r1"]'), keepHostIds: ['2', '4'] },
      then: picked('4', '3'),
    },
    {
      name: 'unknown and repeated kept ids are harmless',
      given: hosts('1', '2', '3'),
      when: { max: 3, keepHostIds: ['9', '2', '2'] },
      then: picked('2', '1', '3'),
    },
    {
      name: 'kept hosts still free through own bookings',
      given: [host('1'), busy('5', booking('r1', 100, 200)), busy('6', booking('r1', 100, 200))],
      when: { min: 2, max: 2, reservationId: 'r1', keepHostIds: ['6', '5'] },
      then: picked('6', '5'),
    },
  ])('$name', check);
});

describe('notEnoughHostsError', () => {
  it.each([
    {
      failure: { ok: false, matching: 2, free: 1, requested: 3 },
      message:
        'Not enough hosts available: 2 reservable hosts match the requested properties and 1 of them is free for the whole lease (cleaning time included), 3 requested (min)',
    },
    {
      failure: { ok: false, matching: 1, free: 0, requested: 1 },
      message:
        'Not enough hosts available: 1 reservable host matches the requested properties and 0 of them are free for the whole lease (cleaning time included), 1 requested (min)',
    },
    {
      failure: { ok: false, matching: 0, free: 0, requested: 2 },
      message: 'Not enough hosts available: no reservable host matches the requested properties, 2 requested (min)',
    },
  ] satisfies { failure: HostAllocationFailure; message: string }[])('$message', ({ failure, message }) => {
    const error = notEnoughHostsError(failure);
    expect(error.code).toBe('NOT_ENOUGH_HOSTS');
    expect(error.kind).toBe('conflict');
    expect(error.message).toBe(message);
  });
});

describe('host id order', () => {
  it('puts decimal ids first by value (leading zeros, any length), equal values by text, then other ids by text', () => {
    const ids = ['b', '10', '0', '9', '009', '12345678901234567890', '2', 'a1', '1a', '', '00', '12345678901234567891'];
    expect([...ids].sort(compareHostIds)).toEqual([
      '0',
      '00',
      '2',
      '009',
      '9',
      '10',
      '12345678901234567890',
      '12345678901234567891',
      '',
      '1a',
      'a1',
      'b',
    ]);
  });
});
