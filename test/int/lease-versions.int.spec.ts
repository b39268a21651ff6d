/**
 * Past lease versions are kept as patches against the version after them (LEASE_PATCH_RUN in a row
 * at most, then one whole): a GET as of any position rebuilds exactly the document the lease had
 * then, on SQLite and on PostgreSQL, whatever the batches, and with the whole versions an earlier
 * release wrote before an upgrade.
 */
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaseEvent } from '#domain/index.js';
import {
  LEASE_ID,
  at,
  created,
  deleted,
  endRequested,
  ended,
  reservation,
  startRequested,
  started,
} from '#domain/lease/testing/lease.fixtures.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { projectBatch } from '#projector/projection-batch.js';
import { READ_MODEL_PROJECTIONS } from '#projector/projections/index.js';
import {
  LEASE_PATCH_RUN,
  LeaseEntity,
  LeaseVersionEntity,
  type LeaseView,
  ReadModelAsOf,
  type ReadModelDatabase,
  openReadModel,
} from '#read-model/index.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import { type TestDatabase, createTestDatabase } from '../helpers/pg-database.js';

const OTHER_ID = 'lease-other';

/** A lease renamed far more often than LEASE_PATCH_RUN, started and ended; another one deleted half-way. */
const history = (): LeaseEvent[] => {
  const renames = Array.from({ length: 3 * LEASE_PATCH_RUN + 2 }, (_, i): LeaseEvent => ({
    type: 'Lease.Renamed',
    data: { leaseId: LEASE_ID, name: `name-${i}`, renamedAt: at(8, i) },
  }));
  const other = (event: LeaseEvent): LeaseEvent => ({ ...event, data: { ...event.data, leaseId: OTHER_ID } }) as LeaseEvent;
  return [
    created({ reservations: [reservation('res-1'), reservation('res-2')] }),
    other(created({ reservations: [reservation('res-3')] })),
    ...renames.slice(0, 5),
    other({ type: 'Lease.Renamed', data: { leaseId: LEASE_ID, name: 'other-renamed', renamedAt: at(8, 30) } }),
    other(deleted()),
    ...renames.slice(5),
    startRequested(),
    started(),
    endRequested(),
    ended(),
  ];
};

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

/** Each lease's document right after each position (index 0: before the first event), folded in memory. */
const expectedDocs = (events: readonly LeaseEvent[], leaseId: string): (LeaseView | null)[] => {
  const docs: (LeaseView | null)[] = [null];
  let doc: LeaseView | null = null;
  for (const event of events) {
    if (event.data.leaseId === leaseId) doc = evolveLeaseView(doc, event);
    docs.push(doc);
  }
  return docs;
};

/** Projects the events in batches of the given sizes, cycling. */
const project = async (orm: MikroORM, events: readonly RecordedEvent[], sizes: readonly number[]): Promise<void> => {
  for (let from = 0, turn = 0; from < events.length; turn++) {
    const size = sizes[turn % sizes.length] ?? 1;
    const outcomes = await projectBatch(orm, READ_MODEL_PROJECTIONS, events.slice(from, from + size));
    expect([...outcomes.values()].filter((outcome) => outcome.fault !== null)).toEqual([]);
    from += size;
  }
};

/** Every position: the lease as of it is the folded document, byte for byte (field order included). */
const expectEveryPosition = async (orm: MikroORM, events: readonly LeaseEvent[]): Promise<void> => {
  const docs = [LEASE_ID, OTHER_ID].map((leaseId) => expectedDocs(events, leaseId));
  for (let position = 0; position <= events.length; position++) {
    const asOf = new ReadModelAsOf(orm, position);
    const expected = docs.map((each) => each[position] ?? null);
    expect(JSON.stringify(await asOf.lease(LEASE_ID)), `${LEASE_ID} as of ${position}`).toBe(JSON.stringify(expected[0]));
    // the list walks every lease's patches at once
    const found = await asOf.leases(null);
    const listed = [LEASE_ID, OTHER_ID].map((leaseId) => found.find((lease) => lease.id === leaseId) ?? null);
    expect(JSON.stringify(listed), `listed as of ${position}`).toBe(JSON.stringify(expected));
    expect(found.length, `listed as of ${position}`).toBe(expected.filter((doc) => doc !== null).length);
  }
};

