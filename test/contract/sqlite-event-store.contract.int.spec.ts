import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/index.js';
import type { EventData, RecordedEvent } from '#event-store/index.js';
import { encodeStoredText } from '#event-store/stored-text.js';
import { eventStoreContract, waitFor } from '#event-store/testing/event-store.contract.js';

async function tempStoreFile(): Promise<{ readonly file: string; readonly dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'leasehold-es-'));
  return { dir, file: join(dir, 'nested', 'events.db') };
}

eventStoreContract('SqliteEventStore (file)', async () => {
  const { dir, file } = await tempStoreFile();
  const store = SqliteEventStore.open({ file, pollIntervalMs: 5 });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
    storeAtVersion: (eventId, version) => {
      const db = new Database(file);
      try {
        db.prepare('UPDATE events SET schema_version = ? WHERE event_id = ?').run(version, encodeStoredText(eventId));
      } finally {
        db.close();
      }
      return Promise.resolve();
    },
  };
});

eventStoreContract('SqliteEventStore (:memory:)', async () => {
  const store = SqliteEventStore.open({ file: ':memory:' });
  return { store, cleanup: () => store.close() };
});

const anEvent = (): EventData => ({
  id: crypto.randomUUID(),
  type: 'Noted',
  data: {},
  metadata: { correlationId: 'c', causationId: 'c', actor: null },
});

describe('SqliteEventStore specifics', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });

  const openOnTempFile = async (clock?: () => Date): Promise<{ readonly file: string; readonly store: SqliteEventStore }> => {
    const { dir, file } = await tempStoreFile();
    const store = SqliteEventStore.open({ file, pollIntervalMs: 5, ...(clock ? { clock } : {}) });
    cleanups.push(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });
    return { file, store };
  };

  it('stamps recordedAt with the injected clock', async () => {
    const { store } = await openOnTempFile(() => new Date('2030-01-02T03:04:05.678+02:00'));
    await store.appendToStream('lease-1', 'no_stream', [anEvent()]);
    const [recorded] = await store.readStream('lease-1');
    expect(recorded?.recordedAt).toBe('2030-01-02T01:04:05.678Z');
  });

  it('maps an instant to the newest position recorded at or before it, the later reading when the clock stepped back', async () => {
    const times = ['2030-01-01T00:00:01.000Z', '2030-01-01T00:00:02.000Z', '2030-01-01T00:00:00.500Z', '2030-01-01T00:00:03.000Z'];
    let next = 0;
    const { store } = await openOnTempFile(() => new Date(times[next++] ?? ''));
    for (const _ of times) await store.appendToStream('lease-1', 'any', [anEvent()]);
    expect(await store.positionAt('2030-01-01T00:00:00.499Z')).toBe(0);
    // 00:00:00.500 was read twice by the clock (before 1 and 2, and after the step): the later reading counts
    expect(await store.positionAt('2030-01-01T00:00:00.500Z')).toBe(3);
    expect(await store.positionAt('2030-01-01T00:00:02.999Z')).toBe(3);
    expect(await store.positionAt('2030-01-01T00:00:03.000Z')).toBe(4);
  });

  it('keeps events across reopening the file', async () => {
    const { file, store } = await openOnTempFile();
    await store.appendToStream('host-1', 'no_stream', [anEvent(), anEvent()]);
    const reopened = SqliteEventStore.open({ file });
    cleanups.push(() => reopened.close());
    expect(await reopened.streamRevision('host-1')).toBe(1);
    expect(await reopened.headPosition()).toBe(2);
  });

  it('delivers live events appended through another connection to the same file', async () => {
    const { file, store } = await openOnTempFile();
    const writer = SqliteEventStore.open({ file });
    cleanups.push(() => writer.close());
    const received: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({ from: 0, onEvents: async (events) => void received.push(...events) });
    await subscription.caughtUp;
    await writer.appendToStream('lease-9', 'no_stream', [anEvent()]);
    await writer.appendToStream('lease-9', 0, [anEvent()]);
    await waitFor(() => received.length >= 2);
    expect(received.map((e) => e.revision)).toEqual([0, 1]);
    await subscription.stop();
  });

  it('stops its subscriptions on close: they deliver nothing after it and do not fail on the closed connection', async () => {
    const { file, store } = await openOnTempFile();
    await store.appendToStream('lease-1', 'no_stream', [anEvent()]);
    const delivered: number[] = [];
    const errors: unknown[] = [];
    const subscription = store.subscribeToAll({
      from: 0,
      onEvents: async (events) => void delivered.push(...events.map((e) => e.position)),
      onError: (error) => void errors.push(error),
    });
    await waitFor(() => delivered.length === 1);
    await store.close();

    // the next event, appended through another connection, reaches a live subscription there but not the closed store's
    const writer = SqliteEventStore.open({ file, pollIntervalMs: 5 });
    cleanups.push(() => writer.close());
    await writer.appendToStream('lease-1', 0, [anEvent()]);
    const witnessed: number[] = [];
    const witness = writer.subscribeToAll({ from: 1, onEvents: async (events) => void witnessed.push(...events.map((e) => e.position)) });
    await waitFor(() => witnessed.length === 1);
    await witness.stop();
    await expect(subscription.stop()).resolves.toBeUndefined();
    expect(witnessed).toEqual([2]);
    expect(delivered).toEqual([1]);
    expect(errors).toEqual([]);
  });
});
