import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AbstractSqlConnection, knex } from '@mikro-orm/postgresql';
import type { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DomainEvent,
  FLAVOR_CATALOG_STREAM,
  type Flavor,
  type FlavorCatalogEvent,
  type FloatingIpRegistered,
  type HostBooked,
  type HostCapabilitiesUpdated,
  type HostRegistered,
  type LeaseRenamed,
  type ResourcePropertyEvent,
  floatingIpStream,
  hostStream,
  leaseStream,
  propertyStream,
} from '#domain/index.js';
import { smallHostInfo } from '#domain/host/testing/host.fixtures.js';
import { created, reservation } from '#domain/lease/testing/lease.fixtures.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { HOSTILE_STRINGS } from '#event-store/testing/hostile-strings.js';
import {
  LeaseEntity,
  PropertyEntity,
  type ReadModelDatabase,
  evolveFloatingIpView,
  evolveHostView,
  openReadModel,
  toFlavorView,
} from '#read-model/index.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import { ProjectionRunner } from '#projector/index.js';
import { LEASE_SORT_KEYS, ReadModelQueries } from '#read-model/read-model.queries.js';
import { fillLeaseSortColumns } from '#read-model/lease-sort-columns.js';
import { encodeStoredText } from '#event-store/stored-text.js';
import { createTestDatabase } from '../helpers/pg-database.js';

/**
 * Every string the API's input rules refuse, written straight into the event log through the
 * EventStore port (no API in between) in the real event shapes, projected by the real runner and read
 * back through ReadModelQueries: each comes back exactly, keys included, on SQLite and PostgreSQL,
 * and no statement's SQL text ever holds one of them.
 */

const AT = '2030-01-01T10:00:00.000Z';
const START = '2030-02-01T10:00:00.000Z';
const END = '2030-02-01T18:00:00.000Z';

/**
 * One hostile value placed in every string field a user can reach; keys (ids, names with an index
 * or a primary key) are made of `key` and a tag that keeps them unique.
 */
const scenario = (value: string, index: number, key = value) => {
  const tag = `~h${index}~`;
  const hostId = String(index + 1);
  const leaseId = `${key}${tag}lease`;
  const reservationId = `${key}${tag}reservation`;
  const floatingIpId = `${key}${tag}fip`;
  const capability = `${key}${tag}capability`;
  const addedCapability = `${key}${tag}added`;
  const property = `${key}${tag}property`;
  const projectId = `${key}${tag}project`;
  const info = smallHostInfo({
    hypervisorHostname: `${key}${tag}host`,
    serviceName: value,
    cpuInfo: value,
    hypervisorType: value,
    availabilityZone: value,
  });
  const hostRegistered: HostRegistered = {
    type: 'Host.Registered',
    data: { hostId, info, capabilities: { [capability]: value }, registeredAt: AT },
  };
  const capabilitiesUpdated: HostCapabilitiesUpdated = {
    type: 'Host.CapabilitiesUpdated',
    data: { hostId, capabilities: { [addedCapability]: value }, updatedAt: AT },
  };
  const leaseCreated = created({
    leaseId,
    name: `first${tag}`,
    projectId,
    userId: value,
    startDate: START,
    endDate: END,
    beforeEndDate: null,
    reservations: [
      reservation(reservationId, { resourceId: value, hypervisorProperties: value, resourceProperties: value, hostIds: [hostId] }),
    ],
    eventIds: { start: `${key}${tag}start`, end: `${key}${tag}end`, beforeEnd: `${key}${tag}before` },
  });
  const renamed: LeaseRenamed = { type: 'Lease.Renamed', data: { leaseId, name: value, renamedAt: AT } };
  const booked: HostBooked = {
    type: 'Host.Booked',
    data: { hostId, reservationId, leaseId, startDate: START, endDate: END, propertyNames: [capability] },
  };
  const floatingIp: FloatingIpRegistered = {
    type: 'FloatingIp.Registered',
    data: { floatingIpId, networkId: `${key}${tag}network`, subnetId: value, address: value, registeredAt: AT },
  };
  const flavor: Flavor = {
    id: `${key}${tag}flavor`,
    name: value,
    vcpus: 1,
    ram: 512,
    disk: 1,
    ephemeral: 0,
    swap: 0,
    rxtxFactor: 1,
    isPublic: true,
    extraSpecs: { [value]: value },
  };
  const flavorAdded: FlavorCatalogEvent = { type: 'FlavorCatalog.FlavorAdded', data: { flavor, addedAt: AT } };
  const privacy: ResourcePropertyEvent = {
    type: 'ResourceProperty.PrivacyChanged',
    data: { propertyName: property, private: true, changedAt: AT },
  };
  return {
    value,
    tag,
    hostId,
    leaseId,
    reservationId,
    floatingIpId,
    capability,
    addedCapability,
    property,
    projectId,
    flavor,
    streams: [
      [hostStream(hostId), [hostRegistered, capabilitiesUpdated, booked]],
      [leaseStream(leaseId), [leaseCreated, renamed]],
      [floatingIpStream(floatingIpId), [floatingIp]],
      [FLAVOR_CATALOG_STREAM, [flavorAdded]],
      [propertyStream(property), [privacy]],
    ] as const satisfies readonly (readonly [string, readonly DomainEvent[]])[],
    lease: evolveLeaseView(evolveLeaseView(null, leaseCreated), renamed),
    host: evolveHostView(evolveHostView(null, hostRegistered), capabilitiesUpdated)?.view,
    floatingIpView: evolveFloatingIpView(null, floatingIp),
  };
};

