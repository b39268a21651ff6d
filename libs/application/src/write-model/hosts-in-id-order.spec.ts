import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostStream } from '#domain/index.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { EMPTY_QUERY, parseQuery } from '#plugins/query/blazar-query.js';
import { allocateHosts, compareHostIds } from '#plugins/physical-host/host-allocation.policy.js';
import type { BookingWindow } from '#plugins/admission/calendars.port.js';
import { at, hostBooked, hostRegistered, hostWentDown } from '../testing/calendars.fixture.js';
import { type StreamEvent, appendGiven } from '../testing/given-events.js';
import { BookingPlan } from './booking-plan.js';
import { WriteIndex } from './write-index.js';

const OPTIONS = { cleaningTimeMinutes: 0, allocationRatios: { cpu: 1, ram: 1, disk: 1 } };
const window = (reservationId: string, start = 10, end = 18): BookingWindow => ({
  leaseId: `lease-${reservationId}`,
  reservationId,
  startDate: at(start),
  endDate: at(end),
  propertyNames: [],
});
const unregistered = (hostId: string): StreamEvent => ({
  streamId: hostStream(hostId),
  type: 'Host.Unregistered',
  data: { hostId, hypervisorHostname: `compute-${hostId}`, unregisteredAt: at(1) },
});

/** A write index over an in-memory log, and `more` to append to it and catch up. */
const withIndex = async (
  given: readonly StreamEvent[],
  run: (index: WriteIndex, more: (events: readonly StreamEvent[]) => Promise<void>) => Promise<void>,
): Promise<void> => {
  const store = SqliteEventStore.open({ file: ':memory:' });
  try {
    await appendGiven(store, given);
    const index = new WriteIndex(store);
    await index.catchUp();
    await run(index, async (events) => {
      await appendGiven(store, events);
      await index.catchUp();
    });
  } finally {
    await store.close();
  }
};

/** What the plain policy chooses over every snapshot, to compare the plan's answer with. */
const plainChoice = (
  plan: BookingPlan,
  request: { min: number; max: number; query: typeof EMPTY_QUERY; keepHostIds?: readonly string[] },
  w: BookingWindow,
) =>
  allocateHosts(
    { ...request, window: { start: Date.parse(w.startDate), end: Date.parse(w.endDate) }, cleaningTimeMs: 0 },
    plan.snapshots(),
  );

describe('the hosts in id order', () => {
  it('sorts the registered hosts as the policy orders ids (decimals by value first), once per set of hosts', async () => {
    await withIndex(
      [hostRegistered('10'), hostRegistered('b'), hostRegistered('9'), hostRegistered('a'), hostRegistered('010')],
      async (index, more) => {
        const order = index.hostsInIdOrder();
        expect(order.ids).toEqual(['9', '010', '10', 'a', 'b']);
        expect([...order.placeOf]).toEqual([
          ['9', 0],
          ['010', 1],
          ['10', 2],
          ['a', 3],
          ['b', 4],
        ]);
        expect(index.hostsInIdOrder()).toBe(order);
        // a booking or a host going down leaves the set as it is
        await more([hostBooked('9', 'r0'), hostWentDown('a')]);
        expect(index.hostsInIdOrder()).toBe(order);
      },
    );
  });

  it('sorts again when a host joins or leaves the index, under a new version', async () => {
    await withIndex([hostRegistered('2'), hostRegistered('3')], async (index, more) => {
      const before = index.hostsInIdOrder();
      await more([hostRegistered('1')]);
      const joined = index.hostsInIdOrder();
      expect(joined.version).not.toBe(before.version);
      expect(joined.ids).toEqual(['1', '2', '3']);
      await more([unregistered('2')]);
      const left = index.hostsInIdOrder();
      expect(left.version).not.toBe(joined.version);
      expect(left.ids).toEqual(['1', '3']);
      expect(left.placeOf.get('2')).toBeUndefined();
      expect(before.ids).toEqual(['2', '3']);
    });
  });
});

const capabilitiesUpdated = (hostId: string, capabilities: Record<string, string>): StreamEvent => ({
  streamId: hostStream(hostId),
  type: 'Host.CapabilitiesUpdated',
  data: { hostId, capabilities, updatedAt: at(1) },
});

describe('the capability index over the hosts in id order', () => {
  const GPU = parseQuery('["==", "$gpu", "true"]');

  it('gives the places of the hosts with a capability value, kept until a host joins, leaves or changes its capabilities', async () => {
    await withIndex(
      [hostRegistered('3', { gpu: 'true' }), hostRegistered('1'), hostRegistered('2', { gpu: 'true', rack: '7' })],
      async (index, more) => {
        const before = index.hostCapabilities();
        expect(before.placesFor(GPU)).toEqual([1, 2]);
        expect(before.placesFor(parseQuery('["and", ["==", "$gpu", "true"], ["==", "$rack", "7.0"]]'))).toEqual([1]);
        expect(before.placesFor(parseQuery('[">=", "$rack", "1"]'))).toBeNull();
        await more([hostBooked('3', 'r0'), hostWentDown('1')]);
        expect(index.hostCapabilities()).toBe(before);
        await more([capabilitiesUpdated('3', { gpu: 'false' })]);
        expect(index.hostCapabilities().placesFor(GPU)).toEqual([1]);
        await more([hostRegistered('0', { gpu: 'true' })]);
        expect(index.hostCapabilities().placesFor(GPU)).toEqual([0, 2]);
        await more([unregistered('2')]);
        expect(index.hostCapabilities().placesFor(GPU)).toEqual([0]);
      },
    );
  });
});

