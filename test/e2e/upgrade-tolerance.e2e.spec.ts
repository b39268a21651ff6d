/**
 * docs/upgrades.md's rule, what an older release does with what a newer one wrote: an event type it
 * does not know, in the streams it folds and in a category of its own, is passed over by the API
 * (its aggregates and write index), the projector and the reactor; a field it does not know is
 * ignored, the event folds as without it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { EventData } from '#event-store/event-store.port.js';
import { READ_MODEL_SCHEMA_VERSION, SCHEMA_VERSION_CHECKPOINT } from '#read-model/index.js';
import { pinnedHost } from '../helpers/api-fixtures.js';
import { api, blazarDate } from '../helpers/http.js';
import { type Client, describeBody } from '../helpers/lease-client.js';
import { ledgerFile } from '../helpers/ledger-replay.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const HOST = 'upgrade-host';

const fromTheFuture = (id: string, type: string, data: unknown): EventData => ({
  id,
  type,
  data,
  metadata: { correlationId: id, causationId: id, actor: null },
});

describe('an older release meets what a newer one wrote (api + projector + reactor)', () => {
  let system: RunningSystem;
  let client: Client;
  let hostId: string;

  const leaseOf = async (leaseId: string): Promise<Record<string, unknown>> => {
    const response = await client.get(`/v1/leases/${leaseId}`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.lease as Record<string, unknown>;
  };

  const createLease = async (name: string, host = HOST): Promise<string> => {
    const created = await client.post('/v1/leases', {
      name,
      start_date: 'now',
      end_date: blazarDate(120),
      reservations: [pinnedHost(host)],
    });
    expect(created.status, describeBody(created)).toBe(201);
    return created.body.lease.id as string;
  };

  const appendFromTheFuture = async (streamId: string, events: readonly EventData[]): Promise<void> => {
    const store = SqliteEventStore.open({ file: ledgerFile(system.dataDir) });
    try {
      await store.appendToStream(streamId, 'any', events);
    } finally {
      await store.close();
    }
  };

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
    const host = await client.post('/v1/os-hosts', { name: HOST });
    expect(host.status, describeBody(host)).toBe(201);
    hostId = host.body.host.id as string;
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('passes over unknown event types in a lease, a host and a category of their own', async () => {
    const first = await createLease('before-the-upgrade');
    await eventually(async () => ((await leaseOf(first)).status === 'ACTIVE' ? true : undefined), 30_000, 'the first lease to start');

    await appendFromTheFuture(`lease-${first}`, [fromTheFuture('future-lease', 'Lease.Annotated', { leaseId: first, note: 'from N+1' })]);
    await appendFromTheFuture(`host-${hostId}`, [fromTheFuture('future-host', 'Host.Certified', { hostId, level: 3 })]);
    await appendFromTheFuture('gadget-1', [fromTheFuture('future-gadget', 'Gadget.Built', { gadgetId: '1' })]);

    const renamed = await client.put(`/v1/leases/${first}`, { name: 'after-the-upgrade' });
    expect(renamed.status, describeBody(renamed)).toBe(200);
    const ended = await client.put(`/v1/leases/${first}`, { end_date: 'now' });
    expect(ended.status, describeBody(ended)).toBe(200);
    await eventually(async () => ((await leaseOf(first)).status === 'TERMINATED' ? true : undefined), 30_000, 'the reactor to end it');
    expect((await leaseOf(first)).name).toBe('after-the-upgrade');

    const second = await createLease('on-the-same-host');
    const active = await eventually(
      async () => {
        const lease = await leaseOf(second);
        return lease.status === 'ACTIVE' ? lease : undefined;
      },
      30_000,
      'the second lease to start on the host',
    );
    expect(active.name).toBe('on-the-same-host');
    expect(system.output()).not.toMatch(/could not project|poison|TypeError/i);
  });

  it('folds an event with a field it does not know as without it', async () => {
    const other = await client.post('/v1/os-hosts', { name: `${HOST}-2` });
    expect(other.status, describeBody(other)).toBe(201);
    const lease = await createLease('renamed-by-the-future', `${HOST}-2`);
    await appendFromTheFuture(`lease-${lease}`, [
      fromTheFuture('future-rename', 'Lease.Renamed', {
        leaseId: lease,
        name: 'named-by-the-future',
        renamedAt: new Date().toISOString(),
        reason: 'a field this release does not know',
      }),
    ]);
    await eventually(
      async () => ((await leaseOf(lease)).name === 'named-by-the-future' ? true : undefined),
      30_000,
      'the projector to fold the rename',
    );
    const view = await leaseOf(lease);
    expect(view).not.toHaveProperty('reason');
    const renamedAgain = await client.put(`/v1/leases/${lease}`, { name: 'named-by-this-release' });
    expect(renamedAgain.status, describeBody(renamedAgain)).toBe(200);
    await eventually(async () => ((await leaseOf(lease)).name === 'named-by-this-release' ? true : undefined), 30_000, 'the rename');
  });
});

describe("the projector's start on a read model of another release", () => {
  it('records its schema version, and refuses to start on one a later release projected', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-e2e-'));
    try {
      const first = await startSystem({ apps: ['projector'], dataDir });
      await first.healthy();
      await first.stop();
      const db = new Database(join(dataDir, 'read-model.sqlite'));
      const version = db.prepare('select position from lh_checkpoints where name = ?').pluck();
      expect(version.get(SCHEMA_VERSION_CHECKPOINT)).toBe(READ_MODEL_SCHEMA_VERSION);
      db.prepare('update lh_checkpoints set position = ? where name = ?').run(READ_MODEL_SCHEMA_VERSION + 1, SCHEMA_VERSION_CHECKPOINT);
      db.close();
      const second = await startSystem({ apps: ['projector'], dataDir });
      try {
        await expect(second.healthy()).rejects.toThrow(/newer than this release's 1: upgrade the projector, or rebuild the read model/);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