const pgUrl = process.env.LEASEHOLD_TEST_PG_URL ?? '';

describe.each([
  { kind: 'SQLite', skip: false },
  { kind: 'PostgreSQL', skip: pgUrl === '' },
])('lease versions kept as patches ($kind)', ({ kind, skip }) => {
  let pg: TestDatabase | null = null;

  beforeAll(async () => {
    if (kind === 'PostgreSQL' && !skip) pg = await createTestDatabase(pgUrl, 'leasehold_lease_versions');
  });
  afterAll(async () => {
    await pg?.drop();
  });

  /** A fresh read model: its own PostgreSQL schema, or a SQLite file in memory. */
  let models = 0;
  const readModel = async (): Promise<MikroORM> => {
    const db: ReadModelDatabase =
      pg === null ? { kind: 'sqlite', file: ':memory:' } : { kind: 'postgresql', url: pg.url, schema: `versions_${++models}` };
    if (db.kind === 'postgresql') {
      const admin = await openReadModel({ kind: 'postgresql', url: db.url });
      await admin.em.getConnection().execute(`create schema if not exists "${db.schema ?? ''}"`);
      await admin.close();
    }
    return openReadModel(db);
  };

  it.skipIf(skip)(
    'as of every position, in batches of any size, with runs of patches bounded by whole versions',
    async () => {
      const events = history();
      for (const sizes of [[1], [events.length], [3, 7, 2]]) {
        const orm = await readModel();
        try {
          await project(orm, recorded(events), sizes);
          await expectEveryPosition(orm, events);
          const versions = await orm.em.fork().find(LeaseVersionEntity, { id: LEASE_ID }, { orderBy: { validFrom: 'asc' } });
          const kinds = versions.map((version) => (version.patch === true ? 'p' : 'W')).join('');
          expect(kinds).toBe(`${'p'.repeat(LEASE_PATCH_RUN)}W`.repeat(3) + 'p'.repeat(versions.length - 3 * (LEASE_PATCH_RUN + 1)));
          // the deleted lease's last version is whole: nothing comes after it to patch
          const other = await orm.em.fork().find(LeaseVersionEntity, { id: OTHER_ID }, { orderBy: { validFrom: 'asc' } });
          expect(other.at(-1)?.patch ?? null).toBeNull();
        } finally {
          await orm.close();
        }
      }
    },
    240_000,
  );

  it.skipIf(skip)(
    'after an upgrade from a release that kept whole versions, as of every position before and after it',
    async () => {
      const events = history();
      const all = recorded(events);
      const orm = await readModel();
      try {
        const upgradeAt = 12;
        await project(orm, all.slice(0, upgradeAt), [5]);
        // what the earlier release left: every version whole, no run of patches counted
        const em = orm.em.fork();
        const wholes = await Promise.all(
          (await em.find(LeaseVersionEntity, {})).map(async (version) => ({
            version,
            doc: await new ReadModelAsOf(orm, version.validFrom).lease(version.id),
          })),
        );
        for (const { version, doc } of wholes)
          await em.nativeUpdate(
            LeaseVersionEntity,
            { id: version.id, validFrom: version.validFrom },
            { doc: doc ?? undefined, patch: null },
          );
        await em.nativeUpdate(LeaseEntity, {}, { patchRun: 0 });
        await project(orm, all.slice(upgradeAt), [4]);
        await expectEveryPosition(orm, events);
      } finally {
        await orm.close();
      }
    },
    120_000,
  );
});