describe('the booking plan allocating in id order', () => {
  it("chooses what the plain policy chooses over every snapshot: after the plan's own bookings, with kept hosts, with a query, and when too few are free", async () => {
    const given = [
      hostRegistered('10', { gpu: 'true' }),
      hostRegistered('9'),
      hostRegistered('2', { gpu: 'true' }),
      hostRegistered('11', { gpu: 'true' }),
      hostBooked('2', 'r0'),
      hostRegistered('3'),
      hostWentDown('3'),
    ];
    await withIndex(given, async (index) => {
      const plan = new BookingPlan(index, OPTIONS);
      const gpu = parseQuery('["=", "$gpu", "true"]');
      const asks = [
        { request: { min: 1, max: 2, query: EMPTY_QUERY }, window: window('r1') },
        { request: { min: 1, max: 1, query: gpu }, window: window('r2') },
        { request: { min: 1, max: 3, query: EMPTY_QUERY, keepHostIds: ['11', '2', '11'] }, window: window('r3', 20, 22) },
      ];
      const chosen: (readonly string[])[] = [];
      for (const { request, window: w } of asks) {
        const plain = plainChoice(plan, request, w);
        const hostIds = plan.allocate(request, w);
        expect({ ok: true, hostIds }).toEqual(plain);
        for (const hostId of hostIds) plan.book(hostId, w);
        chosen.push(hostIds);
      }
      expect(chosen).toEqual([['9', '10'], ['11'], ['11', '2', '9']]);
      expect(plainChoice(plan, { min: 2, max: 2, query: gpu }, window('r4'))).toEqual({ ok: false, matching: 3, free: 0, requested: 2 });
      expect(() => plan.allocate({ min: 2, max: 2, query: gpu }, window('r4'))).toThrow(
        expect.objectContaining({
          code: 'NOT_ENOUGH_HOSTS',
          message: expect.stringContaining('3 reservable hosts match the requested properties and 0 of them are free'),
        }),
      );
    });
  });

  it('offers a host registered after an earlier admission on the same index, and no longer one unregistered since', async () => {
    await withIndex([hostRegistered('5'), hostBooked('5', 'r0')], async (index, more) => {
      expect(() => new BookingPlan(index, OPTIONS).allocate({ min: 1, max: 1, query: EMPTY_QUERY }, window('r1'))).toThrow(
        expect.objectContaining({ code: 'NOT_ENOUGH_HOSTS' }),
      );
      await more([hostRegistered('7'), hostRegistered('6')]);
      expect(new BookingPlan(index, OPTIONS).allocate({ min: 1, max: 1, query: EMPTY_QUERY }, window('r1'))).toEqual(['6']);
      await more([unregistered('6')]);
      expect(new BookingPlan(index, OPTIONS).allocate({ min: 1, max: 1, query: EMPTY_QUERY }, window('r1'))).toEqual(['7']);
    });
  });
});

describe('the booking plan over an index whose hosts come and go', () => {
  type Step = { readonly kind: 'register' | 'unregister' | 'down' | 'book' | 'admit'; readonly hostId: string; readonly hour: number };
  // decimals, a leading zero and names: the orders the policy knows
  const hostId = fc.constantFrom('1', '2', '9', '10', '010', '11', 'a', 'b');
  const step: fc.Arbitrary<Step> = fc.record({
    kind: fc.constantFrom('register', 'register', 'unregister', 'down', 'book', 'admit'),
    hostId,
    hour: fc.integer({ min: 1, max: 20 }),
  });

  /** Given events only for what the log could hold: a host registered at most once while registered. */
  const eventsOf = (s: Step, registered: Set<string>, n: number): StreamEvent[] => {
    const known = registered.has(s.hostId);
    if (s.kind === 'register' && !known) return [hostRegistered(s.hostId)];
    if (s.kind === 'unregister' && known) return [unregistered(s.hostId)];
    if (s.kind === 'down' && known) return [hostWentDown(s.hostId)];
    if (s.kind === 'book' && known) return [hostBooked(s.hostId, `given-${n}`, { start: s.hour, end: s.hour + 3 })];
    return [];
  };

  it('chooses after each change what the plain policy chooses over every snapshot', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        await withIndex([], async (index, more) => {
          const registered = new Set<string>();
          for (const [n, s] of steps.entries()) {
            const events = eventsOf(s, registered, n);
            if (s.kind === 'register' && events.length > 0) registered.add(s.hostId);
            if (s.kind === 'unregister') registered.delete(s.hostId);
            await more(events);
            const plan = new BookingPlan(index, OPTIONS);
            const w = window(`r${n}`, s.hour, s.hour + 2);
            const request = { min: 1, max: 2, query: EMPTY_QUERY };
            const plain = plainChoice(plan, request, w);
            if (plain.ok) expect(plan.allocate(request, w)).toEqual(plain.hostIds);
            else expect(() => plan.allocate(request, w)).toThrow(expect.objectContaining({ code: 'NOT_ENOUGH_HOSTS' }));
            expect(index.hostsInIdOrder().ids).toEqual(
              plan
                .snapshots()
                .map((h) => h.id)
                .sort(compareHostIds),
            );
            if (s.kind === 'admit' && plain.ok)
              await more(plain.hostIds.map((id) => hostBooked(id, `r${n}`, { start: s.hour, end: s.hour + 2 })));
          }
        });
      }),
      { numRuns: 40 },
    );
  });
});
