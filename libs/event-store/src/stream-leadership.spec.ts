import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';
import { streamLeadership, type StreamLeadership } from './stream-leadership.js';

/** The lease election KurrentDB uses, over the real embedded store: two stores on one file stand for two processes. */
const LEASE_MS = 600;
const STREAM = 'leadership-reactor';

const until = async (condition: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('leadership as a lease in a stream', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-leadership-'));
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const openStore = (name: string): SqliteEventStore => {
    const store = SqliteEventStore.open({ file: join(dir, `${name}.sqlite`), pollIntervalMs: 5 });
    cleanups.push(() => store.close());
    return store;
  };

  const contend = (store: SqliteEventStore, signal?: AbortSignal) => {
    const seen = { standby: false, leading: null as StreamLeadership | null, lost: [] as string[] };
    const taking = streamLeadership({
      store,
      role: 'reactor',
      leaseMs: LEASE_MS,
      retryMs: 10,
      onStandby: () => (seen.standby = true),
      ...(signal ? { signal } : {}),
    }).then((leadership) => {
      leadership.onLost((reason) => seen.lost.push(reason));
      seen.leading = leadership;
      return leadership;
    });
    taking.catch(() => undefined);
    return { seen, taking };
  };

  it('lets one of two contenders lead while it renews, and the other take over as soon as it releases', async () => {
    const [one, two] = [openStore('release'), openStore('release')];
    const first = contend(one);
    const leader = await first.taking;
    const second = contend(two);
    await until(() => second.seen.standby);
    // claim at 0, then renewals: past revision 4 more than a whole lease has gone by
    await until(async () => (await one.streamRevision(STREAM)) >= 4);
    expect(second.seen.leading).toBeNull();
    expect(first.seen.lost).toEqual([]);
    await leader.release();
    const next = await second.taking;
    const types = (await two.readStream(STREAM)).map((event) => event.type);
    expect(types.at(0)).toBe('Leadership.Claimed');
    expect(types.slice(-2)).toEqual(['Leadership.Released', 'Leadership.Claimed']);
    await next.release();
  });

  it('of four contenders claiming at once, exactly one leads', async () => {
    const stop = new AbortController();
    const contenders = [0, 1, 2, 3].map(() => contend(openStore('race'), stop.signal));
    await until(
      () =>
        contenders.filter((contender) => contender.seen.leading !== null).length === 1 &&
        contenders.filter((contender) => contender.seen.standby).length === 3,
    );
    const store = openStore('race');
    await until(async () => (await store.streamRevision(STREAM)) >= 4);
    expect(contenders.filter((contender) => contender.seen.leading !== null)).toHaveLength(1);
    stop.abort();
    for (const contender of contenders) await contender.seen.leading?.release();
  });

  it('tells a holder whose renewal is refused that another process took the leadership', async () => {
    const [one, other] = [openStore('deposed'), openStore('deposed')];
    const first = contend(one);
    await first.taking;
    // a claim on the revision the holder last wrote, as a contender whose clock ran ahead would make
    const revision = await other.streamRevision(STREAM);
    await other.appendToStream(STREAM, revision, [
      {
        id: 'usurper',
        type: 'Leadership.Claimed',
        data: { holder: 'other', until: new Date(Date.now() + 60_000).toISOString() },
        metadata: { correlationId: 'c', causationId: 'c', actor: null },
      },
    ]);
    await until(() => first.seen.lost.length > 0);
    expect(first.seen.lost).toEqual(['another process took the leadership']);
  });

  it('makes a holder that cannot renew give up before its lease runs out, and the next one claim only after it has', async () => {
    const lonely = SqliteEventStore.open({ file: join(dir, 'expiry.sqlite'), pollIntervalMs: 5 });
    const watcher = openStore('expiry');
    const first = contend(lonely);
    await first.taking;
    const lostAt: number[] = [];
    first.seen.leading?.onLost(() => lostAt.push(Date.now()));
    await lonely.close();
    const second = contend(watcher);
    await until(() => lostAt.length > 0);
    const next = await second.taking;
    const events = await watcher.readStream(STREAM);
    const claim = events.at(-1);
    const lastLease = events.at(-2)?.data as { readonly until: string };
    expect(claim?.type).toBe('Leadership.Claimed');
    expect(Date.parse(claim?.recordedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(lastLease.until));
    expect(lostAt[0]).toBeLessThan(Date.parse(lastLease.until));
    await next.release();
  });

  it('gives the lease up a third of it before it expires even when the clock reads a moment behind the renewal timer', async () => {
    // Node's timers run on a monotonic clock and the lease on the wall clock: here the wall clock reads
    // 1 ms behind from the claim on, so no renewal tick ever finds the lease within its last third in time
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
    const store = SqliteEventStore.open({ file: join(dir, 'skew.sqlite') });
    try {
      let behindMs = 0;
      const leading = await streamLeadership({ store, role: 'reactor', leaseMs: LEASE_MS, clock: () => new Date(Date.now() - behindMs) });
      const claimed = Date.now();
      const lostAt: number[] = [];
      leading.onLost(() => lostAt.push(Date.now()));
      // the store is unreachable from now on: no renewal succeeds
      vi.spyOn(store, 'appendToStream').mockRejectedValue(new Error('the store is unreachable'));
      behindMs = 1;
      await vi.advanceTimersByTimeAsync(LEASE_MS + 100);
      expect(lostAt).toEqual([claimed + LEASE_MS - LEASE_MS / 3]);
    } finally {
      vi.useRealTimers();
      vi.restoreAllMocks();
      await store.close();
    }
  });
});
