import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore, type EventData, type RecordedEvent, WrongExpectedRevisionError } from '#event-store/index.js';
import { eventStoreContract, waitFor } from '#event-store/testing/event-store.contract.js';
import { encodeStoredText } from '#event-store/stored-text.js';
import { type TestDatabase, createTestDatabase } from '../helpers/pg-database.js';
import { queryPostgres } from '../helpers/postgres.js';

/**
 * The PostgreSQL event store: the contract every adapter passes, then what only several writers on one
 * server can show: positions gap-free and visible in their order, whatever the writers' interleaving,
 * so a subscriber reading up to the head never skips an event that commits later.
 */
const PG_URL = process.env.LEASEHOLD_TEST_PG_URL ?? '';

const anEvent = (n = 0): EventData => ({
  id: randomUUID(),
  type: 'Noted',
  data: { n },
  metadata: { correlationId: 'c', causationId: 'c', actor: null },
});

const withSchema = (url: string, schema: string): string => {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', schema);
  return parsed.toString();
};

describe.skipIf(PG_URL === '')('PostgresEventStore', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(PG_URL, 'leasehold_es');
  });
  afterAll(async () => {
    await database?.drop();
  });

  describe('shared contract', () => {
    eventStoreContract('PostgresEventStore', async () => {
      const store = await PostgresEventStore.open({ url: withSchema(database.url, 'contract'), pollIntervalMs: 50 });
      return {
        store,
        cleanup: () => store.close(),
        storeAtVersion: async (eventId, version) => {
          await queryPostgres(database.url, 'UPDATE contract.events SET schema_version = $1 WHERE event_id = $2', [
            version,
            encodeStoredText(eventId),
          ]);
        },
      };
    });
  });

  const open = async (schema: string, pollIntervalMs = 50): Promise<PostgresEventStore> =>
    PostgresEventStore.open({ url: withSchema(database.url, schema), pollIntervalMs });

  it('refuses a schema name it would have to quote', async () => {
    await expect(PostgresEventStore.open({ url: withSchema(database.url, 'x; drop table y') })).rejects.toThrow(/schema must match/);
  });

  it('sixteen writers in two processes-worth of pools append at once: positions 1..N without a gap, each subscriber gets every event once in order', async () => {
    const writers = [await open('race'), await open('race')];
    const reader = await open('race');
    const received: RecordedEvent[][] = [[], [], []];
    const subscriptions = [reader, writers[0], writers[1]].map((store, i) =>
      (store as PostgresEventStore).subscribeToAll({ from: 0, onEvents: async (events) => void received[i]?.push(...events) }),
    );
    try {
      const appends = Array.from({ length: 16 }, async (_, client) => {
        const store = writers[client % 2] as PostgresEventStore;
        for (let n = 0; n < 20; n++) await store.appendToStream(`race-${client}`, 'any', [anEvent(n), anEvent(n)]);
      });
      await Promise.all(appends);
      const total = 16 * 20 * 2;
      await waitFor(() => received.every((events) => events.length >= total), 30_000);
      const expected = Array.from({ length: total }, (_, i) => i + 1);
      for (const events of received) expect(events.map((event) => event.position)).toEqual(expected);
      expect((await reader.readAll({ from: 0 })).map((event) => event.position)).toEqual(expected);
      for (let client = 0; client < 16; client++) expect(await reader.streamRevision(`race-${client}`)).toBe(39);
    } finally {
      for (const subscription of subscriptions) await subscription.stop();
      for (const store of [...writers, reader]) await store.close();
    }
  });

  it("an append waiting behind a slow writer's open transaction gets the next position, and no subscriber sees it before the slow one commits", async () => {
    const store = await open('slow');
    await store.appendToStream('slow-0', 'no_stream', [anEvent()]);
    const seen: number[] = [];
    const subscription = store.subscribeToAll({
      from: 0,
      onEvents: async (events) => void seen.push(...events.map((event) => event.position)),
    });
    await subscription.caughtUp;
    // a writer in the middle of its append: it holds the store's lock and has written position 2, uncommitted
    const slow = new pg.Client({ connectionString: database.url });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      await slow.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['leasehold-append:slow']);
      await slow.query(
        `INSERT INTO slow.events (position, event_id, stream_id, category, revision, type, data, metadata, recorded_at)
         VALUES (2, $1, 'slow-1', 'slow', 0, 'Noted', '{}', '{"correlationId":"c","causationId":"c","actor":null}', $2)`,
        [randomUUID(), new Date().toISOString()],
      );
      await slow.query(`INSERT INTO slow.streams (stream_id, revision) VALUES ('slow-1', 0)`);
      const fast = store.appendToStream('slow-2', 'no_stream', [anEvent()]);
      // the fast append cannot commit while the slow one is open: nothing new becomes visible
      await expect(
        Promise.race([fast.then(() => 'committed'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 500))]),
      ).resolves.toBe('waiting');
      expect(seen).toEqual([1]);
      expect(await store.headPosition()).toBe(1);
      await slow.query('COMMIT');
      expect((await fast).position).toBe(3);
      await waitFor(() => seen.length === 3);
      expect(seen).toEqual([1, 2, 3]);
    } finally {
      await slow.end();
      await subscription.stop();
      await store.close();
    }
  });

  it("hears another process's append through NOTIFY long before its polling fallback would", async () => {
    const listening = await open('notify', 60_000);
    const writer = await open('notify', 60_000);
    const seen: RecordedEvent[] = [];
    const subscription = listening.subscribeToAll({ from: 0, onEvents: async (events) => void seen.push(...events) });
    try {
      await subscription.caughtUp;
      await writer.appendToStream('notify-1', 'no_stream', [anEvent()]);
      // a poll interval of a minute: only the notification can deliver it within the wait
      await waitFor(() => seen.length === 1, 10_000);
      expect(seen[0]?.streamId).toBe('notify-1');
    } finally {
      await subscription.stop();
      await listening.close();
      await writer.close();
    }
  });

  it('keeps the expected-revision check across processes: of two writers racing on one stream revision, one wins', async () => {
    const [a, b] = [await open('cas'), await open('cas')];
    try {
      await a.appendToStream('cas-1', 'no_stream', [anEvent()]);
      const results = await Promise.allSettled([a.appendToStream('cas-1', 0, [anEvent()]), b.appendToStream('cas-1', 0, [anEvent()])]);
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const refused = results.find((result) => result.status === 'rejected');
      expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await a.streamRevision('cas-1')).toBe(1);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
