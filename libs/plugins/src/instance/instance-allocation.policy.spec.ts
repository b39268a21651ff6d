import { describe, expect, it } from 'vitest';
import { DEFAULT_ALLOCATION_RATIOS } from '#domain/host/host.types.js';
import { isDomainError } from '#domain/shared/errors.js';
import { EMPTY_QUERY, parseQuery } from '../query/blazar-query.js';
import { at, booking, host, slotBooking } from '../testing/host-snapshots.js';
import { type InstanceAllocationRequest, allocateInstances, notEnoughInstanceSlotsError } from './instance-allocation.policy.js';

/** Hosts are 8 vCPU / 4096 MB / 100 GB; the lease under request is [100, 200). */
const SIZE = { vcpus: 2, memoryMb: 1024, diskGb: 10 };
const slots = (count: number, size = SIZE) => ({ count, ...size });

const request = (overrides: Partial<InstanceAllocationRequest> = {}): InstanceAllocationRequest => ({
  amount: 1,
  demand: SIZE,
  affinity: null,
  query: EMPTY_QUERY,
  window: { start: at(100), end: at(200) },
  cleaningTimeMs: 0,
  ratios: DEFAULT_ALLOCATION_RATIOS,
  ...overrides,
});

const allocated = (...pairs: [string, number][]) => ({ ok: true, allocations: pairs.map(([hostId, count]) => ({ hostId, count })) });

describe('allocateInstances: capacity of one host', () => {
  it.each([
    { name: '4 instances of 2 vCPU fill an 8 vCPU host', amount: 4, ok: true },
    { name: 'a fifth does not fit', amount: 5, ok: false },
  ])('$name', ({ amount, ok }) => {
    const result = allocateInstances(request({ amount }), [host('1')]);
    expect(result.ok).toBe(ok);
    if (ok) expect(result).toEqual(allocated(['1', amount]));
  });

  it('memory is the tight resource when it runs out first', () => {
    expect(allocateInstances(request({ amount: 2, demand: { vcpus: 1, memoryMb: 2048, diskGb: 0 } }), [host('1')])).toEqual(
      allocated(['1', 2]),
    );
    expect(allocateInstances(request({ amount: 3, demand: { vcpus: 1, memoryMb: 2048, diskGb: 0 } }), [host('1')]).ok).toBe(false);
  });

  it('disk is the tight resource when it runs out first', () => {
    expect(allocateInstances(request({ amount: 3, demand: { vcpus: 1, memoryMb: 1, diskGb: 34 } }), [host('1')]).ok).toBe(false);
    expect(allocateInstances(request({ amount: 2, demand: { vcpus: 1, memoryMb: 1, diskGb: 50 } }), [host('1')])).toEqual(
      allocated(['1', 2]),
    );
  });

  it('allocation ratios multiply the host totals (cpu 2.0 doubles the vCPUs)', () => {
    const ratios = { cpu: 2, ram: 1, disk: 1 };
    expect(allocateInstances(request({ amount: 8, demand: { vcpus: 2, memoryMb: 512, diskGb: 0 }, ratios }), [host('1')])).toEqual(
      allocated(['1', 8]),
    );
    expect(allocateInstances(request({ amount: 9, demand: { vcpus: 2, memoryMb: 512, diskGb: 0 }, ratios }), [host('1')]).ok).toBe(false);
  });

  it('a host too small for even one instance does not match at all', () => {
    const result = allocateInstances(request({ demand: { vcpus: 16, memoryMb: 1, diskGb: 0 } }), [host('1')]);
    expect(result).toEqual({ ok: false, requested: 1, matching: 0, available: 0, affinity: null, reason: 'shortage' });
  });
});

describe('allocateInstances: what else is on the host', () => {
  it('slots used elsewhere in time do not count; overlapping ones do, at their peak', () => {
    const bookings = [slotBooking('a', 0, 100, slots(4)), slotBooking('b', 200, 300, slots(4)), slotBooking('c', 150, 160, slots(1))];
    expect(allocateInstances(request({ amount: 3 }), [host('1', { bookings })])).toEqual(allocated(['1', 3]));
    expect(allocateInstances(request({ amount: 4 }), [host('1', { bookings })]).ok).toBe(false);
  });

  it('two bookings that never overlap each other leave room for the larger of the two', () => {
    const bookings = [slotBooking('a', 100, 150, slots(2)), slotBooking('b', 150, 200, slots(3))];
    expect(allocateInstances(request({ amount: 1 }), [host('1', { bookings })])).toEqual(allocated(['1', 1]));
    expect(allocateInstances(request({ amount: 2 }), [host('1', { bookings })]).ok).toBe(false);
  });

  it('a whole-host booking in the window (or within the cleaning time) leaves no slot', () => {
    expect(allocateInstances(request(), [host('1', { bookings: [booking('h', 150, 160)] })]).ok).toBe(false);
    expect(allocateInstances(request(), [host('1', { bookings: [booking('h', 50, 100)] })])).toEqual(allocated(['1', 1]));
    expect(allocateInstances(request({ cleaningTimeMs: at(30) }), [host('1', { bookings: [booking('h', 50, 100)] })]).ok).toBe(false);
  });

  it('the cleaning time does not separate slots from slots', () => {
    const bookings = [slotBooking('a', 50, 100, slots(4))];
    expect(allocateInstances(request({ amount: 4, cleaningTimeMs: at(30) }), [host('1', { bookings })])).toEqual(allocated(['1', 4]));
  });

  it('not reservable hosts and hosts failing the properties are skipped', () => {
    const hosts = [
      host('1', { columns: { reservable: false } }),
      host('2', { capabilities: { gpu: 'false' } }),
      host('3', { capabilities: { gpu: 'true' } }),
    ];
    expect(allocateInstances(request({ query: parseQuery('["==", "$gpu", "true"]') }), hosts)).toEqual(allocated(['3', 1]));
  });
});

