import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { foldEvents, hostStream, leaseStream } from '#domain/index.js';
import type { ConflictPolicy } from '#application/blazar-import/blazar-conflicts.js';
import { planBlazarImport, writeImport } from '#application/blazar-import/blazar-import.use-case.js';
import type { BlazarSource } from '#application/blazar-import/blazar-source.port.js';
import { openBlazarSource } from '#application/blazar-import/sources/open-blazar-source.js';
import { PostgresEventStore } from '#event-store/postgresql/postgresql-event-store.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import { type FixtureOptions, IDS } from '../fixtures/blazar/blazar-fixture.js';
import { writeMysqlBlazar, writePostgresBlazar, writeSqliteBlazar } from '../fixtures/blazar/blazar-database.js';
import { type BlazarDatabase, BLAZAR_ENGINES } from '../fixtures/blazar/blazar-engines.js';
import { CURRENT_HEAD } from '../fixtures/blazar/blazar-schema.js';
import { createMysqlTestDatabase } from '../helpers/mysql-database.js';
import { type TestDatabase, createTestDatabase } from '../helpers/pg-database.js';

/**
 * The import against real databases: Blazar's tables in SQLite, PostgreSQL and MariaDB (each filled by the one
 * fixture) and the real SQLite event store. The PostgreSQL and MariaDB sources run when their server is configured.
 */
const PG_URL = process.env.LEASEHOLD_TEST_PG_URL ?? '';
const MYSQL_URL = process.env.LEASEHOLD_TEST_MYSQL_URL ?? '';

interface ImportOptions {
  readonly dryRun: boolean;
  readonly policy: ConflictPolicy;
}

const REFUSE: ImportOptions = { dryRun: false, policy: 'refuse' };

/** What the CLI does: plan, then write unless it is a dry run or the policy refused. */
const importBlazar = async (source: BlazarSource, store: EventStore, { dryRun, policy }: ImportOptions) => {
  const plan = await planBlazarImport(source, policy);
  if (dryRun) return { outcome: 'dry_run', plan, written: 0 };
  if (plan.refused) return { outcome: 'refused', plan, written: 0 };
  return { ...(await writeImport(plan, store)), plan };
};

/** Opens a source on `url`, imports, closes it. */
const importFrom = async (url: string, store: EventStore, options: ImportOptions = REFUSE) => {
  const source = await openBlazarSource(url);
  try {
    return await importBlazar(source, store, options);
  } finally {
    await source.close();
  }
};

