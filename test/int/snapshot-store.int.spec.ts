import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '#event-store/postgresql/postgresql-event-store.js';
import { PostgresSnapshotStore } from '#event-store/snapshots/postgresql-snapshot-store.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import { SqliteSnapshotStore } from '#event-store/snapshots/sqlite-snapshot-store.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { createTestDatabase } from '../helpers/pg-database.js';

interface Backend {
  /** A new store at the same place each call (a process starting again). */
  open(): Promise<SnapshotStore>;
  cleanup(): Promise<void>;
}

const snapshotStoreContract = (backend: () => Promise<Backend>): void => {
  let place: Backend;
  const opened: SnapshotStore[] = [];
  const open = async (): Promise<SnapshotStore> => {
    const store = await place.open();
    opened.push(store);
    return store;
  };

  beforeEach(async () => {
    place = await backend();
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await place.cleanup();
  });

  it('has none of a kind never written', async () => {
    expect(await (await open()).load('write-index', 1)).toBeNull();
  });

  it('hands back what was saved, to another process opening the same store', async () => {
    await (await open()).save({ kind: 'write-index', schemaVersion: 1, position: 42, payload: '{"a":[1,2]}' });
    expect(await (await open()).load('write-index', 1)).toEqual({
      kind: 'write-index',
      schemaVersion: 1,
      position: 42,
      payload: '{"a":[1,2]}',
    });
  });

  it('keeps the later position when an earlier one is saved after it (a slower process)', async () => {
    const store = await open();
    await store.save({ kind: 'timeline', schemaVersion: 1, position: 10, payload: 'ten' });
    await store.save({ kind: 'timeline', schemaVersion: 1, position: 7, payload: 'seven' });
    expect((await store.load('timeline', 1))?.payload).toBe('ten');
    await store.save({ kind: 'timeline', schemaVersion: 1, position: 12, payload: 'twelve' });
    expect((await store.load('timeline', 1))?.payload).toBe('twelve');
  });

  it('keeps each kind and schema version apart: a version is never read as another', async () => {
    const store = await open();
    await store.save({ kind: 'timeline', schemaVersion: 1, position: 5, payload: 'old shape' });
    await store.save({ kind: 'timeline', schemaVersion: 2, position: 3, payload: 'new shape' });
    await store.save({ kind: 'write-index', schemaVersion: 1, position: 9, payload: 'index' });
    expect((await store.load('timeline', 1))?.payload).toBe('old shape');
    expect((await store.load('timeline', 2))?.payload).toBe('new shape');
    expect(await store.load('timeline', 3)).toBeNull();
    expect((await store.load('write-index', 1))?.payload).toBe('index');
  });
};

describe('snapshot store on SQLite (the event store file)', () => {
  snapshotStoreContract(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapshots-'));
    const file = join(dir, 'events.sqlite');
    // the log is there first, as in a deployment: the table is added to its file
    await SqliteEventStore.open({ file }).close();
    return {
      open: () => Promise.resolve(SqliteSnapshotStore.open(file)),
      cleanup: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    };
  });
});

const PG_URL = process.env.LEASEHOLD_TEST_PG_URL;

describe.skipIf(PG_URL === undefined || PG_URL === '')('snapshot store on PostgreSQL (the event store schema)', () => {
  snapshotStoreContract(async () => {
    const database = await createTestDatabase(PG_URL as string, 'leasehold_snapshots');
    const url = `${database.url}?schema=snapshots_test`;
    return { open: () => PostgresSnapshotStore.open(url), cleanup: () => database.drop() };
  });
});

describe.skipIf(PG_URL === undefined || PG_URL === '')(
  'the snapshot store and the event store opening a fresh PostgreSQL schema at once',
  () => {
    it('both make their tables, however their processes interleave (CREATE SCHEMA under one lock)', async () => {
      const database = await createTestDatabase(PG_URL as string, 'leasehold_snapshots_race');
      try {
        for (let round = 0; round < 8; round++) {
          const url = `${database.url}?schema=race_${round}`;
          const [events, snapshots, again] = await Promise.all([
            PostgresEventStore.open({ url }),
            PostgresSnapshotStore.open(url),
            PostgresSnapshotStore.open(url),
          ]);
          await snapshots.save({ kind: 'write-index', schemaVersion: 1, position: 1, payload: '{}' });
          expect((await again.load('write-index', 1))?.position).toBe(1);
          expect(await events.headPosition()).toBe(0);
          await Promise.all([events.close(), snapshots.close(), again.close()]);
        }
      } finally {
        await database.drop();
      }
    }, 60_000);
  },
);
