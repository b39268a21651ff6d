import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseEntity, type LeaseView, type ReadModelDatabase, openReadModel } from '#read-model/index.js';
import { type LeaseDocumentQuery, ReadModelQueries } from '#read-model/read-model.queries.js';
import { createTestDatabase } from '../helpers/pg-database.js';

/**
 * A page of the lease list in its default order (start date) and by created_at, either direction,
 * with and without a marker, for an admin and for one project: the database walks an index and stops
 * after the page (no Sort node in its plan), and the pages are the whole list in code-point order,
 * ties by id. On PostgreSQL the sort is `collate "C"`, which an index of the database's default
 * collation (C.UTF-8) cannot serve.
 */

// a project of a thousand leases: with a few hundred, PostgreSQL's planner rightly prefers sorting them
const LEASES = 6_000;
const PROJECTS = 6;
const PAGE = 100;
const STATUSES = ['PENDING', 'ACTIVE', 'TERMINATED', 'ERROR'] as const;

// Upper and lower case, an accented letter and digits: C.UTF-8 and code-point order differ on these
// only in ways a planner does not care about, but the pages must come in code-point order all the same.
const ID_STEMS = ['Lease', 'lease', 'LEASE', '\u00e9t\u00e9', '0x'] as const;

interface Lease {
  readonly id: string;
  readonly projectId: string;
  readonly startDate: string;
  readonly createdAt: string | null;
  readonly status: string;
}

/**
 * Few distinct start dates and created_at values, so ties (broken by id) are common; some created_at missing, as an older release wrote
 * them.
 */
const leaseAt = (n: number): Lease => {
  const hour = String(n % 37).padStart(2, '0');
  return {
    id: `${ID_STEMS[n % ID_STEMS.length] ?? ''}-${String((n * 7_919) % 100_003)}`,
    projectId: `project-${String(n % PROJECTS)}`,
    startDate: `2030-01-${String(1 + (n % 28)).padStart(2, '0')}T${hour.slice(-2)}:00:00.000Z`,
    createdAt: n % 11 === 0 ? null : `2029-12-${String(1 + (n % 29)).padStart(2, '0')}T00:00:00.000Z`,
    status: STATUSES[n % STATUSES.length] ?? 'PENDING',
  };
};

const row = (lease: Lease) => ({
  id: lease.id,
  projectId: lease.projectId,
  userId: 'user',
  name: lease.id,
  startDate: lease.startDate,
  endDate: '2031-01-01T00:00:00.000Z',
  status: lease.status,
  createdAt: lease.createdAt,
  updatedAt: null,
  // a document always has a created_at (the read model fills a missing column from it at open)
  doc: {
    id: lease.id,
    project_id: lease.projectId,
    created_at: lease.createdAt ?? '2029-11-30T00:00:00.000Z',
    updated_at: null,
  } as unknown as LeaseView,
});

const SORTS = [
  { key: 'start_date', value: (lease: Lease) => lease.startDate },
  { key: 'created_at', value: (lease: Lease) => lease.createdAt ?? '' },
] as const;

/** The list as it must come: by the sort value, ties by id, both by code point (UTF-16 order is the same for these strings). */
const expected = (leases: readonly Lease[], sort: (typeof SORTS)[number], dir: 'asc' | 'desc'): string[] => {
  const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...leases].sort((a, b) => compare(sort.value(a), sort.value(b)) || compare(a.id, b.id));
  return (dir === 'asc' ? sorted : sorted.reverse()).map((lease) => lease.id);
};