for (const engine of BLAZAR_ENGINES) {
  describe.skipIf(engine.server === '')(`leasehold import-blazar: the import from ${engine.name}`, () => {
    let dir: string;
    let store: EventStore;
    let created: BlazarDatabase[] = [];

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'blazar-import-'));
      store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    });
    afterEach(async () => {
      await store.close();
      await Promise.all(created.map((database) => database.drop()));
      created = [];
      rmSync(dir, { recursive: true, force: true });
    });

    const blazar = async (options: FixtureOptions = {}): Promise<string> => {
      const database = await engine.create(dir, options);
      created.push(database);
      return database.url;
    };

    const run = (url: string, options: ImportOptions = REFUSE) => importFrom(url, store, options);

    const leaseState = async (leaseId: string) => foldEvents(leaseDecider, (await store.readStream(leaseStream(leaseId))) as never);

    it('imports every lease with its id, brought to the status Blazar left it in', async () => {
      const outcome = await run(await blazar());
      expect(outcome.outcome).toBe('imported');
      expect(outcome.plan.state.problems).toEqual([]);
      expect((await leaseState(IDS.hostLease)).status).toBe('Pending');
      expect((await leaseState(IDS.activeLease)).status).toBe('Active');
      expect((await leaseState(IDS.endedLease)).status).toBe('Ended');
      const degraded = await leaseState(IDS.degradedLease);
      expect(degraded.status === 'Pending' && degraded.lease.healing[IDS.degradedReservation]).toEqual({
        missingResources: true,
        resourcesChanged: false,
      });
    });

    it('records every event with the importer as actor and the Blazar row as causation', async () => {
      await run(await blazar());
      const events: RecordedEvent[] = await store.readAll({ from: 0 });
      expect(events.length).toBeGreaterThan(20);
      for (const event of events) {
        expect(event.metadata).toMatchObject({ actor: null, system: 'blazar-import', correlationId: 'blazar-import' });
        expect(event.metadata.causationId).toMatch(/^blazar:[a-z_]+:.+/);
      }
      const created = events.find((e) => e.type === 'Lease.Created' && (e.data as { leaseId: string }).leaseId === IDS.hostLease);
      expect(created?.metadata.causationId).toBe(`blazar:leases:${IDS.hostLease}`);
    });

    it('books the hosts, slots and addresses Blazar allocated, not others', async () => {
      await run(await blazar());
      const bookings = async (hostId: string) =>
        (await store.readStream(hostStream(hostId)))
          .filter((e) => e.type.endsWith('Booked'))
          .map((e) => [e.type, (e.data as { reservationId: string }).reservationId]);
      expect(await bookings('1')).toEqual([
        ['Host.Booked', IDS.endedReservation],
        ['Host.Booked', IDS.hostReservation],
      ]);
      expect(await bookings('2')).toEqual([['Host.SlotsBooked', IDS.instanceReservation]]);
      expect((await store.readStream(hostStream('2'))).find((e) => e.type === 'Host.SlotsBooked')?.data).toMatchObject({
        slots: { count: 2, vcpus: 2 },
      });
      expect(await bookings('4')).toEqual([]);
    });

    it('--dry-run reports what it would import and writes nothing', async () => {
      const outcome = await run(await blazar(), { dryRun: true, policy: 'refuse' });
      expect(outcome.outcome).toBe('dry_run');
      expect(outcome.plan.appends.appends.length).toBeGreaterThan(0);
      expect(await store.headPosition()).toBe(0);
    });

    it('a re-run of the same import writes nothing', async () => {
      const url = await blazar();
      await run(url);
      const head = await store.headPosition();
      const again = await run(url);
      expect(again).toMatchObject({ outcome: 'already_imported', written: 0 });
      expect(await store.headPosition()).toBe(head);
    });

    it('a re-run after the import was cut short writes the rest, once', async () => {
      const url = await blazar();
      const dry = await run(url, { dryRun: true, policy: 'refuse' });
      const appends = dry.plan.appends.appends;
      for (const requests of appends.slice(0, 3)) await store.appendMultiple(requests);
      const resumed = await run(url);
      expect(resumed.outcome).toBe('imported');
      expect(await store.headPosition()).toBe(appends.flat().reduce((sum, r) => sum + r.events.length, 0));
    });

    it('refuses a ledger that already holds other events, and writes nothing', async () => {
      await store.appendToStream('lease-other', 'no_stream', [
        { id: 'e1', type: 'Noted', data: {}, metadata: { correlationId: 'c', causationId: 'c', actor: null } },
      ]);
      await expect(run(await blazar())).rejects.toThrow(/imports into an empty ledger only/);
      expect(await store.headPosition()).toBe(1);
    });

    it('refuses an unknown alembic revision by name, and one older than Zed', async () => {
      await expect(run(await blazar({ revision: 'deadbeef0001' }))).rejects.toThrow(
        /revision deadbeef0001, which this Leasehold does not know/,
      );
      await expect(run(await blazar({ revision: 'f4084140f608' }))).rejects.toThrow(/revision f4084140f608, older than Zed/);
      expect(await store.headPosition()).toBe(0);
    });

    it('reads the current release (553383923ca0) too', async () => {
      expect((await run(await blazar({ revision: CURRENT_HEAD }))).outcome).toBe('imported');
    });

    it('reports a double booking and, by default, refuses the whole import', async () => {
      const outcome = await run(await blazar({ doubleBooking: true }));
      expect(outcome.outcome).toBe('refused');
      expect(outcome.plan.state.problems).toEqual([
        expect.objectContaining({
          kind: 'double_booking',
          leaseId: IDS.doubleLease,
          message: expect.stringContaining('host 1 is double-booked'),
        }),
      ]);
      expect(await store.headPosition()).toBe(0);
    });

    it('--on-conflict=keep-first keeps the lease Blazar created first; skip-all leaves out both', async () => {
      const url = await blazar({ doubleBooking: true });
      const kept = await run(url, { dryRun: true, policy: 'keep-first' });
      expect([...kept.plan.leftOut]).toEqual([IDS.doubleLease]);
      const skipped = await run(url, { dryRun: true, policy: 'skip-all' });
      expect([...skipped.plan.leftOut].sort()).toEqual([IDS.hostLease, IDS.doubleLease].sort());
      await run(url, { dryRun: false, policy: 'keep-first' });
      expect((await leaseState(IDS.hostLease)).status).toBe('Pending');
      expect((await leaseState(IDS.doubleLease)).status).toBe('Initial');
    });
  });
}

