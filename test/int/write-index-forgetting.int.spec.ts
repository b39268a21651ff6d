import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOUR_MS, MINUTE_MS } from '#domain/index.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { PostgresEventStore } from '#event-store/postgresql/postgresql-event-store.js';
import { PostgresSnapshotStore } from '#event-store/snapshots/postgresql-snapshot-store.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import { SqliteSnapshotStore } from '#event-store/snapshots/sqlite-snapshot-store.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { ReservationRequest } from '#plugins/reservation-types.js';
import { buildInstanceRequest } from '#plugins/instance/instance-reservation.request.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import type { ApplicationContext } from '#application/application-context.js';
import { CommandHandler } from '#application/command-handler.js';
import { LeaseUseCases } from '#application/leases/lease.use-cases.js';
import { DEFAULT_SETTINGS, commandMetadata, testCaller } from '#application/testing/application.specification.js';
import { floatingIpRegistered, hostRegistered } from '#application/testing/calendars.fixture.js';
import { appendGiven } from '#application/testing/given-events.js';
import type { Forgetting } from '#application/snapshots/snapshot.config.js';
import { openWriteIndex } from '#application/write-model/write-index.snapshots.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import { createTestDatabase } from '../helpers/pg-database.js';

/** The first leases run from T0 + 1 h; "later" is a day on, when they ended long ago. */
const T0 = Date.parse('2031-03-01T00:00:00.000Z');
const LATER = T0 + 24 * HOUR_MS;
const iso = (ms: number): string => new Date(ms).toISOString();
const member = testCaller('member');
const noError = (error: unknown): never => {
  throw error;
};
/** Written only when asked (writer.stop), never on a timer during a test. */
const CONFIG = { everyMs: 3_600_000, everyEvents: 1 };
const forgetAt = (now: number): Forgetting => ({ pastMs: HOUR_MS, now: () => now });

