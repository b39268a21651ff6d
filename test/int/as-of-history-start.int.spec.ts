/**
 * A read model projected by a release that kept no versions has none for what came before the
 * upgrade: the projector records, at its first start with versions, the position they are complete
 * from, and an as_of before it is a 400 that says to rebuild; a new read model has them all.
 */
import type { MikroORM } from '@mikro-orm/core';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { CheckpointEntity, HISTORY_FROM_CHECKPOINT, historyFrom, openReadModel } from '#read-model/index.js';
import { markHistoryStart } from '#projector/projection-batch.js';
import { PointInTime } from '#api/read-side/point-in-time.js';

const checkpoint = (name: string, position: number) => ({
  name,
  position,
  failedPosition: null,
  failedEventType: null,
  error: null,
  failedAt: null,
});

describe('where the versions start', () => {
  const opened: MikroORM[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((orm) => orm.close()));
  });

  const readModel = async (): Promise<MikroORM> => {
    const orm = await openReadModel({ kind: 'sqlite', file: ':memory:' });
    opened.push(orm);
    return orm;
  };

  it('a new read model keeps them from the start of the log', async () => {
    const orm = await readModel();
    await markHistoryStart(orm, ['leases', 'hosts']);
    expect(await historyFrom(orm)).toBe(0);
  });

  it('a read model no projector has run on yet keeps them from the start too: an API that starts first answers as_of', async () => {
    const orm = await readModel();
    expect(await historyFrom(orm)).toBe(0);
    const store = SqliteEventStore.open({ file: ':memory:', clock: () => new Date('2030-01-01T00:00:00.000Z') });
    try {
      await expect(new PointInTime(orm, store, () => new Date('2030-06-01T00:00:00.000Z')).resolve('2000-01-01 00:00')).resolves.toEqual({
        instant: '2000-01-01T00:00:00.000Z',
        position: 0,
      });
    } finally {
      await store.close();
    }
    // checkpoints without the mark: an older release projected it, and the mark is not made up here
    await orm.em.fork().insertMany(CheckpointEntity, [checkpoint('leases', 10)]);
    expect(await historyFrom(orm)).toBeNull();
  });

  it("an older release's read model keeps them from its furthest checkpoint, once, whatever comes later", async () => {
    const orm = await readModel();
    await orm.em.fork().insertMany(CheckpointEntity, [checkpoint('leases', 10), checkpoint('hosts', 12)]);
    await markHistoryStart(orm, ['leases', 'hosts']);
    expect(await historyFrom(orm)).toBe(12);
    await orm.em.fork().nativeUpdate(CheckpointEntity, { name: { $in: ['leases', 'hosts'] } }, { position: 40 });
    await markHistoryStart(orm, ['leases', 'hosts']);
    expect(await historyFrom(orm)).toBe(12);
  });

  it('an as_of before that position is refused with a 400 that says to rebuild; from it on it is answered', async () => {
    const orm = await readModel();
    const store = SqliteEventStore.open({ file: ':memory:', clock: () => new Date('2030-01-01T00:00:00.000Z') });
    try {
      const event = (n: number) => ({
        id: `e-${n}`,
        type: 'Noted',
        data: {},
        metadata: { correlationId: 'c', causationId: 'c', actor: null },
      });
      await store.appendToStream('lease-1', 'no_stream', [event(1), event(2)]);
      await orm.em.fork().insertMany(CheckpointEntity, [checkpoint(HISTORY_FROM_CHECKPOINT, 3)]);
      const pointInTime = new PointInTime(orm, store, () => new Date('2030-06-01T00:00:00.000Z'));
      await expect(pointInTime.resolve('2030-01-01 00:00')).rejects.toMatchObject({
        kind: 'invalid',
        message: expect.stringContaining('keeps past versions only from position 3; rebuild it (npm run rebuild-read-models)'),
      });
      await store.appendToStream('lease-1', 1, [event(3)]);
      await expect(pointInTime.resolve('2030-01-01 00:00')).resolves.toEqual({ instant: '2030-01-01T00:00:00.000Z', position: 3 });
    } finally {
      await store.close();
    }
  });
});
