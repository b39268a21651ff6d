/**
 * The leases projection was made cheaper per event (rows built directly, no rewrite of an unchanged
 * row, no Map per event, the fold's own shortcuts): every row it leaves in lh_leases,
 * lh_lease_versions and lh_reservations must be the very row the previous projection left. Random
 * histories of three leases, interleaved, are projected by both into SQLite in random batch sizes.
 */
import type { MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LeaseEvent } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { projectBatch } from '#projector/projection-batch.js';
import type { Projection } from '#projector/projection.js';
import { openReadModel } from '#read-model/index.js';
import { leaseHistoryOf } from '#read-model/testing/lease-histories.js';
import { leasesProjection } from './leases.projection.js';
import { leasesProjectionBefore } from './testing/leases.projection.reference.js';

const recorded = (events: readonly LeaseEvent[]): RecordedEvent[] =>
  events.map((event, i) => ({
    id: `event-${i + 1}`,
    streamId: `lease-${event.data.leaseId}`,
    revision: i,
    position: i + 1,
    type: event.type,
    data: event.data,
    metadata: { correlationId: 'c', causationId: 'c', actor: null },
    recordedAt: '2030-01-01T00:00:00.000Z',
  }));

/** The histories merged in the order `picks` says (a pick of an exhausted history takes the next one). */
const interleave = (histories: readonly (readonly LeaseEvent[])[], picks: readonly number[]): LeaseEvent[] => {
  const queues = histories.map((history) => [...history]);
  const out: LeaseEvent[] = [];
  for (const pick of picks) {
    const queue = queues.find((_, i) => i >= pick % queues.length && queues[i]?.length) ?? queues.find((q) => q.length > 0);
    const event = queue?.shift();
    if (event !== undefined) out.push(event);
  }
  for (const queue of queues) out.push(...queue);
  return out;
};

/** Every row of the leases projection's tables, as stored (text), in key order. */
const rowsOf = async (orm: MikroORM): Promise<unknown> => {
  const connection = orm.em.getConnection();
  return {
    leases: await connection.execute('select * from lh_leases order by id'),
    versions: await connection.execute('select * from lh_lease_versions order by id, valid_from'),
    reservations: await connection.execute('select * from lh_reservations order by id'),
  };
};

const project = async (projection: Projection, events: readonly RecordedEvent[], sizes: readonly number[]): Promise<unknown> => {
  const orm = await openReadModel({ kind: 'sqlite', file: ':memory:' });
  try {
    for (let from = 0, turn = 0; from < events.length; turn++) {
      const size = sizes[turn % sizes.length] ?? 1;
      const outcomes = await projectBatch(orm, [projection], events.slice(from, from + size), () => '2030-01-01T00:00:00.000Z');
      expect([...outcomes.values()].filter((outcome) => outcome.fault !== null)).toEqual([]);
      from += size;
    }
    return await rowsOf(orm);
  } finally {
    await orm.close();
  }
};

describe('the cheaper leases projection', () => {
  it('stores the very rows the previous one stored, whatever the histories and the batches', async () => {
    const input = fc.record({
      histories: fc.tuple(leaseHistoryOf('lease-a', 'a/'), leaseHistoryOf('lease-b', 'b/'), leaseHistoryOf('lease-c', 'c/')),
      picks: fc.array(fc.nat(2), { maxLength: 48 }),
      sizes: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(input, async ({ histories, picks, sizes }) => {
        const events = recorded(
          interleave(
            histories.map(([first, rest]) => [first, ...rest]),
            picks,
          ),
        );
        const [now, before] = [await project(leasesProjection, events, sizes), await project(leasesProjectionBefore, events, sizes)];
        expect(JSON.stringify(now)).toBe(JSON.stringify(before));
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
