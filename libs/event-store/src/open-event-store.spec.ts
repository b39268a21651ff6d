import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventStoreUrlError, openEventStore } from './open-event-store.js';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';

describe('the event store a process opens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-open-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the embedded SQLite file of its log in the data folder when LEASEHOLD_EVENT_STORE_URL is unset', async () => {
    const store = await openEventStore('audit', dir, {});
    try {
      expect(store).toBeInstanceOf(SqliteEventStore);
      await store.appendToStream('audit-1', 'no_stream', [
        { id: 'e1', type: 'Noted', data: {}, metadata: { correlationId: 'c', causationId: 'c', actor: null } },
      ]);
      const reopened = SqliteEventStore.openReadOnly({ file: join(dir, 'audit.sqlite') });
      expect(await reopened.headPosition()).toBe(1);
      await reopened.close();
    } finally {
      await store.close();
    }
  });

  it.each([
    [
      'mysql://root:secret@db/leasehold',
      "LEASEHOLD_EVENT_STORE_URL must start with postgres://, postgresql://, kurrentdb:// or esdb:// (or be unset for the embedded store), got 'mysql:...'",
    ],
  ])('refuses %s at start, naming what it supports and never echoing a password', async (url, message) => {
    const opening = openEventStore('events', dir, { LEASEHOLD_EVENT_STORE_URL: url });
    await expect(opening).rejects.toBeInstanceOf(EventStoreUrlError);
    await expect(opening).rejects.toThrow(message);
    await expect(opening).rejects.not.toThrow(/secret/);
  });

  it.each(['kurrentdb://admin:secret@127.0.0.1:2113?tls=false&prefix=not-allowed', 'esdb://admin:secret@127.0.0.1:2113?prefix='])(
    'takes %s for KurrentDB and refuses its stream prefix before connecting, never echoing a password',
    async (url) => {
      const opening = openEventStore('events', dir, { LEASEHOLD_EVENT_STORE_URL: url });
      await expect(opening).rejects.toThrow('the prefix parameter must be 1 to 64 letters, digits or underscores');
      await expect(opening).rejects.not.toThrow(/secret/);
    },
  );
});