/** Every UTF-16 code unit equally likely, from a fixed seed: text that no compression shortens. */
const noiseText = (length: number, seed: number): string => {
  let state = seed;
  const next = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  return String.fromCharCode(...Array.from({ length }, () => next() & 0xffff));
};

// PostgreSQL cannot index a value this long (B-tree entries stop at 2704 bytes once compressed), so
// its keys are short: only columns without an index take it
const CASES: readonly { readonly label: string; readonly value: string; readonly key?: string }[] = [
  ...HOSTILE_STRINGS,
  { label: 'long text without repetition (outside keys)', value: noiseText(30_000, 11), key: 'noise' },
];
const SCENARIOS = CASES.map((c, index) => scenario(c.value, index, c.key));
const labelled = CASES.map(({ label }, index) => ({ label, s: SCENARIOS[index] as ReturnType<typeof scenario> }));

const writeAll = async (store: EventStore): Promise<void> => {
  const metadata = { correlationId: randomUUID(), causationId: randomUUID(), actor: null };
  for (const s of SCENARIOS) {
    for (const [streamId, events] of s.streams) {
      await store.appendToStream(
        streamId,
        'any',
        events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data, metadata })),
      );
    }
  }
};

/** Runs statements on a PostgreSQL database through plain knex, outside the read model. */
const runStatements = async (url: string, statements: readonly string[]): Promise<void> => {
  const client = knex({ client: 'pg', connection: url });
  try {
    for (const statement of statements) await client.raw(statement);
  } finally {
    await client.destroy();
  }
};

interface Executed {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

const hostileSuite = (open: () => Promise<{ readonly db: ReadModelDatabase; readonly cleanup: () => Promise<void> }>) => {
  let dir: string;
  let store: EventStore;
  let orm: MikroORM;
  let queries: ReadModelQueries;
  let cleanup: () => Promise<void> = async () => undefined;
  const executed: Executed[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-hostile-'));
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    await writeAll(store);
    const opened = await open();
    cleanup = opened.cleanup;
    orm = await openReadModel(opened.db);
    (orm.em.getConnection() as unknown as AbstractSqlConnection)
      .getKnex()
      .on('query', (query: { sql: string; bindings?: unknown[] }) => executed.push({ sql: query.sql, bindings: query.bindings ?? [] }));
    const runner = new ProjectionRunner({ store, orm });
    await runner.start();
    try {
      await runner.caughtUp;
    } finally {
      await runner.stop();
    }
    queries = new ReadModelQueries(orm);
  }, 120_000);

