import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EventData, type EventFilter, SqliteEventStore } from '#event-store/index.js';
import { OtherConnection, commitBeforeIndexRun } from '#event-store/testing/sqlite-interleaving.js';

const anEvent = (type: string): EventData => ({
  id: crypto.randomUUID(),
  type,
  data: {},
  metadata: { correlationId: 'c', causationId: 'c', actor: null },
});

/**
 * A page of readAll is where a reader resumes from (its last position): it must hold every matching
 * event up to that position. A filter on several values is read one index run per value; another
 * process committing between those runs must not leave a hole below the page's end.
 */
describe('SqliteEventStore pages filtered on several values while another process commits', () => {
  let dir: string;
  let store: SqliteEventStore;
  let other: OtherConnection;
  let unhook = (): void => undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leasehold-es-pages-'));
    const file = join(dir, 'events.sqlite');
    store = SqliteEventStore.open({ file });
    other = new OtherConnection(file);
    await store.appendToStream('lease-1', 'no_stream', [anEvent('Lease.Created')]);
  });

  afterEach(async () => {
    unhook();
    other.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each<[string, EventFilter, string]>([
    ['categories', { categories: ['lease', 'quota'] }, 'quota'],
    ['types', { types: ['Lease.Created', 'Quota.LeaseAdmitted'] }, 'Quota.LeaseAdmitted'],
  ])(
    'Given a filter on two %s, When a commit of both lands between their index runs, Then the page leaves no hole',
    async (_, filter, second) => {
      // a lease and its quota fence, in one append as an admission writes them: the fence after the lease
      unhook = commitBeforeIndexRun(second, () =>
        other.append([
          { streamId: 'lease-2', expectedRevision: 'no_stream', events: [anEvent('Lease.Created')] },
          { streamId: 'quota-p', expectedRevision: 'no_stream', events: [anEvent('Quota.LeaseAdmitted')] },
        ]),
      );
      const page = await store.readAll({ from: 0, limit: 100, filter });
      unhook();
      const end = page.at(-1)?.position ?? 0;
      const all = await store.readAll({ from: 0, filter });
      expect(all.map((e) => e.streamId)).toEqual(['lease-1', 'lease-2', 'quota-p']);
      expect(page.map((e) => e.position)).toEqual(all.filter((e) => e.position <= end).map((e) => e.position));
      const next = await store.readAll({ from: end, limit: 100, filter });
      expect([...page, ...next].map((e) => e.streamId)).toEqual(['lease-1', 'lease-2', 'quota-p']);
    },
  );
});
