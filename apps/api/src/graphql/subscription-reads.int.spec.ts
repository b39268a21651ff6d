import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request } from '../http/exchange.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { created, reservation } from '#domain/lease/testing/lease.fixtures.js';
import type { EventMetadata, EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { EventFeed } from '#application/feed/event-feed.queries.js';
import { LeaseOwners } from '#application/feed/lease-owners.js';
import { LiveLog } from '#application/feed/live-log.js';
import { HistoryQueries } from '#application/history/history.queries.js';
import { testCaller } from '#application/testing/application.specification.js';
import { loadApiConfig } from '../config.js';
import { SubscriptionSlots } from './subscription-slots.js';
import { SubscriptionResolver } from './subscription.resolver.js';

const USER: EventMetadata = { correlationId: 'c', causationId: 'c', actor: { userId: 'user-1', projectId: 'project-1' } };
const HOLD = { startDate: '2030-01-01T10:00:00.000Z', endDate: '2030-01-01T18:00:00.000Z', propertyNames: [] };
/** A lease with a long history (renamed many times) and a booking on a host other leases share. */
const HISTORY = 200;
const APPENDS = 10;
const LEASE = '5b0e7a52-3c1d-4f7e-9a51-0c6f1d2e8b41';

interface Reads {
  /** Calls that read the log (a stream, a range of it, its head). */
  readonly calls: number;
  /** Events those calls returned. */
  readonly events: number;
}

/** The real store, counting the reads that history and feed queries make of it (the live watch reads through its own source). */
const countingReads = (store: EventStore): { store: EventStore; reads: () => Reads } => {
  let calls = 0;
  let events = 0;
  const counted = new Set(['readStream', 'readAll', 'headPosition']);
  const proxy = new Proxy(store, {
    get: (target, name, receiver) => {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || !counted.has(String(name))) return value;
      return async (...args: unknown[]) => {
        calls++;
        const result: unknown = await (value as (...parameters: unknown[]) => Promise<unknown>).apply(target, args);
        if (Array.isArray(result)) events += result.length;
        return result;
      };
    },
  });
  return { store: proxy, reads: () => ({ calls, events }) };
};

/**
 * What subscribers cost the log: N subscriptions to one busy lease read its history once each (the
 * catch-up), then nothing more per subscriber as events are appended, whatever the history's length.
 */
describe('leaseEvents subscriptions', () => {
  let dir: string;
  let raw: SqliteEventStore;
  let ids = 0;

  const append = (streamId: string, type: string, data: unknown): Promise<unknown> =>
    raw.appendToStream(streamId, 'any', [{ id: `e-${++ids}`, type, data, metadata: USER }]);
  const rename = (n: number): Promise<unknown> =>
    append(`lease-${LEASE}`, 'Lease.Renamed', { leaseId: LEASE, name: `name-${n}`, renamedAt: HOLD.startDate });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-subscription-reads-'));
    // polling far apart: the appends of this process wake the watch at once, so every read counted is a subscriber's
    raw = SqliteEventStore.open({ file: join(dir, 'events.sqlite'), pollIntervalMs: 60_000 });
    await append(`lease-${LEASE}`, 'Lease.Created', created({ leaseId: LEASE, reservations: [reservation('res-1')] }).data);
    await append('host-7', 'Host.Booked', { hostId: '7', reservationId: 'res-1', leaseId: LEASE, ...HOLD });
    for (let n = 0; n < HISTORY; n++) await rename(n);
  });

  afterEach(async () => {
    await raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Reads of the store made while `APPENDS` events are appended and delivered to each of `subscribers` subscriptions. */
  const readsWhileAppending = async (subscribers: number): Promise<{ history: number; catchUp: Reads; live: Reads }> => {
    const { store, reads } = countingReads(raw);
    const owners = new LeaseOwners(store);
    const slots = new SubscriptionSlots(loadApiConfig({ LEASEHOLD_GRAPHQL_WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: '50' }));
    const resolver = new SubscriptionResolver(
      new HistoryQueries(store),
      new EventFeed(store, owners),
      new LiveLog(store, owners, 1000),
      store,
      slots,
    );
    const context = { req: { leasehold: { caller: testCaller('member', 'project-1') } } as unknown as Request };
    const streams = await Promise.all(Array.from({ length: subscribers }, () => resolver.leaseEvents(context, LEASE, null, null)));
    /** Every stream's events up to the log's head; how many the first one received. */
    const receive = async (): Promise<number> => {
      const head = await raw.headPosition();
      const received = await Promise.all(
        streams.map(async (stream) => {
          let count = 0;
          for (let position = 0; position < head; count++) {
            const next = await stream.next();
            position = (next.value as { leaseEvents: { position: number } }).leaseEvents.position;
          }
          return count;
        }),
      );
      return received[0] ?? 0;
    };
    const history = await receive();
    const catchUp = reads();
    for (let n = 0; n < APPENDS; n++) {
      await rename(HISTORY + n);
      await receive();
    }
    const after = reads();
    const live = { calls: after.calls - catchUp.calls, events: after.events - catchUp.events };
    for (const stream of streams) await stream.return?.();
    return { history, catchUp, live };
  };

  it('read the log a number of times that does not grow with the subscribers, once caught up', async () => {
    const one = await readsWhileAppending(1);
    const fifty = await readsWhileAppending(50);
    // each subscriber reads the lease's history once to catch up
    expect(fifty.catchUp.events).toBeLessThanOrEqual(50 * fifty.history);
    const figures = `for ${APPENDS} appends, 1 subscriber: ${JSON.stringify(one.live)}, 50 subscribers: ${JSON.stringify(fifty.live)}`;
    expect(fifty.live.calls, figures).toBeLessThanOrEqual(one.live.calls + APPENDS);
    expect(fifty.live.events, figures).toBeLessThanOrEqual(one.live.events + APPENDS);
  });
});
