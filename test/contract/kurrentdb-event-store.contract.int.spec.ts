import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KurrentDbEventStore } from '#event-store/kurrentdb/kurrentdb-event-store.js';
import { eventStoreContract } from '#event-store/testing/event-store.contract.js';

/**
 * The KurrentDB event store against a real server (25.1 or later), only when
 * LEASEHOLD_TEST_KURRENTDB_URL names one (kurrentdb://127.0.0.1:2113?tls=false). No KurrentDB server
 * can be installed on the machines this project is built on: there, this file is skipped and the
 * adapter is covered only by its unit tests (libs/event-store/src/kurrentdb/*.spec.ts).
 */
const KURRENTDB_URL = process.env.LEASEHOLD_TEST_KURRENTDB_URL ?? '';

/** A prefix of its own per run: the server keeps everything, so each run must not see the last one's streams. */
const withPrefix = (url: string, prefix: string): string => `${url}${url.includes('?') ? '&' : '?'}prefix=${prefix}`;

describe.skipIf(KURRENTDB_URL === '')(
  'KurrentDbEventStore (needs LEASEHOLD_TEST_KURRENTDB_URL: no KurrentDB server can run on these machines)',
  () => {
    const prefix = `contract_${randomUUID().replaceAll('-', '')}`;

    eventStoreContract(
      'KurrentDbEventStore',
      async () => {
        const store = await KurrentDbEventStore.open({ url: withPrefix(KURRENTDB_URL, prefix), log: 'events', pollIntervalMs: 50 });
        return { store, cleanup: () => store.close() };
      },
      {
        storedIdsUnderHeldRevision:
          'KurrentDB has no index by event id: ids already stored are recognised only right after the expected revision, when the server refused it',
      },
    );

    it('keeps the two logs of one deployment apart', async () => {
      const url = withPrefix(KURRENTDB_URL, `${prefix}_logs`);
      const events = await KurrentDbEventStore.open({ url, log: 'events' });
      const audit = await KurrentDbEventStore.open({ url, log: 'audit' });
      try {
        await events.appendToStream('lease-1', 'no_stream', [
          { id: randomUUID(), type: 'Noted', data: {}, metadata: { correlationId: 'c', causationId: 'c', actor: null } },
        ]);
        expect(await audit.streamRevision('lease-1')).toBe(-1);
        expect(await audit.headPosition()).toBe(0);
        expect(await events.streamRevision('lease-1')).toBe(0);
      } finally {
        await events.close();
        await audit.close();
      }
    });
  },
);
