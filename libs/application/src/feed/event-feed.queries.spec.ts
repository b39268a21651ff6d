import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { created, reservation } from '#domain/lease/testing/lease.fixtures.js';
import type { EventMetadata, EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { Caller } from '../caller.js';
import type { HistoryEntry } from '../history/history-entry.js';
import { testCaller } from '../testing/application.specification.js';
import { EventFeed, type FeedQuery, parseFeedTypes } from './event-feed.queries.js';
import { LeaseOwners } from './lease-owners.js';

const USER: EventMetadata = {
  correlationId: 'req-1',
  causationId: 'req-1',
  actor: { userId: 'user-1', projectId: 'project-1' },
  requestId: 'req-1',
};
const hold = { startDate: '2030-01-01T10:00:00.000Z', endDate: '2030-01-01T18:00:00.000Z', propertyNames: [] };
const hostInfo = {
  hypervisorHostname: 'h7',
  serviceName: 'h7',
  vcpus: 8,
  memoryMb: 1024,
  localGb: 10,
  cpuInfo: '',
  hypervisorType: 'QEMU',
  hypervisorVersion: 1,
  availabilityZone: 'nova',
};

let store: EventStore;
let feed: EventFeed;
let ids = 0;

const append = async (streamId: string, type: string, data: unknown): Promise<number> =>
  (await store.appendToStream(streamId, 'any', [{ id: `e-${++ids}`, type, data, metadata: USER }])).position;

/** lease-1 of project-1 (res-1 on host 7, moved in time) and lease-2 of project-2 (res-9 on host 7), around host 7's registration. */
const givenLedger = async (): Promise<void> => {
  await append('hostregistry-main', 'HostRegistry.HostAdded', { hostId: '7', hypervisorHostname: 'h7' });
  await append('host-7', 'Host.Registered', { hostId: '7', info: hostInfo, capabilities: {}, registeredAt: hold.startDate });
  await append(
    'lease-lease-1',
    'Lease.Created',
    created({ leaseId: 'lease-1', projectId: 'project-1', reservations: [reservation('res-1')] }).data,
  );
  await append('host-7', 'Host.Booked', { hostId: '7', reservationId: 'res-1', leaseId: 'lease-1', ...hold });
  await append('test-noise', 'Noted', {});
  await append(
    'lease-lease-2',
    'Lease.Created',
    created({ leaseId: 'lease-2', projectId: 'project-2', userId: 'user-2', reservations: [reservation('res-9')] }).data,
  );
  await append('host-7', 'Host.Booked', { hostId: '7', reservationId: 'res-9', leaseId: 'lease-2', ...hold });
  await append('host-7', 'Host.BookingMoved', { hostId: '7', reservationId: 'res-1', ...hold, endDate: '2030-01-01T20:00:00.000Z' });
  await append('lease-lease-2', 'Lease.Deleted', { leaseId: 'lease-2', at: hold.startDate });
};

const ADMIN = testCaller('admin', 'admin-project');
const all = (after = 0, limit = 100): FeedQuery => ({ after, types: null, limit });

/** Every page from `after` until the head, as a client following `next_after` would read them. */
const readToHead = async (caller: Caller, query: FeedQuery): Promise<{ entries: HistoryEntry[]; pages: number; last: number }> => {
  const entries: HistoryEntry[] = [];
  let after = query.after;
  for (let pages = 1; ; pages++) {
    const page = await feed.page(caller, { ...query, after });
    expect(page.next_after).toBeGreaterThanOrEqual(after);
    entries.push(...page.events);
    after = page.next_after;
    if (page.atHead) return { entries, pages, last: after };
  }
};

beforeEach(async () => {
  store = SqliteEventStore.open({ file: ':memory:' });
  feed = new EventFeed(store, new LeaseOwners(store));
  ids = 0;
  await givenLedger();
});

afterEach(async () => {
  await store.close();
});

describe('the event feed', () => {
  it('pages through the log in order, each event once, skipping what is not in the catalogue but scanning past it', async () => {
    const { entries, pages, last } = await readToHead(ADMIN, all(0, 2));
    expect(entries.map((entry) => entry.type)).toEqual([
      'host_registry.host_added',
      'host.registered',
      'lease.created',
      'host.booked',
      'lease.created',
      'host.booked',
      'host.booking_moved',
      'lease.deleted',
    ]);
    expect(entries.map((entry) => entry.position)).toEqual([1, 2, 3, 4, 6, 7, 8, 9]);
    expect(pages).toBe(5);
    expect(last).toBe(await store.headPosition());
    expect(entries[2]).toMatchObject({
      actor: { user_id: 'user-1', project_id: 'project-1', system: null },
      request_id: 'req-1',
      data: { lease_id: 'lease-1' },
    });
  });

  it('filters by type in the store, and next_after moves to the head even when nothing matched, so the next page rescans nothing', async () => {
    const page = await feed.page(ADMIN, { after: 0, types: parseFeedTypes('host.booked,lease.deleted'), limit: 100 });
    expect(page.events.map((entry) => [entry.position, entry.type])).toEqual([
      [4, 'host.booked'],
      [7, 'host.booked'],
      [9, 'lease.deleted'],
    ]);
    const none = await feed.page(ADMIN, { after: 0, types: parseFeedTypes('flavor.added'), limit: 100 });
    expect(none).toEqual({ events: [], next_after: 9, atHead: true });
  });

  it('a full page ends at its last event, even when the next one would match', async () => {
    const page = await feed.page(ADMIN, { after: 0, types: parseFeedTypes('host.booked'), limit: 1 });
    expect(page).toMatchObject({ next_after: 4, atHead: false });
  });

  it("shows a member its own project's leases only: their events and bookings, a moved booking found by its reservation; no host, no other project", async () => {
    const projectOne = await readToHead(testCaller('member', 'project-1'), all(0, 1));
    expect(projectOne.entries.map((entry) => [entry.position, entry.type])).toEqual([
      [3, 'lease.created'],
      [4, 'host.booked'],
      [8, 'host.booking_moved'],
    ]);
    expect(projectOne.last).toBe(9);
    const projectTwo = await readToHead(testCaller('reader', 'project-2'), all());
    expect(projectTwo.entries.map((entry) => [entry.position, entry.type])).toEqual([
      [6, 'lease.created'],
      [7, 'host.booked'],
      [9, 'lease.deleted'],
    ]);
    expect(JSON.stringify(projectTwo.entries)).not.toContain('lease-1');
  });

  it('finds the owner of a lease created before the page starts (the index is not built from the page)', async () => {
    const page = await feed.page(testCaller('member', 'project-1'), all(4));
    expect(page.events.map((entry) => entry.position)).toEqual([8]);
  });

  it('refuses an unknown public type, naming it', () => {
    expect(() => parseFeedTypes('lease.created,lease.exploded')).toThrow('unknown event type lease.exploded');
    expect(() => parseFeedTypes('Lease.Created')).toThrow('unknown event type Lease.Created');
  });
});
