import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/index.js';
import { CheckpointEntity, openReadModel } from '#read-model/index.js';
import { ReadYourWrites } from './read-your-writes.js';

describe('ReadYourWrites', () => {
  let dir: string;
  let store: SqliteEventStore;
  let orm: MikroORM;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-ryw-'));
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    orm = await openReadModel({ kind: 'sqlite', file: join(dir, 'read-model.sqlite') });
    await store.appendToStream('lease-1', 'no_stream', [
      { id: crypto.randomUUID(), type: 'Noted', data: {}, metadata: { correlationId: 'c', causationId: 'c', actor: null } },
    ]);
  });

  afterEach(async () => {
    await orm.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives up waiting after its timeout on the steady clock, even when the wall clock steps back meanwhile', async () => {
    let calls = 0;
    // from its second reading on, the wall clock is two hours back
    const clock = (): Date => new Date(Date.now() - (calls++ > 0 ? 2 * 3_600_000 : 0));
    const consistency = new ReadYourWrites(orm, store, 200, clock);
    const stale = await consistency.waitFor(['leases'], 1);
    expect(stale).toMatchObject({ read_models: ['leases'], lag_positions: 1 });
  }, 10_000);

  it('marks a live read stale while a read model is stopped on an event, but not a read as of a position it has passed', async () => {
    await orm.em.fork().insert(CheckpointEntity, {
      name: 'leases',
      position: 1,
      failedPosition: 2,
      failedEventType: 'Lease.Renamed',
      error: 'boom',
      failedAt: '2030-01-01T00:00:00.000Z',
    });
    const consistency = new ReadYourWrites(orm, store, 200);
    expect(await consistency.waitFor(['leases'], 1)).toMatchObject({
      read_models: ['leases'],
      failures: [{ read_model: 'leases', position: 2 }],
    });
    expect(await consistency.waitFor(['leases'], 1, true)).toBeNull();
    expect(await consistency.waitFor(['leases'], 2, true)).toMatchObject({
      read_models: ['leases'],
      failures: [{ read_model: 'leases', position: 2 }],
    });
  }, 10_000);
});
