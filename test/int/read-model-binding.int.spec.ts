import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AbstractSqlConnection } from '@mikro-orm/better-sqlite';
import { LockMode, type MikroORM, raw } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostEntity, LeaseEntity, type LeaseView, PropertyEntity, type ReadModelDatabase, openReadModel } from '#read-model/index.js';
import { createTestDatabase } from '../helpers/pg-database.js';

/**
 * The read model's MikroORM connections send values as bindings (libs/read-model/src/bound-drivers.ts):
 * what the drivers receive, and that every kind of value lands as MikroORM 6's inlined SQL put it.
 */

interface Executed {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

const connectionOf = (orm: MikroORM): AbstractSqlConnection => orm.em.getConnection() as unknown as AbstractSqlConnection;

/** Every statement as knex hands it to the driver. */
const recordStatements = (orm: MikroORM): Executed[] => {
  const executed: Executed[] = [];
  connectionOf(orm)
    .getKnex()
    .on('query', (query: { sql: string; bindings?: unknown[] }) => executed.push({ sql: query.sql, bindings: query.bindings ?? [] }));
  return executed;
};

/** knex.raw's result: better-sqlite3's rows, or pg's result object. */
const rowsOf = (result: unknown): unknown[] => (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows);

const PROBE_TABLE = {
  sqlite: 'create table lh_probe (k text primary key, t text, i integer, r real, b integer, j json, bl blob, d integer)',
  postgresql:
    'create table lh_probe (k text primary key, t text, i bigint, r double precision, b boolean, j json, bl bytea, d timestamptz)',
};
const INSERT_PROBE = 'insert into ?? (k, t, i, r, b, j, bl, d) values (?, ?, ?, ?, ?, ?, ?, ?)';

const PROBE_ROWS: readonly (readonly [string, ...unknown[]])[] = [
  [
    'text',
    'it\'s a "?" \\ -- ü 🙂 \\?',
    42,
    2.5,
    true,
    { a: "x'y", n: [1, null] },
    Buffer.from([0, 1, 255]),
    new Date('2030-01-02T03:04:05.678Z'),
  ],
  ['nulls', null, null, null, null, null, null, null],
  ['undefined', undefined, undefined, undefined, undefined, undefined, undefined, undefined],
  ['extremes', '', -9007199254740991, -0.000001, false, {}, Buffer.alloc(0), new Date(0)],
  [
    'bigint',
    '\u00e9',
    9007199254740993n,
    1e300,
    true,
    { nested: { deep: ['?', '\\'] } },
    Buffer.from('abc'),
    new Date('1999-12-31T23:59:59.999Z'),
  ],
];

const bindingSuite = (
  kind: ReadModelDatabase['kind'],
  open: () => Promise<{ readonly db: ReadModelDatabase; readonly cleanup: () => Promise<void> }>,
) => {
  let orm: MikroORM;
  let cleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const opened = await open();
    cleanup = opened.cleanup;
    orm = await openReadModel(opened.db);
    await connectionOf(orm).execute(PROBE_TABLE[kind]);
  });

  afterAll(async () => {
    await orm?.close();
    await cleanup();
  });

  it('sends written and queried values as bindings: no statement text holds one', async () => {
    const executed = recordStatements(orm);
    const marker = `m${randomUUID().slice(0, 8)}`;
    const value = (label: string): string => `${marker}:${label}:x'); --?\\`;
    const doc = { note: value('doc') } as unknown as LeaseView;
    const lease = (id: string) => ({
      id: value(id),
      projectId: value('project'),
      userId: value('user'),
      name: value(`name-${id}`),
      startDate: '2030-01-01T00:00:00.000Z',
      endDate: '2030-01-02T00:00:00.000Z',
      status: 'PENDING',
      doc,
    });
    const em = orm.em.fork();
    const [first, second] = [em.create(LeaseEntity, lease('a')), em.create(LeaseEntity, lease('b'))];
    em.create(PropertyEntity, {
      name: value('property'),
      id: value('property-id'),
      private: true,
      createdAt: value('at'),
      updatedAt: null,
    });
    em.create(HostEntity, {
      id: value('host'),
      hypervisorHostname: value('hostname'),
      sortKey: 1,
      doc: doc as never,
      capabilities: { [value('key')]: value('capability') },
    });
    await em.flush();
    first.name = value('renamed-a');
    second.name = value('renamed-b');
    await em.flush();
    await em.nativeUpdate(LeaseEntity, { id: value('a') }, { status: value('status') });
    em.remove(second);
    await em.flush();

    const reader = orm.em.fork();
    const found = await reader.find(
      LeaseEntity,
      { projectId: { $in: [value('project'), value('none')] }, startDate: { $gte: '2029' } },
      { orderBy: { startDate: 'asc' } },
    );
    expect(found.map((row) => [row.id, row.name, row.status, row.doc])).toEqual([[value('a'), value('renamed-a'), value('status'), doc]]);
    expect((await reader.findOne(PropertyEntity, { name: value('property') }))?.id).toBe(value('property-id'));
    expect((await reader.findOne(HostEntity, { id: value('host') }))?.capabilities).toEqual({ [value('key')]: value('capability') });
    expect(await reader.count(LeaseEntity, { name: { $like: `${marker}%` } })).toBe(1);
    await orm.em.fork().transactional((tx) => tx.findOne(LeaseEntity, { id: value('a') }, { lockMode: LockMode.PESSIMISTIC_WRITE }));

    expect(executed.filter((statement) => statement.sql.includes(marker))).toEqual([]);
    const carrying = executed.filter((statement) => statement.bindings.some((binding) => String(binding).includes(marker)));
    for (const verb of ['insert', 'update', 'delete', 'select'])
      expect(carrying.some((statement) => statement.sql.trimStart().startsWith(verb))).toBe(true);
  });

  it('stores each kind of value as the inlined SQL of MikroORM 6 did', async () => {
    const connection = connectionOf(orm);
    const platform = orm.em.getPlatform();
    const inlined = async (sql: string, params: readonly unknown[]) => connection.getKnex().raw(platform.formatQuery(sql, params));
    for (const [label, ...values] of PROBE_ROWS) {
      await connection.execute(INSERT_PROBE, ['lh_probe', `bound:${label}`, ...values], 'run');
      await inlined(INSERT_PROBE, ['lh_probe', `inlined:${label}`, ...values]);
      const [bound] = await connection.execute<Record<string, unknown>[]>('select t, i, r, b, j, bl, d from lh_probe where k = ?', [
        `bound:${label}`,
      ]);
      const [reference] = await connection.execute<Record<string, unknown>[]>('select t, i, r, b, j, bl, d from lh_probe where k = ?', [
        `inlined:${label}`,
      ]);
      expect(reference).toBeDefined();
      expect(bound).toEqual(reference);
    }
    const [text] = await connection.execute<Record<string, unknown>[]>('select t, j from lh_probe where k = ?', ['bound:text']);
    expect(text?.t).toBe(PROBE_ROWS[0]?.[1]);
  });

  it('expands lists, inlines raw fragments and identifiers, keeps literal question marks, as formatQuery did', async () => {
    const connection = connectionOf(orm);
    const platform = orm.em.getPlatform();
    const cases: readonly (readonly [string, readonly unknown[]])[] = [
      ['select k from lh_probe where i in (?) and k like ? order by k', [[42, -9007199254740991, 7], 'bound:%']],
      ['select k from lh_probe where k = lower(?)', [raw('upper(?)', ['bound:TEXT'])]],
      ["select k from lh_probe where t <> '\\?' and k = ?", ['bound:text']],
      ['select ?? as v from lh_probe where k = ?', ['t', 'bound:text']],
    ];
    for (const [sql, params] of cases) {
      const bound = await connection.execute<Record<string, unknown>[]>(sql, [...params]);
      const reference = connection.getKnex().raw(platform.formatQuery(sql, params));
      expect(bound.length).toBeGreaterThan(0);
      expect(bound).toEqual(rowsOf(await reference));
    }
    expect(await connection.execute('select k from lh_probe where k = ?', ['bound:text'], 'get')).toEqual({ k: 'bound:text' });
    expect(await connection.execute('update lh_probe set r = ? where k like ?', [1.5, 'bound:%'], 'run')).toMatchObject({
      affectedRows: PROBE_ROWS.length,
    });
  });

  it('keeps MikroORM transactions: a rollback, of the whole or of a savepoint, writes nothing', async () => {
    const property = (name: string) => ({ name, id: name, private: false, createdAt: 'now', updatedAt: null });
    const prefix = `tx-${randomUUID()}`;
    await expect(
      orm.em.fork().transactional(async (tx) => {
        tx.create(PropertyEntity, property(`${prefix}-rolled-back`));
        await tx.flush();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await orm.em.fork().transactional(async (tx) => {
      tx.create(PropertyEntity, property(`${prefix}-committed`));
      await tx.flush();
      await expect(
        tx.transactional(async (inner) => {
          inner.create(PropertyEntity, property(`${prefix}-savepoint`));
          await inner.flush();
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
    });
    const names = (await orm.em.fork().find(PropertyEntity, { name: { $like: `${prefix}%` } })).map((row) => row.name);
    expect(names).toEqual([`${prefix}-committed`]);
  });
};

describe('read-model connection on SQLite', () => {
  bindingSuite('sqlite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-binding-'));
    return {
      db: { kind: 'sqlite', file: join(dir, 'read-model.sqlite') },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  });
});

const PG_URL = process.env.LEASEHOLD_TEST_PG_URL;

describe.skipIf(PG_URL === undefined || PG_URL === '')('read-model connection on PostgreSQL', () => {
  bindingSuite('postgresql', async () => {
    const database = await createTestDatabase(PG_URL as string, 'leasehold_binding');
    return { db: { kind: 'postgresql', url: database.url }, cleanup: () => database.drop() };
  });
});
