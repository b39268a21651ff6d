/**
 * The operators' CLI (`leasehold`, dist/apps/cli) on a data folder made by running the built system:
 * `history` prints what GET /v1/leases/{id}/history answers, by id or by name; `export` writes every
 * public event in log order; `verify` passes on the live read model while the service runs and names
 * each difference (exit 1) once a row is tampered with; no command changes a byte of the store; every
 * subcommand has --help, and a wrong command line is one line on stderr and exit 2. With the read model on
 * PostgreSQL (LEASEHOLD_TEST_PG_E2E_URL), verify reads it in a read-only transaction and finds a tampered row.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedHost } from '../helpers/api-fixtures.js';
import { alignedTable, leasehold, leaseholdWith } from '../helpers/cli.js';
import { api, blazarDate } from '../helpers/http.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg-database.js';
import { queryPostgres } from '../helpers/postgres.js';
import { type Client, describeBody } from '../helpers/lease-client.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

interface Entry {
  readonly position: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

const lines = (text: string): string[] => text.split('\n').filter((line) => line.length > 0);
const exported = (stdout: string): Entry[] => lines(stdout).map((line) => JSON.parse(line) as Entry);

const storePositions = (dataDir: string, upTo: number): number[] => {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('select position from events where position <= ? order by position').pluck().all(upTo) as number[];
  } finally {
    db.close();
  }
};

const fingerprint = (dataDir: string): Record<string, string | null> =>
  Object.fromEntries(
    ['events.sqlite', 'read-model.sqlite'].map((name) => {
      const file = join(dataDir, name);
      return [name, existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : null];
    }),
  );

const withReadModel = (dataDir: string, change: (db: Database.Database) => void): void => {
  const db = new Database(join(dataDir, 'read-model.sqlite'));
  try {
    change(db);
  } finally {
    db.close();
  }
};

describe('leasehold CLI (history, export, verify) on a data folder of the running system', () => {
  let dataDir: string;
  let system: RunningSystem;
  let client: Client;
  let leaseId: string;
  const twins: string[] = [];

  const httpHistory = async (id: string): Promise<unknown> => {
    const response = await client.get(`/v1/leases/${id}/history`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'leasehold-cli-e2e-'));
    system = await startSystem({ dataDir });
    client = api(system.url);
    expect((await client.post('/v1/os-hosts', { name: 'cli-host' })).status).toBe(201);
    const created = await client.post('/v1/leases', {
      name: 'cli-lease',
      start_date: 'now',
      end_date: blazarDate(120),
      reservations: [pinnedHost('cli-host')],
    });
    expect(created.status, describeBody(created)).toBe(201);
    leaseId = created.body.lease.id as string;
    for (const day of [3, 4]) {
      const twin = await client.post('/v1/leases', {
        name: 'twin',
        start_date: blazarDate(60 * 24 * day),
        end_date: blazarDate(60 * 24 * day + 60),
        reservations: [pinnedHost('cli-host')],
      });
      expect(twin.status, describeBody(twin)).toBe(201);
      twins.push(twin.body.lease.id as string);
    }
    await eventually(
      async () => {
        const history = (await httpHistory(leaseId)) as { history: Entry[] };
        return history.history.some((entry) => entry.type === 'lease.started') ? true : undefined;
      },
      30_000,
      'the reactor to start the lease',
    );
  });

  afterAll(async () => {
    await system?.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  describe('while the service runs', () => {
    it('history <id> prints the body of GET /v1/leases/{id}/history byte for byte', async () => {
      const result = await leasehold(dataDir, 'history', leaseId);
      expect(result.code, result.stderr).toBe(0);
      const response = await fetch(`${system.url}/v1/leases/${leaseId}/history`, { headers: { Accept: 'application/json' } });
      expect(response.status).toBe(200);
      expect(result.stdout).toBe(await response.text());
      expect(result.stderr).toBe('');
      const json = await leasehold(dataDir, 'history', leaseId, '--format', 'json');
      expect(json.stdout).toBe(result.stdout);
    });

    it('history <name> finds the lease by its name; a name two leases share is refused with both ids (exit 2)', async () => {
      const byName = await leasehold(dataDir, 'history', 'cli-lease');
      expect(byName.code, byName.stderr).toBe(0);
      expect(JSON.parse(byName.stdout)).toEqual(await httpHistory(leaseId));

      const ambiguous = await leasehold(dataDir, 'history', 'twin');
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stdout).toBe('');
      expect(lines(ambiguous.stderr)).toHaveLength(1);
      for (const id of twins) expect(ambiguous.stderr).toContain(id);

      const unknown = await leasehold(dataDir, 'history', 'no-such-lease');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toBe('leasehold: no lease has the id or name "no-such-lease"\n');
    });

    it('history --format table: a header and one aligned row per event, with its time, type, actor and summary', async () => {
      const { history } = (await httpHistory(leaseId)) as { history: (Entry & { recorded_at: string; summary: string })[] };
      const result = await leasehold(dataDir, 'history', leaseId, '--format', 'table');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toContain('\t');
      const [header, ...rows] = alignedTable(result.stdout);
      expect(header).toEqual(['position', 'recorded_at', 'type', 'actor', 'summary']);
      expect(rows.map((row) => [row[0], row[1], row[2], row[4]])).toEqual(
        history.map((entry) => [String(entry.position), entry.recorded_at, entry.type, entry.summary]),
      );
      expect(rows.map((row) => row[3])).toContain('reactor');
    });

    it('export writes every event of the log as one public event per line, in log order; --from-position N the ones after N', async () => {
      const result = await leasehold(dataDir, 'export');
      expect(result.code, result.stderr).toBe(0);
      const events = exported(result.stdout);
      const last = events.at(-1)?.position ?? 0;
      expect(events.map((event) => event.position)).toEqual(storePositions(dataDir, last));
      const { history } = (await httpHistory(leaseId)) as { history: Entry[] };
      expect(events.filter((event) => history.some((entry) => entry.position === event.position))).toEqual(history);

      const middle = events[Math.floor(events.length / 2)]?.position ?? 0;
      const tail = await leasehold(dataDir, 'export', '--from-position', String(middle));
      expect(tail.code, tail.stderr).toBe(0);
      expect(exported(tail.stdout).filter((event) => event.position <= last)).toEqual(events.filter((event) => event.position > middle));
    });

    it('verify passes on the live read model while the service writes, with no progress bar on a pipe', async () => {
      const result = await leasehold(dataDir, 'verify');
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(
        /^ok: the live read model matches the log replayed at position \d+ \(the log's head: \d+\), \d+ rows\n$/,
      );
      expect(result.stderr).toBe('');
    });
  });

  describe('with the service stopped', () => {
    beforeAll(async () => {
      await system.stop();
    });

    it('no command changes a byte of the event store or the read model', async () => {
      const before = fingerprint(dataDir);
      expect(before['events.sqlite']).not.toBeNull();
      for (const args of [['history', leaseId], ['history', 'cli-lease'], ['export'], ['verify'], ['history', 'twin']]) {
        await leasehold(dataDir, ...args);
        expect(fingerprint(dataDir), args.join(' ')).toEqual(before);
      }
    });

    it('verify names every tampered row and exits 1', async () => {
      const hostId = await eventually(async () => {
        let id: string | undefined;
        withReadModel(dataDir, (db) => {
          id = db.prepare('select id from lh_hosts limit 1').pluck().get() as string | undefined;
        });
        return id;
      });
      withReadModel(dataDir, (db) => {
        db.prepare("update lh_leases set name = 'tampered' where id = ?").run(leaseId);
        db.prepare('delete from lh_hosts where id = ?').run(hostId);
        db.prepare(
          "insert into lh_reservations (id, lease_id, project_id, resource_type, status) values ('planted', ?, 'p', 'physical:host', 'active')",
        ).run(leaseId);
      });
      const result = await leasehold(dataDir, 'verify');
      expect(result.code, result.stderr).toBe(1);
      expect(lines(result.stdout)).toEqual([
        `lh_leases ${leaseId} name: live "tampered", log "cli-lease"`,
        'lh_reservations planted: in the live read model, but the log does not produce it',
        `lh_hosts ${hostId}: missing from the live read model`,
        expect.stringMatching(/^3 difference\(s\) between the live read model and the log replayed at position \d+/),
      ]);
    });
  });

  describe('command line', () => {
    it.each(['history', 'export', 'verify'])('%s --help describes it and exits 0', async (command) => {
      const result = await leasehold(dataDir, command, '--help');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: leasehold ${command}`);
    });

    it.each([
      [['nonsense'], "leasehold: unknown command 'nonsense'\n"],
      [
        ['export', '--from-position', '-3'],
        "leasehold: option '--from-position <n>' argument '-3' is invalid. expected a whole number, 0 or more.\n",
      ],
      [['history'], "leasehold: missing required argument 'lease'\n"],
      [
        ['history', 'x', '--format', 'xml'],
        "leasehold: option '--format <format>' argument 'xml' is invalid. Allowed choices are json, table.\n",
      ],
      [
        ['--data-dir', '/nonexistent', 'export'],
        'leasehold: no event store at /nonexistent/events.sqlite (set --data-dir or LEASEHOLD_DATA_DIR)\n',
      ],
    ])('%j: one line on stderr, exit 2', async (args, message) => {
      const result = await leasehold(dataDir, ...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(message);
      expect(result.stdout).toBe('');
    });
  });
});

const pgServer = process.env.LEASEHOLD_TEST_PG_E2E_URL;

describe.skipIf(pgServer === undefined || pgServer === '')(
  'leasehold verify with the read model on PostgreSQL (LEASEHOLD_READ_MODEL_URL)',
  () => {
    let system: RunningSystem;
    let database: TestDatabase;
    let leaseId: string;
    const settings = (): Record<string, string> => ({ LEASEHOLD_DATA_DIR: system.dataDir, LEASEHOLD_READ_MODEL_URL: database.url });

    beforeAll(async () => {
      database = await createTestDatabase(pgServer ?? '', 'leasehold_cli');
      system = await startSystem({ env: { LEASEHOLD_READ_MODEL_URL: database.url } });
      const client = api(system.url);
      expect((await client.post('/v1/os-hosts', { name: 'cli-pg-host' })).status).toBe(201);
      const created = await client.post('/v1/leases', {
        name: 'cli-pg-lease',
        start_date: blazarDate(600),
        end_date: blazarDate(660),
        reservations: [pinnedHost('cli-pg-host')],
      });
      expect(created.status, describeBody(created)).toBe(201);
      leaseId = created.body.lease.id as string;
    });

    afterAll(async () => {
      await system?.stop();
      await database?.drop();
    });

    it('passes on the live read model, then names a tampered row and exits 1', async () => {
      await eventually(
        async () =>
          (await queryPostgres(database.url, 'select id from lh_leases where id = $1', [leaseId])).length === 1 ? true : undefined,
        10_000,
        'the projector to project the lease',
      );
      const clean = await leaseholdWith(settings(), 'verify');
      expect(clean.code, clean.stdout + clean.stderr).toBe(0);
      expect(clean.stdout).toMatch(/^ok: the live read model matches the log/);

      await queryPostgres(database.url, "update lh_leases set name = 'tampered' where id = $1", [leaseId]);
      const tampered = await leaseholdWith(settings(), 'verify');
      expect(tampered.code, tampered.stderr).toBe(1);
      expect(lines(tampered.stdout)[0]).toBe(`lh_leases ${leaseId} name: live "tampered", log "cli-pg-lease"`);
    });
  },
);
