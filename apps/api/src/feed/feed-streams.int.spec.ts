import { createHook } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/index.js';
import { EventFeed } from '#application/feed/event-feed.queries.js';
import { LeaseOwners } from '#application/feed/lease-owners.js';
import { LiveLog } from '#application/feed/live-log.js';
import { testCaller } from '#application/testing/application.specification.js';
import { SseClient } from '../../../../bench/sse-client.js';
import { FeedStreams } from './feed-streams.js';

const POLL_MS = 10;
const HEARTBEAT_MS = 50;

/**
 * The streams' own bookkeeping, in this process where its timers can be counted: a stream holds a
 * heartbeat timer and (through the LiveLog) the store's polling subscription; both must be gone once
 * the client leaves, or the server shuts down, whatever the stream was doing.
 */
describe('FeedStreams', () => {
  let dir: string;
  let store: SqliteEventStore;
  let streams: FeedStreams;
  let server: Server;
  let url: string;
  let ids = 0;

  const append = (leaseId: string) =>
    store.appendToStream(`lease-${leaseId}`, 'any', [
      {
        id: `e-${++ids}`,
        type: 'Lease.Deleted',
        data: { leaseId, at: '2030-01-01T00:00:00.000Z' },
        metadata: { correlationId: 'c', causationId: 'c', actor: null },
      },
    ]);

  /** Every live Timeout of the process by async id, with its delay (Node keeps it in `_idleTimeout`). */
  const timers = new Map<number, unknown>();
  const hook = createHook({
    init: (id, type, _trigger, resource) => {
      if (type === 'Timeout') timers.set(id, (resource as { _idleTimeout?: unknown })._idleTimeout);
    },
    destroy: (id) => timers.delete(id),
  });
  /** The feed's own timers, told apart by their delays: the store's polling (10 ms) and the heartbeat (HEARTBEAT_MS). */
  const feedTimers = (): number => [...timers.values()].filter((delay) => delay === POLL_MS || delay === HEARTBEAT_MS).length;

  const settled = async (): Promise<void> => {
    const deadline = performance.now() + 5_000;
    while (feedTimers() > 0 || streams.count > 0) {
      if (performance.now() > deadline) throw new Error(`${feedTimers()} feed timer(s) and ${streams.count} stream(s) left behind`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  beforeEach(async () => {
    hook.enable();
    timers.clear();
    dir = mkdtempSync(join(tmpdir(), 'leasehold-feed-'));
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite'), pollIntervalMs: POLL_MS });
    const owners = new LeaseOwners(store);
    streams = new FeedStreams(new EventFeed(store, owners), new LiveLog(store, owners, 100), {
      maxStreams: 4,
      maxStreamsPerTenant: 4,
      heartbeatMs: HEARTBEAT_MS,
    });
    server = createServer((_request, response) => {
      const reply = { raw: response, hijack: () => undefined, getHeaders: () => ({}) };
      void streams.serve(reply, testCaller('admin', 'admin-project'), { after: 0, types: null, limit: 100 });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await append('before');
  });

  afterEach(async () => {
    hook.disable();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('releases its timer and the log subscription when its clients leave, mid-wait or mid-heartbeat', async () => {
    const clients = await Promise.all([SseClient.open(url), SseClient.open(url)]);
    for (const client of clients) await client.waitFor((message) => message.id === '1');
    await append('live');
    for (const client of clients) await client.waitFor((message) => message.id === '2');
    await clients[0].waitForComments(1);
    expect(feedTimers(), 'an open stream holds its heartbeat and the polling').toBeGreaterThanOrEqual(2);
    for (const client of clients) client.close();
    await settled();
  });

  it('ends every stream when the server shuts down, and keeps nothing', async () => {
    const client = await SseClient.open(url);
    await client.waitFor((message) => message.id === '1');
    await streams.closeAll();
    await client.waitForEnd();
    await settled();
  });
});
