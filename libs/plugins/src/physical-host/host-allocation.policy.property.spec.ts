import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../query/blazar-query.js';
import { capabilityIndex } from '../query/capability-index.js';
import { at, booking, host } from '../testing/host-snapshots.js';
import {
  type HostAllocationRequest,
  type HostsInIdOrder,
  allocateHosts,
  allocateHostsInIdOrder,
  compareHostIds,
} from './host-allocation.policy.js';
import type { HostSnapshot } from './host-snapshot.js';

/** Ids that make compareHostIds work: decimals with and without leading zeros, and names. */
const hostId = fc.oneof(
  fc.integer({ min: 0, max: 40 }).map(String),
  fc.integer({ min: 0, max: 40 }).map((n) => `0${n}`),
  fc.constantFrom('a', 'b', 'compute-1', 'compute-10', 'compute-9', 'Z'),
);

/** Whole-host bookings in minutes: start-sorted and apart, as the host decider keeps them. */
const calendar = fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 80 })), { maxLength: 5 }).map((spans) => {
  const kept: [number, number][] = [];
  for (const [start, length] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = kept.at(-1);
    if (last === undefined || start >= last[1]) kept.push([start, start + length]);
  }
  return kept.map(([start, end], i) => booking(`r${i}`, start, end));
});

/** Values `==` takes as equal in different spellings (numbers), and a capability some hosts lack. */
const capabilities = fc.record(
  { gpu: fc.constantFrom('true', 'false', '1', '1.0', '01', ' 1', 'x'), rack: fc.constantFrom('r1', 'r2', '7') },
  { requiredKeys: ['gpu'] },
);

const hostsArbitrary = fc.uniqueArray(
  fc
    .record({ id: hostId, reservable: fc.boolean(), capabilities, bookings: calendar })
    .map(({ id, reservable, capabilities, bookings }) => host(id, { columns: { reservable }, capabilities, bookings })),
  { selector: (h) => h.id, maxLength: 30 },
);

const requestArbitrary = fc.record({
  min: fc.integer({ min: -1, max: 8 }),
  max: fc.integer({ min: -1, max: 10 }),
  query: fc
    .constantFrom(
      '',
      '["=", "$gpu", "true"]',
      '["!=", "$gpu", "true"]',
      '["==", "$gpu", "1"]',
      '["and", ["==", "$gpu", "1"], ["==", "$rack", "r1"]]',
      '["and", ["==", "$rack", "7.0"], [">=", "$gpu", "1"]]',
      '["and", ["==", "$gpu", "true"], ["==", "$reservable", "true"]]',
      '["==", "$rack", "absent"]',
    )
    .map(parseQuery),
  start: fc.integer({ min: 0, max: 300 }),
  length: fc.integer({ min: 0, max: 120 }),
  cleaningMinutes: fc.constantFrom(0, 5, 30),
  reservationId: fc.constantFrom(undefined, 'r0', 'r1'),
  keepHostIds: fc.option(fc.array(hostId, { maxLength: 4 }), { nil: undefined }),
});

const inIdOrder = (hosts: readonly HostSnapshot[], indexed = false): HostsInIdOrder => {
  const sorted = [...hosts].sort((a, b) => compareHostIds(a.id, b.id));
  const index = capabilityIndex(sorted.map((h) => h.capabilities));
  return {
    count: sorted.length,
    at: (place) => sorted[place],
    calendarAt: (place) => sorted[place],
    byId: (id) => hosts.find((h) => h.id === id),
    ...(indexed ? { placesMatching: (query) => index.placesFor(query) } : {}),
  };
};

describe('allocateHostsInIdOrder', () => {
  it.each([
    ['every place', false],
    ['the places a capability index gives', true],
  ])(
    'visiting %s, answers as allocateHosts does over the same hosts in any order: the same hosts in the same order, or the same counts when too few are free',
    (_, indexed) => {
      fc.assert(
        fc.property(hostsArbitrary, requestArbitrary, fc.integer(), (hosts, r, seed) => {
          const request: HostAllocationRequest = {
            min: r.min,
            max: r.max,
            query: r.query,
            window: { start: at(r.start), end: at(r.start + r.length) },
            cleaningTimeMs: at(r.cleaningMinutes),
            ...(r.reservationId === undefined ? {} : { reservationId: r.reservationId }),
            ...(r.keepHostIds === undefined ? {} : { keepHostIds: r.keepHostIds }),
          };
          const shuffled = fc.sample(fc.shuffledSubarray(hosts, { minLength: hosts.length }), { numRuns: 1, seed })[0] ?? hosts;
          expect(allocateHostsInIdOrder(request, inIdOrder(hosts, indexed))).toEqual(allocateHosts(request, shuffled));
        }),
        { numRuns: 2000 },
      );
    },
  );

  it('passes over places that hold no host now (a host removed since the order was made)', () => {
    const hosts = [host('1'), host('2', { bookings: [booking('x', 0, 500)] }), host('3')];
    const hostAt = (place: number) => [hosts[0], undefined, hosts[1], hosts[2]][place];
    const withGap: HostsInIdOrder = { count: 4, at: hostAt, calendarAt: hostAt, byId: (id) => hosts.find((h) => h.id === id) };
    const request: HostAllocationRequest = {
      min: 3,
      max: 3,
      query: parseQuery(''),
      window: { start: at(100), end: at(200) },
      cleaningTimeMs: 0,
    };
    expect(allocateHostsInIdOrder(request, withGap)).toEqual({ ok: false, matching: 3, free: 2, requested: 3 });
    expect(allocateHostsInIdOrder({ ...request, min: 2 }, withGap)).toEqual({ ok: true, hostIds: ['1', '3'] });
  });
});
