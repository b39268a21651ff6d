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
      await store.appendToStream('audit-1', 'no_stream', [{ id: 'e1', type: 'Noted', data: {}, metadata: { correlationId: 'c', causationId: 'c', actor: null } }]);
      const reopened = SqliteEventStore.openReadOnly({ file: join(dir, 'audit.sqlite') });
      expect(await reopened.headPosition()).toBe(1);
      await reopened.close();
    } finally {
      await store.close();
    }
  });

  it.each([
    ['kurrentdb://127.0.0.1:2113?tls=false', 'LEASEHOLD_EVENT_STORE_URL names a KurrentDB server: that adapter is not built yet (only postgres:// or the embedded default)'],
    ['esdb://127.0.0.1:2113', 'LEASEHOLD_EVENT_STORE_URL names a KurrentDB server: that adapter is not built yet (only postgres:// or the embedded default)'],
    ['mysql://root:secret@db/leasehold', "LEASEHOLD_EVENT_STORE_URL must start with postgres:// or postgresql:// (or be unset for the embedded store), got 'mysql:...'"],
  ])('refuses %s at start, naming what it supports and never echoing a password', async (url, message) => {
    const opening = openEventStore('events', dir, { LEASEHOLD_EVENT_STORE_URL: url });
    await expect(opening).rejects.toBeInstanceOf(EventStoreUrlError);
    await expect(opening).rejects.toThrow(message);
    await expect(opening).rejects.not.toThrow(/secret/);
  });
});