/** Rows Blazar's MariaDB and PostgreSQL refuse (their foreign keys hold) but its SQLite keeps. */
describe('leasehold import-blazar: what only a SQLite Blazar can hold', () => {
  let dir: string;
  let store: EventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'blazar-import-'));
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sqliteBlazar = (extra: Parameters<typeof writeSqliteBlazar>[2]) => {
    const file = join(dir, 'blazar.sqlite');
    writeSqliteBlazar(file, {}, extra);
    return `sqlite:///${file}`;
  };
  const run = (url: string, options: ImportOptions = REFUSE) => importFrom(url, store, options);

  it('reports inverted dates and reservations pointing nowhere', async () => {
    const url = sqliteBlazar([
      {
        table: 'leases',
        row: {
          id: 'inverted',
          name: 'inverted',
          user_id: 'u',
          project_id: 'p',
          start_date: '2031-01-02 00:00:00',
          end_date: '2031-01-01 00:00:00',
          status: 'PENDING',
          degraded: 0,
          created_at: '2030-01-01 00:00:00',
        },
      },
      {
        table: 'events',
        row: {
          id: 'inv-start',
          lease_id: 'inverted',
          event_type: 'start_lease',
          time: '2031-01-02 00:00:00',
          status: 'UNDONE',
          created_at: '2030-01-01 00:00:00',
        },
      },
      {
        table: 'events',
        row: {
          id: 'inv-end',
          lease_id: 'inverted',
          event_type: 'end_lease',
          time: '2031-01-01 00:00:00',
          status: 'UNDONE',
          created_at: '2030-01-01 00:00:00',
        },
      },
      {
        table: 'reservations',
        row: {
          id: 'orphan',
          lease_id: 'gone',
          resource_type: 'physical:host',
          status: 'pending',
          missing_resources: 0,
          resources_changed: 0,
          created_at: '2030-01-01 00:00:00',
        },
      },
      {
        table: 'computehost_allocations',
        row: { id: 'stray', compute_host_id: '9', reservation_id: IDS.activeReservation, created_at: '2030-01-01 00:00:00' },
      },
    ]);
    const outcome = await run(url, { dryRun: true, policy: 'refuse' });
    expect(outcome.plan.state.problems.map((p) => [p.kind, p.leaseId])).toEqual(
      expect.arrayContaining([
        ['inverted_dates', 'inverted'],
        ['dangling_reference', null],
        ['dangling_reference', IDS.activeLease],
      ]),
    );
    expect(outcome.plan.state.problems.map((p) => p.message).join('\n')).toMatch(/names host 9, which does not exist/);
  });
});