  afterAll(async () => {
    await orm?.close();
    await store?.close();
    await cleanup();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it.each(labelled)('$label: the lease, found by its id and by its project, comes back exactly', async ({ s }) => {
    expect(s.lease?.name).toBe(s.value);
    expect(await queries.lease(s.leaseId)).toEqual(s.lease);
    expect(await queries.leases(s.projectId)).toEqual([s.lease]);
  });

  it.each(labelled)('$label: the host, its capabilities and its allocation come back exactly', async ({ s }) => {
    expect(await queries.host(s.hostId)).toEqual(s.host);
    const [allocation] = await queries.allocations({ leaseId: s.leaseId, reservationId: null }, AT, s.hostId);
    expect(allocation?.reservations.map((r) => [r.id, r.lease_id])).toEqual([[s.reservationId, s.leaseId]]);
  });

  it.each(labelled)('$label: properties are read by their hostile names (primary keys)', async ({ s }) => {
    expect(await queries.property(s.capability)).toMatchObject({ name: s.capability, private: false });
    expect(await queries.property(s.addedCapability)).toMatchObject({ name: s.addedCapability, private: false });
    expect(await queries.property(s.property)).toMatchObject({ name: s.property, private: true });
  });

  it.each(labelled)('$label: the floating IP and the flavor come back exactly', async ({ s }) => {
    expect(await queries.floatingIp(s.floatingIpId)).toEqual(s.floatingIpView);
    expect(await queries.flavor(s.flavor.id)).toEqual({ view: toFlavorView(s.flavor), isPublic: true });
  });

  it.each(labelled)('$label: a lookup of an absent hostile key answers nothing, not an error', async ({ s }) => {
    const absent = `${s.value}~absent~`;
    expect(await queries.lease(absent)).toBeNull();
    expect(await queries.host(absent)).toBeNull();
    expect(await queries.property(absent)).toBeNull();
    expect(await queries.floatingIp(absent)).toBeNull();
    expect(await queries.flavor(absent)).toBeNull();
    expect(await queries.leases(absent)).toEqual([]);
  });

  it('lists every row exactly, in the queries\u2019 order', async () => {
    expect(await queries.hosts()).toEqual(SCENARIOS.map((s) => s.host));
    expect(await queries.floatingIps()).toEqual(SCENARIOS.map((s) => s.floatingIpView));
    const names = (await queries.properties()).map((p) => p.name);
    expect(new Set(names)).toEqual(new Set(SCENARIOS.flatMap((s) => [s.capability, s.addedCapability, s.property])));
    expect((await queries.flavors(true)).map((f) => f.id).sort()).toEqual(SCENARIOS.map((s) => s.flavor.id).sort());
  });

  it.each(LEASE_SORT_KEYS.flatMap((key) => (['asc', 'desc'] as const).map((dir) => ({ key, dir }))))(
    'pages the lease list by $key $dir in the database: every lease once, in the order of the whole sorted list',
    async ({ key, dir }) => {
      const sort = { key, dir };
      const whole = await queries.leaseDocumentPage({ projectId: null, status: null, sort, marker: null, limit: null });
      const walked: string[] = [];
      for (let marker: string | null = null, pages = 0; pages <= SCENARIOS.length; pages++) {
        const page = await queries.leaseDocumentPage({ projectId: null, status: null, sort, marker, limit: 3 });
        expect(page.markerFound).toBe(true);
        walked.push(...page.documents);
        if (!page.more) break;
        marker = page.lastId;
      }
      expect(walked.map((doc) => (JSON.parse(doc) as { id: string }).id)).toEqual(
        whole.documents.map((doc) => (JSON.parse(doc) as { id: string }).id),
      );
      expect(new Set(walked.map((doc) => (JSON.parse(doc) as { id: string }).id))).toEqual(new Set(SCENARIOS.map((s) => s.leaseId)));
    },
  );

  it('sorts lease names the API accepts by code point on either database, whatever its collation', async () => {
    const whole = await queries.leaseDocumentPage({
      projectId: null,
      status: null,
      sort: { key: 'name', dir: 'asc' },
      marker: null,
      limit: null,
    });
    const accepted = whole.documents
      .map((doc) => (JSON.parse(doc) as { name: string }).name)
      .filter((name) => encodeStoredText(name) === name);
    const byCodePoints = (a: string, b: string): number => {
      const [x, y] = [Array.from(a, (c) => c.codePointAt(0) ?? 0), Array.from(b, (c) => c.codePointAt(0) ?? 0)];
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
      return x.length - y.length;
    };
    expect(accepted.length).toBeGreaterThan(SCENARIOS.length / 2);
    expect(accepted).toEqual([...accepted].sort(byCodePoints));
  });

  it('answers a marker that names no lease of the list as not found', async () => {
    const page = await queries.leaseDocumentPage({
      projectId: SCENARIOS[0]?.projectId ?? '',
      status: null,
      sort: { key: 'name', dir: 'asc' },
      marker: SCENARIOS[1]?.leaseId ?? '',
      limit: 3,
    });
    expect(page).toMatchObject({ markerFound: false, documents: [] });
  });

  it('fills the sort columns of lease rows an older release wrote, hostile documents included', async () => {
    const sorted = async (): Promise<string[]> =>
      (
        await queries.leaseDocumentPage({
          projectId: null,
          status: null,
          sort: { key: 'created_at', dir: 'desc' },
          marker: null,
          limit: null,
        })
      ).documents;
    const before = await sorted();
    await orm.em.getConnection().execute('update lh_leases set created_at = null, updated_at = null');
    expect(await fillLeaseSortColumns(orm)).toBe(SCENARIOS.length);
    const rows = await orm.em.fork().find(LeaseEntity, {});
    expect(rows.map((row) => [row.createdAt, row.updatedAt])).toEqual(rows.map((row) => [row.doc.created_at, row.doc.updated_at]));
    expect(await sorted()).toEqual(before);
  });

  it('passes a lease row whose document has no creation date when it fills the sort columns, rather than reading it again forever', async () => {
    const [row] = await orm.em.fork().find(LeaseEntity, {}, { orderBy: { id: 'asc' }, limit: 1 });
    if (row === undefined) throw new Error('no lease row');
    const { created_at: _, ...undated } = row.doc;
    await orm.em.fork().nativeUpdate(LeaseEntity, { id: row.id }, { doc: undated });
    await orm.em.getConnection().execute('update lh_leases set created_at = null, updated_at = null');
    expect(await fillLeaseSortColumns(orm)).toBe(SCENARIOS.length - 1);
    const rows = await orm.em.fork().find(LeaseEntity, {});
    expect(rows.filter((found) => found.createdAt === null).map((found) => found.id)).toEqual([row.id]);
    await orm.em
      .fork()
      .nativeUpdate(LeaseEntity, { id: row.id }, { doc: row.doc, createdAt: row.doc.created_at, updatedAt: row.doc.updated_at });
  });

  it('never writes one of the values into SQL text: they all travel as bindings', () => {
    expect(executed.length).toBeGreaterThan(SCENARIOS.length);
    expect(executed.filter((statement) => statement.sql.includes('~h')).map((statement) => statement.sql.slice(0, 200))).toEqual([]);
    const bound = new Set(
      executed.flatMap((statement) => statement.bindings.filter((b): b is string => typeof b === 'string' && b.includes('~h'))),
    );
    expect(SCENARIOS.every((s) => [...bound].some((b) => b.includes(`${s.tag}lease`)))).toBe(true);
  });
};

describe('hostile strings through the event store, the projector and the queries, on SQLite', () => {
  hostileSuite(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-hostile-rm-'));
    return {
      db: { kind: 'sqlite', file: join(dir, 'read-model.sqlite') },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  });
});

const PG_URL = process.env.LEASEHOLD_TEST_PG_URL;

describe.skipIf(PG_URL === undefined || PG_URL === '')(
  'hostile strings through the event store, the projector and the queries, on PostgreSQL',
  () => {
    hostileSuite(async () => {
      const database = await createTestDatabase(PG_URL as string, 'leasehold_hostile');
      return { db: { kind: 'postgresql', url: database.url }, cleanup: () => database.drop() };
    });
  },
);

describe.skipIf(PG_URL === undefined || PG_URL === '')('a PostgreSQL read model made before text columns', () => {
  it('is upgraded in place at open: varchar(255) becomes text, rows stay, a long value fits', async () => {
    const database = await createTestDatabase(PG_URL as string, 'leasehold_upgrade');
    let orm: MikroORM | undefined;
    try {
      // the table as the read model created it while its string columns were MikroORM's varchar(255)
      await runStatements(database.url, [
        'create table "lh_properties" ("name" varchar(255) not null, "id" varchar(255) not null, "private" boolean not null, "created_at" varchar(255) not null, "updated_at" varchar(255) null, constraint "lh_properties_pkey" primary key ("name"))',
        `insert into "lh_properties" values ('gpu', 'id-gpu', true, '2030-01-01T00:00:00.000Z', null)`,
      ]);
      orm = await openReadModel({ kind: 'postgresql', url: database.url });
      const connection = orm.em.getConnection();
      const types = (await connection.execute(
        "select column_name, data_type from information_schema.columns where table_name = 'lh_properties' and data_type <> 'boolean' order by column_name",
      )) as { data_type: string }[];
      expect(types.map((t) => t.data_type)).toEqual(['text', 'text', 'text', 'text']);
      expect(await orm.schema.getUpdateSchemaSQL()).toBe('');
      const queries = new ReadModelQueries(orm);
      expect(await queries.property('gpu')).toMatchObject({ id: 'id-gpu', private: true });
      const long = `${'x'.repeat(1_000)}\u0000`;
      const em = orm.em.fork();
      em.create(PropertyEntity, { name: 'long', id: long, private: false, createdAt: long, updatedAt: long });
      await em.flush();
      expect(await queries.property('long')).toMatchObject({ id: long, updatedAt: long });
    } finally {
      await orm?.close();
      await database.drop();
    }
  });
});
