import { describe, expect, it } from 'vitest';
import { MINUTE_MS, wholeHostFree } from '#domain/index.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { at, hostBooked, hostRegistered, slotsBooked } from '../testing/calendars.fixture.js';
import { type StreamEvent, appendGiven } from '../testing/given-events.js';
import { WriteIndex } from '../write-model/write-index.js';
import { calendarIndexOf } from './calendar-index.js';
import { HostSweeper, matchingHosts } from './host-sweep.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';

const HOUR = 60 * MINUTE_MS;
const T = (hour: number): number => Date.parse(at(hour));
const gpu = buildHostRequest({
  min: 1,
  max: 1,
  hypervisorProperties: '',
  resourceProperties: '["=", "$gpu", "true"]',
  beforeEnd: 'default',
}).query;

const indexOver = async (given: readonly StreamEvent[]) => {
  const store = SqliteEventStore.open({ file: ':memory:' });
  await appendGiven(store, given);
  const index = new WriteIndex(store);
  await index.catchUp();
  return { store, index };
};

/**
 * Given these calendars, a sweeper for `min` hosts (all, or those matching `query`) for `hours`, cleaning `cleaning` minutes, up to 23:00.
 */
const sweeperOver = async (given: readonly StreamEvent[], min: number, hours: number, cleaning = 0, query = gpu as typeof gpu | null) => {
  const { store, index } = await indexOver(given);
  const { hosts } = calendarIndexOf(index);
  const sweep = {
    matching: matchingHosts(hosts, query),
    min,
    durationMs: hours * HOUR,
    cleaningMs: cleaning * MINUTE_MS,
    lastStart: T(23) - hours * HOUR,
  };
  return { store, index, hosts, sweep, sweeper: new HostSweeper(hosts, sweep) };
};

/** The same question answered minute by minute with the host policy's own test. */
const bruteForce = (
  hosts: Awaited<ReturnType<typeof sweeperOver>>['hosts'],
  sweep: Awaited<ReturnType<typeof sweeperOver>>['sweep'],
  from: number,
): number | null => {
  for (let start = from; start <= sweep.lastStart; start += MINUTE_MS) {
    const window = { start, end: start + sweep.durationMs };
    const free = hosts.members.filter((host, i) => sweep.matching[i] === true && wholeHostFree(host, window, sweep.cleaningMs)).length;
    if (free >= sweep.min) return start;
  }
  return null;
};

const CROWDED: readonly StreamEvent[] = [
  hostRegistered('1', { gpu: 'true' }),
  hostRegistered('2', { gpu: 'true' }),
  hostRegistered('3', { gpu: 'false' }),
  hostBooked('1', 'a', { start: 9, end: 11 }),
  hostBooked('1', 'b', { start: 13, end: 14 }),
  slotsBooked('2', 'c', { count: 1, vcpus: 2, memoryMb: 512, diskGb: 5 }, { start: 10, end: 15 }),
  slotsBooked('2', 'd', { count: 1, vcpus: 2, memoryMb: 512, diskGb: 5 }, { start: 12, end: 16 }),
  hostBooked('3', 'e', { start: 9, end: 20 }),
];

describe('the host sweep', () => {
  it('starts after a booking ends plus the cleaning time, and keeps the cleaning time before the next', async () => {
    const { store, sweeper } = await sweeperOver(
      [hostRegistered('1', { gpu: 'true' }), hostBooked('1', 'a', { start: 10, end: 12 }), hostBooked('1', 'b', { start: 15, end: 16 })],
      1,
      2,
      30,
    );
    try {
      expect(sweeper.earliestFrom(T(9))).toBe(T(12) + 30 * MINUTE_MS);
      // 14:30 to 16:30 would meet b; after b and its cleaning time
      expect(sweeper.earliestFrom(T(14) + 30 * MINUTE_MS)).toBe(T(16) + 30 * MINUTE_MS);
    } finally {
      await store.close();
    }
  });

  it('counts only matching hosts, and slot bookings that overlap each other keep a host busy until the last ends', async () => {
    const { store, sweeper } = await sweeperOver(CROWDED, 2, 1);
    try {
      // host 1 is free 11-13 and from 14; host 2 (slots 10-15 and 12-16) from 16; host 3 does not match
      expect(sweeper.earliestFrom(T(9))).toBe(T(16));
      expect(sweeper.supplyAt(T(16))).toEqual({ matching: 2, free: 2 });
    } finally {
      await store.close();
    }
  });

  it('answers null past the last start, and at once when fewer hosts match than asked', async () => {
    const late = await sweeperOver([hostRegistered('1', { gpu: 'true' }), hostBooked('1', 'a', { start: 9, end: 22 })], 1, 2);
    const few = await sweeperOver(CROWDED, 3, 1);
    try {
      expect(late.sweeper.earliestFrom(T(9))).toBeNull();
      expect(few.sweeper.earliestFrom(T(9))).toBeNull();
    } finally {
      await late.store.close();
      await few.store.close();
    }
  });

  it('agrees with the host policy minute by minute, asked afresh or moving forward, with and without cleaning time', async () => {
    for (const [min, hours, cleaning, query] of [
      [1, 1, 0, gpu],
      [2, 1, 0, gpu],
      [1, 3, 20, null],
      [2, 2, 7, null],
      [3, 1, 0, null],
    ] as const) {
      const { store, hosts, sweep, sweeper } = await sweeperOver(CROWDED, min, hours, cleaning, query);
      try {
        for (let from = T(8); from <= T(21); from += 17 * MINUTE_MS) {
          const expected = bruteForce(hosts, sweep, from);
          expect(new HostSweeper(hosts, sweep).earliestFrom(from), `${min} x ${hours} h from ${new Date(from).toISOString()}`).toBe(
            expected,
          );
          expect(sweeper.earliestFrom(from), `moving forward, ${min} x ${hours} h from ${new Date(from).toISOString()}`).toBe(expected);
        }
      } finally {
        await store.close();
      }
    }
  });
});