describe.skipIf(PG_URL === '')('leasehold import-blazar: a PostgreSQL source', () => {
  let database: TestDatabase;
  let dir: string;
  afterAll(async () => {
    await database?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('imports the same state from Blazar on PostgreSQL (SQLAlchemy URL form)', async () => {
    database = await createTestDatabase(PG_URL, 'blazar_src');
    const fixture = await writePostgresBlazar(database.url);
    dir = mkdtempSync(join(tmpdir(), 'blazar-import-pg-'));
    const store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    const source = await openBlazarSource(database.url.replace(/^postgres(ql)?:/, 'postgresql+psycopg2:'));
    try {
      const outcome = await importBlazar(source, store, REFUSE);
      expect(outcome.outcome).toBe('imported');
      const created = (await store.readStream(leaseStream(IDS.activeLease)))[0]?.data as { startDate: string; createdAt: string };
      expect(created.startDate).toBe(new Date(fixture.now - 3_600_000).toISOString());
      expect(foldEvents(leaseDecider, (await store.readStream(leaseStream(IDS.activeLease))) as never).status).toBe('Active');
    } finally {
      await source.close();
      await store.close();
    }
  });

  it('writes into a PostgreSQL ledger (LEASEHOLD_EVENT_STORE_URL), and a re-run there writes nothing', async () => {
    const ledgerUrl = new URL(database.url);
    ledgerUrl.searchParams.set('schema', 'imported_ledger');
    const store = await PostgresEventStore.open({ url: ledgerUrl.toString() });
    const source = await openBlazarSource(database.url);
    try {
      expect((await importBlazar(source, store, REFUSE)).outcome).toBe('imported');
      const head = await store.headPosition();
      expect(await importBlazar(source, store, REFUSE)).toMatchObject({ outcome: 'already_imported', written: 0 });
      expect(await store.headPosition()).toBe(head);
      expect(foldEvents(leaseDecider, (await store.readStream(leaseStream(IDS.endedLease))) as never).status).toBe('Ended');
    } finally {
      await source.close();
      await store.close();
    }
  });
});

describe.skipIf(MYSQL_URL === '')('leasehold import-blazar: a MariaDB source', () => {
  let database: TestDatabase;
  let fixture: Awaited<ReturnType<typeof writeMysqlBlazar>>;
  let dir: string;
  beforeAll(async () => {
    database = await createMysqlTestDatabase(MYSQL_URL, 'blazar_src');
    fixture = await writeMysqlBlazar(database.url);
    dir = mkdtempSync(join(tmpdir(), 'blazar-import-mysql-'));
  });
  afterAll(async () => {
    await database?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const serverTimeZone = async (): Promise<string> => {
    const connection = await mysql.createConnection(database.url);
    try {
      const [rows] = await connection.query<mysql.RowDataPacket[]>('select @@global.time_zone as zone');
      return String(rows[0]?.zone);
    } finally {
      await connection.end();
    }
  };

  it("reads Blazar's naive UTC dates unshifted, the server's time zone and this process's both not UTC", async () => {
    expect(await serverTimeZone(), 'the test server runs at +05:30 (scripts/services/mariadb-up.sh)').not.toMatch(/^(\+00:00|UTC|SYSTEM)$/);
    const zone = process.env.TZ;
    process.env.TZ = 'America/St_Johns';
    const store = SqliteEventStore.open({ file: join(dir, 'dates.sqlite') });
    try {
      expect(new Date(fixture.now).getTimezoneOffset()).not.toBe(0);
      expect((await importFrom(database.url, store)).outcome).toBe('imported');
      const created = (await store.readStream(leaseStream(IDS.activeLease)))[0]?.data as Record<string, string>;
      expect([created.startDate, created.endDate, created.createdAt]).toEqual(
        [fixture.now - 3_600_000, fixture.now + 2 * 86_400_000, fixture.now - 3_660_000].map((ms) => new Date(ms).toISOString()),
      );
    } finally {
      process.env.TZ = zone;
      await store.close();
    }
  });

  it('takes the URL blazar.conf holds: mysql+pymysql://, ?charset=utf8, and says which options it ignores', async () => {
    const url = new URL(database.url.replace(/^mysql:/, 'mysql+pymysql:'));
    url.searchParams.set('charset', 'utf8');
    url.searchParams.set('read_timeout', '30');
    const store = SqliteEventStore.open({ file: join(dir, 'url.sqlite') });
    try {
      const outcome = await importFrom(url.toString(), store, { dryRun: true, policy: 'refuse' });
      expect(outcome.plan.state.problems).toEqual([]);
      expect(outcome.plan.state.notes).toContainEqual({
        message: "the database URL's option read_timeout is not used by the import: ignored",
      });
      expect(outcome.plan.state.notes.map((n) => n.message).join('\n')).not.toMatch(/charset/);
    } finally {
      await store.close();
    }
  });
});
