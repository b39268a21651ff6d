/**
 * verifyReadModel (what `leasehold verify` runs) on a real SQLite store and read models: a read model the
 * projector kept is found equal to the log's replay, also when the log has moved on since its checkpoint
 * (the replay stops there); a projection stopped on an event, and a never-projected read model, are
 * told apart from a clean one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { CheckpointEntity, LeaseVersionEntity, openReadModel } from '#read-model/index.js';
import { ProjectionRunner, dumpReadModel, verifyReadModel } from '#projector/index.js';
import { generateLedger } from '../../bench/replay-workload.js';

describe('verifyReadModel', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-verify-'));
  let store: SqliteEventStore;
  let files = 0;
  const opened: MikroORM[] = [];

  const readModel = async (): Promise<MikroORM> => {
    const orm = await openReadModel({ kind: 'sqlite', file: join(dir, `read-model-${++files}.sqlite`) });
    opened.push(orm);
    return orm;
  };

  const projected = async (): Promise<MikroORM> => {
    const orm = await readModel();
    const runner = new ProjectionRunner({ store, orm });
    await runner.start();
    await runner.caughtUp;
    await runner.stop();
    return orm;
  };

  const verify = async (live: MikroORM) => verifyReadModel({ store, live: await dumpReadModel(live), scratch: await readModel() });

  beforeAll(async () => {
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    await generateLedger(store, { events: 400, hosts: 10, historyEvents: 30 });
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((orm) => orm.close()));
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds no difference in the projector's read model, at the log's head", async () => {
    const head = await store.headPosition();
    const outcome = await verify(await projected());
    expect(outcome).toMatchObject({ position: head, head, differences: [] });
    expect(outcome.rows).toBeGreaterThan(100);
  });

  it('compares at the live checkpoint when the log has moved on since', async () => {
    const live = await projected();
    const checkpoint = await store.headPosition();
    await generateLedger(store, { events: 100, hosts: 10, historyEvents: 5 });
    const outcome = await verify(live);
    expect(outcome.head).toBeGreaterThan(checkpoint);
    expect(outcome).toMatchObject({ position: checkpoint, differences: [] });
  });

  it('names a projection stopped on an event by its checkpoint columns', async () => {
    const live = await projected();
    await live.em
      .fork()
      .nativeUpdate(
        CheckpointEntity,
        { name: 'hosts' },
        { failedPosition: 7, failedEventType: 'Host.Registered', error: 'boom', failedAt: '2031-01-01T00:00:00.000Z' },
      );
    const outcome = await verify(live);
    expect(outcome.differences.map((d) => [d.table, d.key, d.column, d.live, d.replayed])).toEqual([
      ['lh_checkpoints', 'hosts', 'failedPosition', 7, null],
      ['lh_checkpoints', 'hosts', 'failedEventType', 'Host.Registered', null],
      ['lh_checkpoints', 'hosts', 'error', 'boom', null],
      ['lh_checkpoints', 'hosts', 'failedAt', '2031-01-01T00:00:00.000Z', null],
    ]);
  });

  it("finds a changed past version by its whole key, whichever of a row's versions it is", async () => {
    const live = await projected();
    const versions = await live.em.fork().find(LeaseVersionEntity, {}, { orderBy: { id: 'asc', validFrom: 'asc' } });
    const many = versions.filter((version, i) => version.id === versions[i + 1]?.id);
    // the first of a lease's versions, then one of another event (the key by id alone, or by position alone, named neither)
    const [first, other] = [
      many[0],
      versions.find((version) => version.validFrom === many[0]?.validFrom && version.id !== many[0]?.id) ?? many.at(-1),
    ];
    if (first === undefined || other === undefined) throw new Error('the ledger has no lease with two past versions');
    for (const version of [first, other])
      await live.em
        .fork()
        .nativeUpdate(LeaseVersionEntity, { id: version.id, validFrom: version.validFrom }, { startDate: '1999-01-01T00:00:00.000Z' });
    const outcome = await verify(live);
    expect(outcome.differences.map((d) => [d.table, d.key, d.column, d.live])).toEqual(
      [first, other]
        .map((version) => ['lh_lease_versions', `${version.id} ${version.validFrom}`, 'startDate', '1999-01-01T00:00:00.000Z'])
        .sort((a, b) => (String(a[1]) < String(b[1]) ? -1 : 1)),
    );
  });

  it('a read model that never projected anything is at position 0, not at the head', async () => {
    const outcome = await verify(await readModel());
    expect(outcome).toMatchObject({ position: 0, differences: [], rows: 0 });
    expect(outcome.head).toBeGreaterThan(0);
  });
});
