import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { created, reservation } from '#domain/lease/testing/lease.fixtures.js';
import type { EventMetadata, EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { Caller } from '../caller.js';
import type { HistoryEntry } from '../history/history-entry.js';
import { HistoryQueries } from '../history/history.queries.js';
import { testCaller } from '../testing/application.specification.js';
import { EventFeed, type FeedQuery, parseFeedTypes } from './event-feed.queries.js';
import { LeaseOwners } from './lease-owners.js';
import { LiveEntries, type ReadAfter } from './live-entries.js';
import { followFeed, followLeaseHistory } from './live-follow.js';
import { BEHIND, type LiveInterest, LiveLog, type LiveReader } from './live-log.js';

const USER: EventMetadata = { correlationId: 'req-1', causationId: 'req-1', actor: { userId: 'user-1', projectId: 'project-1' } };
const hold = { startDate: '2030-01-01T10:00:00.000Z', endDate: '2030-01-01T18:00:00.000Z', propertyNames: [] };
const fipReservation = {
  id: 'res-2',
  resourceId: 'r-2',
  resourceType: 'virtual:floatingip',
  networkId: 'net-1',
  amount: 1,
  requiredFloatingIps: [],
  allocations: [{ floatingIpId: 'fip-1', address: '203.0.113.5' }],
};

let store: EventStore;
let owners: LeaseOwners;
let log: LiveLog;
let ids = 0;

const append = async (streamId: string, type: string, data: unknown): Promise<number> =>
  (await store.appendToStream(streamId, 'any', [{ id: `e-${++ids}`, type, data, metadata: USER }])).position;

/** Before anyone listens: lease-1 of project-1 exists (its owner is found from the index, not from the live batch). */
const givenLeaseOne = (): Promise<number> =>
  append('lease-lease-1', 'Lease.Created', created({ reservations: [reservation('res-1'), fipReservation as never] }).data);

/**
 * While readers listen: lease-1 books host 7 and fip-1, moves a booking, moves res-1 to host 8; lease-2
 * of project-2 books host 7 too; around them, a host's registration, its Nova activity, a quota
 * admission, an event outside the catalogue.
 */
const whileListening = async (): Promise<void> => {
  await append('hostregistry-main', 'HostRegistry.HostAdded', { hostId: '8', hypervisorHostname: 'h8' });
  await append('host-7', 'Host.Booked', { hostId: '7', reservationId: 'res-1', leaseId: 'lease-1', ...hold });
  await append('floatingip-fip-1', 'FloatingIp.Booked', { floatingIpId: 'fip-1', reservationId: 'res-2', leaseId: 'lease-1', ...hold });
  await append('test-noise', 'Noted', {});
  await append(
    'lease-lease-2',
    'Lease.Created',
    created({ leaseId: 'lease-2', projectId: 'project-2', userId: 'user-2', reservations: [reservation('res-9')] }).data,
  );
  await append('host-7', 'Host.Booked', { hostId: '7', reservationId: 'res-9', leaseId: 'lease-2', ...hold });
  await append('host-7', 'Host.BookingMoved', { hostId: '7', reservationId: 'res-1', ...hold, endDate: '2030-01-01T20:00:00.000Z' });
  await append('quota-project-1', 'Quota.LeaseAdmitted', { projectId: 'project-1', leaseId: 'lease-1', at: hold.startDate });
  await append('lease-lease-1', 'Reservation.Changed', {
    leaseId: 'lease-1',
    reservation: reservation('res-1', { hostIds: ['8'] }),
    changedAt: hold.startDate,
  });
  await append('host-7', 'Host.BookingReleased', { hostId: '7', reservationId: 'res-1', leaseId: 'lease-1' });
  await append('host-8', 'Host.Booked', { hostId: '8', reservationId: 'res-1', leaseId: 'lease-1', ...hold });
  await append('hostactivity-7', 'HostActivity.InstanceNotified', {
    hostId: '7',
    eventType: 'instance.create.end',
    instanceId: 'srv-1',
    projectId: 'project-1',
    flavorId: null,
    state: 'active',
    occurredAt: hold.startDate,
    messageId: 'm-1',
  });
  await append('lease-lease-2', 'Lease.Deleted', { leaseId: 'lease-2', at: hold.startDate });
};

/** The entries a reader gets, once it has `count` (or a few seconds have passed). */
const received = async (reader: LiveReader, count: number): Promise<HistoryEntry[]> => {
  const entries: HistoryEntry[] = [];
  const signal = AbortSignal.timeout(5_000);
  while (entries.length < count && !signal.aborted) {
    const batch = await reader.next(signal);
    if (batch === BEHIND) throw new Error('fell behind');
    entries.push(...batch);
  }
  return entries;
};

/** A reader receives exactly `expected`. */
const expectReceived = async (reader: LiveReader, expected: readonly HistoryEntry[]): Promise<void> => {
  expect(expected.length).toBeGreaterThan(0);
  expect(await received(reader, expected.length)).toEqual(expected);
};

/** What the feed pages show `caller` after `after`, read to the head. */
const paged = async (caller: Caller, query: Omit<FeedQuery, 'after' | 'limit'>, after: number): Promise<HistoryEntry[]> => {
  const feed = new EventFeed(store, owners);
  const entries: HistoryEntry[] = [];
  for (let position = after; ;) {
    const page = await feed.page(caller, { ...query, after: position, limit: 2 });
    entries.push(...page.events);
    position = page.next_after;
    if (page.atHead) return entries;
  }
};

const ADMIN = testCaller('admin', 'admin-project');
const MEMBER = testCaller('member', 'project-1');
const READER_TWO = testCaller('reader', 'project-2');
const feedOf = (caller: Caller, types: readonly string[] | null = null): LiveInterest => ({
  subject: { kind: 'feed', caller },
  types: types === null ? null : new Set(types),
});

beforeEach(async () => {
  store = SqliteEventStore.open({ file: ':memory:' });
  owners = new LeaseOwners(store);
  log = new LiveLog(store, owners, 100);
  ids = 0;
});

afterEach(async () => {
  await store.close();
});

describe('the live log', () => {
  it("hands each reader what the history and the feed show it: a lease's own events and bookings, a project's leases, everything", async () => {
    const joinedAt = await givenLeaseOne();
    const readers = {
      leaseOne: await log.join({ subject: { kind: 'lease', leaseId: 'lease-1' }, types: null }),
      leaseTwo: await log.join({ subject: { kind: 'lease', leaseId: 'lease-2' }, types: null }),
      member: await log.join(feedOf(MEMBER)),
      readerTwo: await log.join(feedOf(READER_TWO)),
      admin: await log.join(feedOf(ADMIN)),
      adminBookings: await log.join(feedOf(ADMIN, ['host.booked', 'host.booking_moved'])),
    };
    await whileListening();

    const history = new HistoryQueries(store);
    // the log routes each event's entry as it is; what a change changed is the lease's follower's to say (below)
    const routed = (entries: HistoryEntry[]) =>
      entries
        .filter((entry) => entry.position > joinedAt)
        .map(({ changes, ...entry }) => (changes === undefined ? entry : { ...entry, summary: entry.summary.split(': ')[0] as string }));
    await expectReceived(readers.leaseOne, routed(await history.lease(ADMIN, 'lease-1')));
    await expectReceived(readers.leaseTwo, routed(await history.lease(ADMIN, 'lease-2')));
    await expectReceived(readers.member, await paged(MEMBER, { types: null }, joinedAt));
    await expectReceived(readers.readerTwo, await paged(READER_TWO, { types: null }, joinedAt));
    await expectReceived(readers.admin, await paged(ADMIN, { types: null }, joinedAt));
    await expectReceived(readers.adminBookings, await paged(ADMIN, { types: parseFeedTypes('host.booked,host.booking_moved') }, joinedAt));
    // nothing more than that: the next append is the first entry any of them gets next
    const last = await append('lease-lease-2', 'Lease.Renamed', { leaseId: 'lease-2', name: 'later', renamedAt: hold.startDate });
    for (const reader of [readers.leaseTwo, readers.readerTwo, readers.admin])
      expect((await received(reader, 1)).map((entry) => entry.position)).toEqual([last]);
    for (const reader of Object.values(readers)) await reader.leave();
  });

  it('tells a reader that does not keep up that it fell behind, and keeps nothing more for it', async () => {
    const small = new LiveLog(store, owners, 3);
    const reader = await small.join(feedOf(ADMIN));
    await whileListening();
    await expect(reader.next(AbortSignal.timeout(5_000))).resolves.toBe(BEHIND);
    await reader.leave();
  });

  it('lets a reader that waits go as soon as its consumer stops, without an event', async () => {
    const reader = await log.join(feedOf(ADMIN));
    const stop = new AbortController();
    const waiting = reader.next(stop.signal);
    stop.abort();
    await expect(waiting).resolves.toEqual([]);
    await reader.leave();
  });
});

describe('live entries', () => {
  it('catch up from the log, then go live: every entry once, in order, across a fall behind and its re-read', async () => {
    await givenLeaseOne();
    const small = new LiveLog(store, owners, 2);
    const feed = new EventFeed(store, owners);
    let reads = 0;
    const read: ReadAfter = async (after) => {
      reads++;
      const page = await feed.page(ADMIN, { after, types: null, limit: 3 });
      return { entries: page.events, next: page.next_after, atHead: page.atHead };
    };
    const entries = await LiveEntries.open(small, feedOf(ADMIN), read, 0);
    // the consumer takes nothing while the log grows past the reader's queue
    await whileListening();
    const head = await store.headPosition();
    const seen: HistoryEntry[] = [];
    for await (const batch of entries) {
      seen.push(...batch);
      if ((seen.at(-1)?.position ?? 0) >= head) break;
    }
    expect(seen).toEqual(await paged(ADMIN, { types: null }, 0));
    expect(reads, 'it read the log again after falling behind').toBeGreaterThan(1);
  });

  it('follows a lease as its history shows it, each change saying what it changed, also for a reader of one type', async () => {
    await givenLeaseOne();
    const history = new HistoryQueries(store);
    const follow = (types: ReadonlySet<string> | null) => followLeaseHistory(log, history, store, MEMBER, 'lease-1', types, 0);
    const [every, changesOnly] = [await follow(null), await follow(new Set(['reservation.changed']))];
    await whileListening();
    const whole = await history.lease(MEMBER, 'lease-1');
    const changed = whole.filter((entry) => entry.type === 'reservation.changed');
    expect(changed[0]?.changes).toEqual([{ field: 'host_ids', before: ['7'], after: ['8'] }]);
    const take = async (entries: AsyncIterableIterator<readonly HistoryEntry[]>, count: number): Promise<HistoryEntry[]> => {
      const seen: HistoryEntry[] = [];
      while (seen.length < count) seen.push(...((await entries.next()).value as HistoryEntry[]));
      return seen;
    };
    expect(await take(every, whole.length)).toEqual(whole);
    expect(await take(changesOnly, changed.length)).toEqual(changed);
    await every.return();
    await changesOnly.return();
  });

  it('end at once when returned while waiting for the log', async () => {
    await givenLeaseOne();
    const entries = await followFeed(log, new EventFeed(store, owners), MEMBER, { after: 0, types: null, limit: 100 });
    const [first] = (await entries.next()).value as HistoryEntry[];
    expect(first?.type).toBe('lease.created');
    const waiting = entries.next();
    await entries.return();
    await expect(waiting).resolves.toMatchObject({ done: true });
  });
});