describe('allocateInstances: affinity', () => {
  const three = [host('1'), host('2'), host('3')];

  it('true puts every instance on one host', () => {
    expect(allocateInstances(request({ amount: 4, affinity: true }), three)).toEqual(allocated(['1', 4]));
  });

  it('true fails when no single host has room for all, even if together they do', () => {
    const result = allocateInstances(request({ amount: 5, affinity: true }), three);
    expect(result).toEqual({ ok: false, requested: 5, matching: 3, available: 4, affinity: true, reason: 'shortage' });
  });

  it('false puts each instance on its own host', () => {
    expect(allocateInstances(request({ amount: 3, affinity: false }), three)).toEqual(allocated(['1', 1], ['2', 1], ['3', 1]));
    expect(allocateInstances(request({ amount: 4, affinity: false }), three)).toMatchObject({ ok: false, available: 3 });
  });

  it('null packs onto the fewest hosts, preferring hosts that already carry slots', () => {
    const hosts = [host('1'), host('2', { bookings: [slotBooking('x', 100, 200, slots(2))] }), host('3')];
    expect(allocateInstances(request({ amount: 3 }), hosts)).toEqual(allocated(['1', 1], ['2', 2]));
  });
});

describe('allocateInstances: on update', () => {
  it('the reservation own slots do not count against it and are kept', () => {
    const hosts = [host('1'), host('2', { bookings: [slotBooking('me', 100, 200, slots(4))] })];
    const current = [{ hostId: '2', count: 4 }];
    expect(allocateInstances(request({ amount: 4, reservationId: 'me', current }), hosts)).toEqual(allocated(['2', 4]));
    expect(allocateInstances(request({ amount: 5, reservationId: 'me', current }), hosts)).toEqual(allocated(['1', 1], ['2', 4]));
  });

  it('a started reservation keeps every current slot, and fails when they no longer fit', () => {
    const hosts = [host('1', { bookings: [slotBooking('me', 100, 200, slots(2)), slotBooking('other', 250, 300, slots(4))] }), host('2')];
    const current = [{ hostId: '1', count: 2 }];
    expect(allocateInstances(request({ amount: 3, reservationId: 'me', current, keepAll: true }), hosts)).toEqual(allocated(['1', 3]));
    const longer = request({ amount: 2, window: { start: at(100), end: at(260) }, reservationId: 'me', current, keepAll: true });
    expect(allocateInstances(longer, hosts)).toMatchObject({ ok: false, reason: 'current_slots' });
  });

  it('a started anti-affinity reservation keeps its hosts and adds new ones', () => {
    const hosts = [host('1'), host('2', { bookings: [slotBooking('me', 100, 200, slots(1))] }), host('3')];
    const current = [{ hostId: '2', count: 1 }];
    expect(allocateInstances(request({ amount: 2, affinity: false, reservationId: 'me', current, keepAll: true }), hosts)).toEqual(
      allocated(['1', 1], ['2', 1]),
    );
  });

  it('a started affinity reservation grows only on its own host', () => {
    const hosts = [host('1'), host('2', { bookings: [slotBooking('me', 100, 200, slots(3)), slotBooking('x', 100, 200, slots(1))] })];
    const current = [{ hostId: '2', count: 3 }];
    expect(allocateInstances(request({ amount: 4, affinity: true, reservationId: 'me', current, keepAll: true }), hosts)).toEqual({
      ok: false,
      requested: 4,
      matching: 2,
      available: 3,
      affinity: true,
      reason: 'shortage',
    });
    expect(allocateInstances(request({ amount: 4, affinity: true, reservationId: 'me', current }), hosts)).toEqual(allocated(['1', 4]));
  });
});

describe('notEnoughInstanceSlotsError', () => {
  it.each([
    [{ matching: 0, available: 0, affinity: null }, 'no reservable host matches the requested properties and size'],
    [{ matching: 3, available: 4, affinity: true }, 'at most 4 such instance(s) fit on any single host (affinity requires one host)'],
    [{ matching: 3, available: 2, affinity: false }, '2 host(s) have room for one such instance (anti-affinity requires one host each)'],
    [{ matching: 3, available: 7, affinity: null }, '7 such instance(s) fit on the 3 matching host(s)'],
  ] as const)('%o -> %s', (failure, text) => {
    const error = notEnoughInstanceSlotsError({ ok: false, requested: 9, reason: 'shortage', ...failure });
    expect(isDomainError(error) && error.kind).toBe('conflict');
    expect(error.message).toBe(`Not enough hosts available: ${text} for the whole lease, 9 requested`);
  });
});