const oneHost = buildHostRequest({ min: 1, max: 1, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default' });
const slots = buildInstanceRequest({ amount: 2, vcpus: 2, memoryMb: 1024, diskGb: 10, affinity: null, resourceProperties: '' });
const address: ReservationRequest = { resourceType: 'virtual:floatingip', networkId: 'net-1', amount: 1, requiredFloatingIps: [] };

interface Backend {
  open(): Promise<{ readonly store: EventStore; readonly snapshots: SnapshotStore }>;
  cleanup(): Promise<void>;
}

const sqlite = async (): Promise<Backend> => {
  const store = SqliteEventStore.open({ file: ':memory:' });
  const snapshots = SqliteSnapshotStore.open(':memory:');
  return {
    open: () => Promise.resolve({ store, snapshots }),
    cleanup: async () => {
      await snapshots.close();
      await store.close();
    },
  };
};

const PG_URL = process.env.LEASEHOLD_TEST_PG_URL;

const postgresql = async (): Promise<Backend> => {
  const database = await createTestDatabase(PG_URL as string, 'lh_forgetting');
  const store = await PostgresEventStore.open({ url: database.url });
  const snapshots = await PostgresSnapshotStore.open(database.url);
  return {
    open: () => Promise.resolve({ store, snapshots }),
    cleanup: async () => {
      await snapshots.close();
      await store.close();
      await database.drop();
    },
  };
};

const contextOf = (store: EventStore, index: WriteIndex, prefix: string): ApplicationContext => {
  let ids = 0;
  return { handler: new CommandHandler(store), index, settings: DEFAULT_SETTINGS, newId: () => `${prefix}-${(ids += 1)}` };
};

const create = async (
  context: ApplicationContext,
  now: number,
  start: number,
  minutes: number,
  reservations: readonly ReservationRequest[],
): Promise<string> => {
  const data = { name: 'lease', startDate: iso(start), endDate: iso(start + minutes * MINUTE_MS), beforeEndDate: null, reservations };
  return (await new LeaseUseCases(context).create({ type: 'CreateLease', data, metadata: commandMetadata(member, iso(now)) })).leaseId;
};

const remove = (context: ApplicationContext, leaseId: string, now: number) =>
  new LeaseUseCases(context).delete({ type: 'DeleteLease', data: { leaseId }, metadata: commandMetadata(member, iso(now)) });

const everything = async (store: EventStore): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = [];
  for (;;) {
    const page = await store.readAll({ from: events.at(-1)?.position ?? 0, limit: 1000 });
    events.push(...page);
    if (page.length < 1000) return events;
  }
};

const releases = (events: readonly RecordedEvent[]) =>
  events
    .filter((e) => e.type === 'Host.BookingReleased' || e.type === 'FloatingIp.BookingReleased')
    .map((e) => `${e.streamId} ${(e.data as { reservationId: string }).reservationId}`);

/** An index that never forgets, folded from the whole log. */
const wholeLog = async (store: EventStore): Promise<WriteIndex> => {
  const index = new WriteIndex(store);
  await index.catchUp();
  return index;
};

const reservationsOn = (index: WriteIndex, hostId: string): string[] => {
  const { state } = index.host(hostId);
  return state.status === 'Registered' ? state.bookings.map((b) => `${b.leaseId} ${b.reservationId}`) : [];
};

const forgettingSuite = (backend: () => Promise<Backend>): void => {
  let place: Backend;
  let store: EventStore;
  let snapshots: SnapshotStore;

  beforeEach(async () => {
    place = await backend();
    ({ store, snapshots } = await place.open());
    await appendGiven(store, [hostRegistered('1'), hostRegistered('2'), floatingIpRegistered('f1', '10.0.0.1')]);
  });

  afterEach(async () => {
    await place.cleanup();
  });

  it('deletes a lease whose bookings the index forgot (and its snapshot left out): each is released once, as a whole-log index would', async () => {
    const first = await openWriteIndex(store, snapshots, CONFIG, noError, forgetAt(T0));
    const early = contextOf(store, first.index, 'early');
    const ended = await create(early, T0, T0 + HOUR_MS, 60, [oneHost, slots, address]);
    const future = await create(early, T0, LATER + HOUR_MS, 60, [oneHost]);
    await first.writer.stop();

    const restored = await openWriteIndex(store, snapshots, CONFIG, noError, forgetAt(LATER));
    expect(restored.restored).toEqual({ position: expect.any(Number) as number });
    const [host1, host2] = [reservationsOn(restored.index, '1'), reservationsOn(restored.index, '2')];
    expect([...host1, ...host2].filter((b) => b.startsWith(`${ended} `))).toEqual([]);
    expect([...host1, ...host2].filter((b) => b.startsWith(`${future} `))).toHaveLength(1);
    // the future lease's whole host; the ended one held a host, one or two hosts' slots, an address
    expect(restored.index.heldBookings()).toBe(1);
    expect((await wholeLog(store)).heldBookings()).toBeGreaterThanOrEqual(4);

    await restored.writer.stop();
    const fromSnapshot = await openWriteIndex(store, snapshots, CONFIG, noError, forgetAt(LATER));
    expect(fromSnapshot.index.capture().payload).toEqual(restored.index.capture().payload);

    const before = (await everything(store)).length;
    const later = contextOf(store, fromSnapshot.index, 'later');
    await remove(later, ended, LATER);
    const recorded = (await everything(store)).slice(before);
    const released = releases(recorded);
    // the whole host, the host holding the slots (one of the two, or both), the address
    expect(released.filter((r) => r.startsWith('floatingip-f1 '))).toHaveLength(1);
    expect(released.filter((r) => r.startsWith('host-')).length).toBeGreaterThanOrEqual(2);
    expect(new Set(released).size).toBe(released.length);

    await expect(remove(later, ended, LATER)).rejects.toMatchObject({ code: 'LEASE_NOT_FOUND' });
    expect(releases((await everything(store)).slice(before))).toEqual(released);

    // a replay of the whole log holds nothing of the deleted lease; forgetting it gives the index that deleted it
    const replayed = await wholeLog(store);
    expect([...reservationsOn(replayed, '1'), ...reservationsOn(replayed, '2')].filter((b) => b.startsWith(`${ended} `))).toEqual([]);
    await fromSnapshot.index.catchUp();
    replayed.forgetBookingsEndedBefore(LATER - HOUR_MS);
    expect(replayed.capture()).toEqual(fromSnapshot.index.capture());

    // both hosts take a lease of two from now on
    const two = buildHostRequest({ min: 2, max: 2, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default' });
    await expect(create(later, LATER, LATER + 3 * HOUR_MS, 60, [two])).resolves.toEqual(expect.any(String));
    await fromSnapshot.writer.stop();
  });

  it('holds as many bookings after forty rounds of leases as after five: the ended ones drop out', async () => {
    const index = new WriteIndex(store);
    const context = contextOf(store, index, 'round');
    const held: number[] = [];
    for (let round = 0; round < 40; round += 1) {
      const now = T0 + round * 4 * HOUR_MS;
      await index.catchUp();
      index.forgetBookingsEndedBefore(now - HOUR_MS);
      await create(context, now, now + HOUR_MS, 60, [oneHost, slots, address]);
      await index.catchUp();
      held.push(index.heldBookings());
    }
    expect(held[39]).toBe(held[4]);
    expect((await wholeLog(store)).heldBookings()).toBeGreaterThan(10 * (held[39] ?? 0));
  });

  it('admits and deletes in parallel on one host against a forgetting index without a double booking or a double release', async () => {
    const early = contextOf(store, new WriteIndex(store), 'early');
    const past: string[] = [];
    for (let i = 0; i < 6; i += 1) past.push(await create(early, T0, T0 + HOUR_MS + i * 90 * MINUTE_MS, 60, [oneHost]));

    const opened = await openWriteIndex(store, snapshots, CONFIG, noError, forgetAt(LATER));
    const later = contextOf(store, opened.index, 'later');
    const settle = (work: Promise<unknown>): Promise<unknown> => work.catch((error: unknown) => error);
    const creates = Array.from({ length: 16 }, (_, i) =>
      settle(create(later, LATER, LATER + HOUR_MS + (i % 5) * 40 * MINUTE_MS, 60, [oneHost])),
    );
    const churn = Array.from({ length: 4 }, (_, i) =>
      settle(
        create(later, LATER, LATER + 10 * HOUR_MS + i * 20 * MINUTE_MS, 45, [oneHost]).then((leaseId) => remove(later, leaseId, LATER)),
      ),
    );
    const deletes = [...past, ...past].map((leaseId) => settle(remove(later, leaseId, LATER)));
    await Promise.all([...creates, ...churn, ...deletes]);

    // replayed in log order: no booking on a host ever overlaps one still held there, nothing is released twice
    const events = await everything(store);
    const live = new Map<string, { readonly start: number; readonly end: number }>();
    for (const event of events) {
      const data = event.data as { reservationId: string; hostId: string; startDate: string; endDate: string };
      const key = `${event.streamId} ${data.reservationId}`;
      if (event.type === 'Host.Booked') {
        const window = { start: Date.parse(data.startDate), end: Date.parse(data.endDate) };
        const overlapping = [...live].filter(
          ([other, b]) => other.startsWith(`${event.streamId} `) && b.start < window.end && window.start < b.end,
        );
        expect(overlapping).toEqual([]);
        live.set(key, window);
      } else if (event.type === 'Host.BookingReleased') live.delete(key);
    }
    const released = releases(events);
    expect(new Set(released).size).toBe(released.length);
    expect(events.filter((e) => e.type === 'Lease.Deleted').length).toBe(
      new Set(events.filter((e) => e.type === 'Lease.Deleted').map((e) => e.streamId)).size,
    );
    const replayed = await wholeLog(store);
    for (const leaseId of past) expect(reservationsOn(replayed, '1').filter((b) => b.startsWith(`${leaseId} `))).toEqual([]);
    await opened.index.catchUp();
    replayed.forgetBookingsEndedBefore(LATER - HOUR_MS);
    expect(replayed.capture().payload.hosts).toEqual(opened.index.capture().payload.hosts);
    await opened.writer.stop();
  });
};

describe('the API write index forgetting ended bookings, on SQLite', () => forgettingSuite(sqlite));

describe.skipIf(PG_URL === undefined || PG_URL === '')('the API write index forgetting ended bookings, on PostgreSQL', () =>
  forgettingSuite(postgresql),
);