interface Statement {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

type PlanCheck = (connection: AbstractSqlConnection, statement: Statement) => Promise<string[]>;

/**
 * PostgreSQL: the node types of the plan (a Sort or Incremental Sort is what must not be there); the driver received $n placeholders,
 * knex.raw takes ?.
 */
const postgresNodes: PlanCheck = async (connection, statement) => {
  const result = await connection
    .getKnex()
    .raw<{ rows: { 'QUERY PLAN': unknown }[] }>(
      `explain (format json) ${statement.sql.replace(/\$\d+/g, '?')}`,
      statement.bindings as never[],
    );
  const nodes: string[] = [];
  const walk = (node: { 'Node Type': string; 'Index Name'?: string; Plans?: unknown[] }): void => {
    nodes.push(node['Index Name'] === undefined ? node['Node Type'] : `${node['Node Type']} ${node['Index Name']}`);
    for (const child of node.Plans ?? []) walk(child as typeof node);
  };
  const plan = result.rows[0]?.['QUERY PLAN'] as [{ Plan: Parameters<typeof walk>[0] }];
  walk(plan[0].Plan);
  return nodes;
};

/** SQLite: the plan's lines (a sort shows as `USE TEMP B-TREE FOR ORDER BY`). */
const sqliteNodes: PlanCheck = async (connection, statement) => {
  const rows = await connection.getKnex().raw<{ detail: string }[]>(`explain query plan ${statement.sql}`, statement.bindings as never[]);
  return rows.map((planRow) => planRow.detail);
};

const sorts = (nodes: readonly string[]): string[] => nodes.filter((node) => /Sort|TEMP B-TREE/.test(node));

const orderSuite = (open: () => Promise<{ readonly db: ReadModelDatabase; readonly cleanup: () => Promise<void> }>, planOf: PlanCheck) => {
  let orm: MikroORM;
  let queries: ReadModelQueries;
  let cleanup: () => Promise<void> = async () => undefined;
  const leases = Array.from({ length: LEASES }, (_, n) => leaseAt(n));
  const executed: Statement[] = [];

  beforeAll(async () => {
    const opened = await open();
    cleanup = opened.cleanup;
    orm = await openReadModel(opened.db);
    const em = orm.em.fork();
    for (let i = 0; i < leases.length; i += 500) await em.insertMany(LeaseEntity, leases.slice(i, i + 500).map(row));
    // the statistics autovacuum (PostgreSQL) or an operator's analyze (SQLite) would have gathered
    await orm.em.getConnection().execute('analyze');
    queries = new ReadModelQueries(orm);
    (orm.em.getConnection() as AbstractSqlConnection)
      .getKnex()
      .on('query', (query: { sql: string; bindings?: unknown[] }) => executed.push({ sql: query.sql, bindings: query.bindings ?? [] }));
  });

  afterAll(async () => {
    await orm.close();
    await cleanup();
  });

  /** The page query leaseDocumentPage sent for `query` (its last statement), as the driver received it. */
  const pageStatement = async (query: LeaseDocumentQuery): Promise<Statement> => {
    executed.length = 0;
    await queries.leaseDocumentPage(query);
    const statement = executed.at(-1);
    if (statement === undefined || !statement.sql.includes('order by')) throw new Error('leaseDocumentPage sent no page query');
    return statement;
  };

  for (const sort of SORTS) {
    for (const dir of ['asc', 'desc'] as const) {
      for (const projectId of [null, 'project-5']) {
        const who = projectId === null ? 'an admin' : 'one project';
        it(`${sort.key} ${dir}, ${who}: every page walks an index (no sort), and the pages are the list in code-point order`, async () => {
          const list = leases.filter((lease) => projectId === null || lease.projectId === projectId);
          const want = expected(list, sort, dir);
          const base = { projectId, status: null, sort: { key: sort.key, dir }, limit: PAGE };
          const first = await pageStatement({ ...base, marker: null });
          const marker = want[Math.floor(want.length / 3)] ?? null;
          const later = await pageStatement({ ...base, marker });
          expect({
            first: sorts(await planOf(orm.em.getConnection() as AbstractSqlConnection, first)),
            later: sorts(await planOf(orm.em.getConnection() as AbstractSqlConnection, later)),
          }).toEqual({ first: [], later: [] });

          const got: string[] = [];
          for (let after: string | null = null; ;) {
            const page = await queries.leaseDocumentPage({ ...base, marker: after });
            got.push(...page.documents.map((doc) => (JSON.parse(doc) as { id: string }).id));
            if (!page.more) break;
            after = page.lastId;
          }
          expect(got).toEqual(want);
        });
      }
    }
  }

  it('the default order (no sort given) is start_date ascending and walks the same index', async () => {
    const statement = await pageStatement({ projectId: null, status: null, sort: null, marker: null, limit: PAGE });
    expect(sorts(await planOf(orm.em.getConnection() as AbstractSqlConnection, statement))).toEqual([]);
    const page = await queries.leaseDocumentPage({ projectId: null, status: null, sort: null, marker: null, limit: PAGE });
    expect(page.documents.map((doc) => (JSON.parse(doc) as { id: string }).id)).toEqual(expected(leases, SORTS[0], 'asc').slice(0, PAGE));
  });

  // No index for the status filter (see leaseOrderIndexes): an admin's page checks it along the walk of
  // the order index; a project's filtered page may sort that project's leases of the status.
  it("a status filter is a condition on the admin's walk (no sort), and filtered pages come right for an admin and a project", async () => {
    const base = { status: 'ERROR', sort: { key: 'created_at', dir: 'desc' }, limit: PAGE } as const;
    const statement = await pageStatement({ ...base, projectId: null, marker: null });
    expect(sorts(await planOf(orm.em.getConnection() as AbstractSqlConnection, statement))).toEqual([]);
    for (const projectId of [null, 'project-5']) {
      const list = leases.filter((lease) => lease.status === 'ERROR' && (projectId === null || lease.projectId === projectId));
      const want = expected(list, SORTS[1], 'desc');
      const marker = want[PAGE] ?? null;
      const page = await queries.leaseDocumentPage({ ...base, projectId, marker });
      expect(page.documents.map((doc) => (JSON.parse(doc) as { id: string }).id)).toEqual(want.slice(PAGE + 1, 2 * PAGE + 1));
    }
  });
};

describe('lease list pages walk an order index, on SQLite', () => {
  orderSuite(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-order-'));
    return {
      db: { kind: 'sqlite', file: join(dir, 'read-model.sqlite') },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }, sqliteNodes);
});

const PG_URL = process.env.LEASEHOLD_TEST_PG_URL;

describe.skipIf(PG_URL === undefined || PG_URL === '')('lease list pages walk an order index, on PostgreSQL', () => {
  orderSuite(async () => {
    const database = await createTestDatabase(PG_URL as string, 'leasehold_order');
    return { db: { kind: 'postgresql', url: database.url }, cleanup: () => database.drop() };
  }, postgresNodes);
});

/** The names of lh_leases's order indexes. */
const leaseIndexes = async (orm: MikroORM): Promise<string[]> => {
  const rows: { name: string }[] = await orm.em
    .getConnection()
    .execute(
      "select indexname as name from pg_indexes where tablename = 'lh_leases' and indexname like '%order%' order by indexname",
      [],
      'all',
    );
  return rows.map((indexRow) => indexRow.name);
};

describe.skipIf(PG_URL === undefined || PG_URL === '')('a PostgreSQL read model made by the release before collate "C" indexes', () => {
  it('ends with the collate "C" order indexes at open, the old ones dropped, the rows kept, nothing left to update', async () => {
    const database = await createTestDatabase(PG_URL as string, 'leasehold_order_upgrade');
    let orm: MikroORM | undefined;
    try {
      orm = await openReadModel({ kind: 'postgresql', url: database.url });
      await orm.em.fork().insertMany(
        LeaseEntity,
        Array.from({ length: 50 }, (_, n) => row(leaseAt(n))),
      );
      // the indexes as the previous release created them (its entities' definitions, verbatim)
      const connection = orm.em.getConnection();
      for (const index of await leaseIndexes(orm)) await connection.execute(`drop index ${index}`);
      await connection.execute('create index lh_leases_start_order on lh_leases (start_date, id)');
      await connection.execute("create index lh_leases_created_order on lh_leases (coalesce(created_at, ''), id)");
      await orm.close();

      orm = await openReadModel({ kind: 'postgresql', url: database.url });
      expect(await leaseIndexes(orm)).toEqual([
        'lh_leases_created_order_c',
        'lh_leases_project_created_order_c',
        'lh_leases_project_start_order_c',
        'lh_leases_start_order_c',
      ]);
      const definitions: { def: string }[] = await orm.em
        .getConnection()
        .execute("select indexdef as def from pg_indexes where indexname = 'lh_leases_created_order_c'", [], 'all');
      expect(definitions[0]?.def).toContain('COALESCE(created_at, \'\'::text) COLLATE "C", id COLLATE "C"');
      expect(await orm.schema.getUpdateSchemaSQL()).toBe('');
      const page = await new ReadModelQueries(orm).leaseDocumentPage({
        projectId: null,
        status: null,
        sort: null,
        marker: null,
        limit: null,
      });
      expect(page.documents).toHaveLength(50);
    } finally {
      await orm?.close();
      await database.drop();
    }
  });
});
