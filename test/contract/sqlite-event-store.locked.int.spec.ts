import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EventData, SqliteEventStore } from '#event-store/index.js';
import { BUSY_TIMEOUT_MS } from '#event-store/sqlite/busy-retry.js';

const anEvent = (): EventData => ({
  id: crypto.randomUUID(),
  type: 'Noted',
  data: {},
  metadata: { correlationId: 'c', causationId: 'c', actor: null },
});

/** Counts the turns of the event loop (every 10 ms while it is free) until stopped. */
const ticker = (): { readonly count: () => number; readonly stop: () => void } => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  return { count: () => ticks, stop: () => clearInterval(timer) };
};

/**
 * Another process (here another connection) holding the log's write lock: SQLite's own wait blocks
 * the whole process, so the store waits in short slices with async pauses between them. The process
 * keeps answering meanwhile (probes, reads), and gives up after the busy timeout in all.
 */
describe('SqliteEventStore while another connection holds the write lock', () => {
  let dir: string;
  let file: string;
  let store: SqliteEventStore;
  let holder: Database.Database;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leasehold-es-lock-'));
    file = join(dir, 'events.sqlite');
    store = SqliteEventStore.open({ file });
    holder = new Database(file);
    holder.exec('begin immediate');
  });

  afterEach(async () => {
    if (holder.inTransaction) holder.exec('rollback');
    holder.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the event loop turning while an append waits, and appends once the lock is released', async () => {
    const loop = ticker();
    // released from a timer set before the append: a wait that blocked the process would hold it back
    const released = new Promise<number>((resolve) =>
      setTimeout(() => {
        holder.exec('commit');
        resolve(loop.count());
      }, 300),
    );
    const appended = store.appendToStream('s-1', 'no_stream', [anEvent()]);
    const [result, ticksWhileLocked] = await Promise.all([appended, released]);
    loop.stop();
    expect(result.position).toBe(1);
    expect(ticksWhileLocked).toBeGreaterThanOrEqual(3);
    expect(await store.readStream('s-1')).toHaveLength(1);
  });

  it('opens again while the lock is held (a process restarted meanwhile starts), and reads', async () => {
    const again = SqliteEventStore.open({ file });
    try {
      expect(await again.headPosition()).toBe(0);
    } finally {
      await again.close();
    }
  }, 20_000);

  it(`fails with SQLITE_BUSY once the lock has been held for the busy timeout (${BUSY_TIMEOUT_MS} ms), reads going on meanwhile`, async () => {
    const loop = ticker();
    const started = performance.now();
    const failed = store.appendToStream('s-1', 'no_stream', [anEvent()]).then(
      () => null,
      (error: unknown) => error,
    );
    const headWhileLocked = await store.headPosition();
    const error = await failed;
    const waited = performance.now() - started;
    loop.stop();
    expect(error).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(headWhileLocked).toBe(0);
    expect(waited).toBeGreaterThanOrEqual(BUSY_TIMEOUT_MS);
    // the loop kept turning through the wait: at least a tick every half second
    expect(loop.count()).toBeGreaterThanOrEqual(BUSY_TIMEOUT_MS / 500);
    holder.exec('rollback');
    expect((await store.appendToStream('s-1', 'no_stream', [anEvent()])).position).toBe(1);
  }, 20_000);
});
