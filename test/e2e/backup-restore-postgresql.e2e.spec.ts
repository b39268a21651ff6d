/**
 * A log on PostgreSQL (issue 36, line 3): `leasehold backup` and `leasehold restore` refuse to copy it and
 * print the pg_dump and pg_restore commands for the configured schema, without the password; those very
 * commands, run while the system creates leases, restore into an empty database a log equal to the
 * source's up to its head, on which a system answers GET /v1/leases as the source did and appends on.
 * Needs LEASEHOLD_TEST_PG_E2E_URL (scripts/services/pg-up.sh) and pg_dump/pg_restore on the PATH.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { PostgresEventStore } from '#event-store/postgresql/postgresql-event-store.js';
import { pinnedHost } from '../helpers/api-fixtures.js';
import { type CliResult, failed, leaseholdWith } from '../helpers/cli.js';
import { api, blazarDate } from '../helpers/http.js';
import { type Client, describeBody } from '../helpers/lease-client.js';
import { type TestDatabase, createTestDatabase } from '../helpers/pg-database.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const serverUrl = process.env.LEASEHOLD_TEST_PG_E2E_URL ?? '';
const SCHEMA = 'ledger_backup';
const HOST = 'pg-backup-host';

const leaseOnDay = (n: number) => ({
  name: `pg-backup-lease-${n}`,
  start_date: blazarDate((n + 1) * 24 * 60),
  end_date: blazarDate((n + 1) * 24 * 60 + 60),
  reservations: [pinnedHost(HOST)],
  events: [],
});

/** The one command the CLI printed on the line below its explanation. */
const printedCommand = (result: CliResult, tool: string): string => {
  const line = failed(result).find((text) => text.startsWith(`${tool} `));
  if (line === undefined) throw new Error(`no ${tool} command in:\n${result.stderr}`);
  return line;
};

const shell = (command: string, password: string): Promise<CliResult> =>
  new Promise((resolve) => {
    execFile('sh', ['-c', command], { env: { ...process.env, PGPASSWORD: password }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });

const wholeLog = async (url: string): Promise<RecordedEvent[]> => {
  const store = await PostgresEventStore.open({ url });
  try {
    return await store.readAll({ from: 0 });
  } finally {
    await store.close();
  }
};

const leases = async (client: Client): Promise<Map<string, unknown>> => {
  const response = await client.get('/v1/leases');
  expect(response.status, describeBody(response)).toBe(200);
  return new Map((response.body as { leases: { id: string }[] }).leases.map((lease) => [lease.id, lease]));
};

/** Two systems, pg_dump and pg_restore: on a loaded machine that takes a while. */
const SLOW = 180_000;

describe.skipIf(serverUrl === '')('backing up and restoring a PostgreSQL log with pg_dump and pg_restore', () => {
  let work: string;
  const databases: TestDatabase[] = [];
  const systems: RunningSystem[] = [];
  let source: string;
  let restored: string;

  const storeUrl = (database: TestDatabase): string => {
    const url = new URL(database.url);
    url.searchParams.set('schema', SCHEMA);
    return url.toString();
  };

  const start = async (eventStoreUrl: string): Promise<RunningSystem> => {
    const system = await startSystem({ dataDir: mkdtempSync(join(work, 'data-')), env: { LEASEHOLD_EVENT_STORE_URL: eventStoreUrl } });
    systems.push(system);
    return system;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'leasehold-pg-backup-'));
    for (const prefix of ['backup_source', 'backup_target']) databases.push(await createTestDatabase(serverUrl, prefix));
    [source, restored] = databases.map(storeUrl) as [string, string];
  });

  afterAll(async () => {
    await Promise.all(systems.map((system) => system.stop()));
    await Promise.all(databases.map((database) => database.drop()));
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it(
    'prints pg_dump and pg_restore for the schema, runs them while leases are created, and restores the log',
    async () => {
      const password = decodeURIComponent(new URL(source).password);
      const file = join(work, 'ledger.dump');
      const client = api((await start(source)).url);
      expect((await client.post('/v1/os-hosts', { name: HOST })).status).toBe(201);

      const backup = await leaseholdWith({ LEASEHOLD_EVENT_STORE_URL: source, LEASEHOLD_DATA_DIR: work }, 'backup', file);
      expect(backup.code).toBe(1);
      expect(backup.stderr).toContain('the event log is on PostgreSQL (LEASEHOLD_EVENT_STORE_URL): back it up with pg_dump');
      expect(backup.stderr).not.toContain(`:${password}@`);
      const dump = printedCommand(backup, 'pg_dump');
      expect(dump).toContain(`--schema=${SCHEMA} --schema=${SCHEMA}_audit`);

      const created: string[] = [];
      const createLease = async (): Promise<void> => {
        const response = await client.post('/v1/leases', leaseOnDay(created.length));
        expect(response.status, describeBody(response)).toBe(201);
        created.push((response.body as { lease: { id: string } }).lease.id);
      };
      for (let n = 0; n < 3; n += 1) await createLease();
      let writing = true;
      const writer = (async () => {
        while (writing) await createLease();
      })();
      const before = [...created];
      const dumped = await shell(dump, password);
      writing = false;
      await writer;
      expect(dumped.code, dumped.stderr).toBe(0);

      const restore = await leaseholdWith({ LEASEHOLD_EVENT_STORE_URL: restored, LEASEHOLD_DATA_DIR: work }, 'restore', file);
      expect(restore.stderr).toContain('restore it with pg_restore into the database LEASEHOLD_EVENT_STORE_URL names, which must be empty');
      const pgRestore = await shell(printedCommand(restore, 'pg_restore'), password);
      expect(pgRestore.code, pgRestore.stderr).toBe(0);

      const [sourceLog, restoredLog] = [await wholeLog(source), await wholeLog(restored)];
      const head = restoredLog.at(-1)?.position ?? 0;
      expect(restoredLog).toEqual(sourceLog.filter((event) => event.position <= head));

      const restoredClient = api((await start(restored)).url);
      const fromSource = await leases(client);
      const restoredLeases = restoredLog.filter((event) => event.type === 'Lease.Created').length;
      const fromRestored = await eventually(async () => {
        const answered = await leases(restoredClient);
        return answered.size === restoredLeases ? answered : undefined;
      });
      for (const id of before) expect(fromRestored.has(id), `lease ${id}, created before pg_dump began`).toBe(true);
      for (const [id, lease] of fromRestored) expect(lease).toEqual(fromSource.get(id));
      const appended = await restoredClient.post('/v1/leases', leaseOnDay(created.length));
      expect(appended.status, describeBody(appended)).toBe(201);
      expect((await wholeLog(restored)).at(-1)?.position).toBeGreaterThan(head);
    },
    SLOW,
  );
});
