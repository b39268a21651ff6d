/**
 * `leasehold backup` and `leasehold restore` (issue 36, line 3) on the built system: a backup taken while
 * leases are being created restores into a new folder whose system answers GET /v1/leases as the source
 * did; --to-position brings back the ledger as it was at a position (a later lease is gone, verify
 * passes, and a snapshot of the longer log is never taken up); a backup killed with SIGKILL leaves no
 * file under the backup's name and runs again; a restore into a folder in use, or of a file that is not
 * a Leasehold log, is refused and writes nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { pinnedHost } from '../helpers/api-fixtures.js';
import { type CliResult, failed, leasehold, succeeded } from '../helpers/cli.js';
import { api, blazarDate } from '../helpers/http.js';
import { type Client, describeBody } from '../helpers/lease-client.js';
import { type RunningSystem, ROOT, startSystem } from '../helpers/system.js';

const HOST = 'backup-host';
const DAY_MINUTES = 24 * 60;
const BACKED_UP = /^backed up (\d+) events, up to position (\d+), to /m;
const VERIFIED = /^ok: the live read model matches the log replayed at position (\d+)/m;

interface Lease {
  readonly id: string;
  readonly [key: string]: unknown;
}

/** Lease `n` books the one host for an hour on day n + 1: no two overlap, and none starts while the test runs. */
const leaseOnDay = (n: number) => ({
  name: `backup-lease-${n}`,
  start_date: blazarDate((n + 1) * DAY_MINUTES),
  end_date: blazarDate((n + 1) * DAY_MINUTES + 60),
  reservations: [pinnedHost(HOST)],
  events: [],
});

const withLog = <T>(file: string, read: (db: Database.Database) => T): T => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
};

const eventRows = (file: string, upTo: number): unknown[] =>
  withLog(file, (db) => db.prepare('SELECT * FROM events WHERE position <= ? ORDER BY position').all(upTo));

const snapshotPositions = (file: string): number[] =>
  withLog(file, (db) =>
    db.prepare("SELECT name FROM sqlite_master WHERE name = 'snapshots'").get() === undefined
      ? []
      : (db.prepare('SELECT position FROM snapshots').pluck().all() as number[]),
  );

const firstPositionOf = (file: string, leaseId: string): number =>
  withLog(file, (db) => db.prepare('SELECT MIN(position) FROM events WHERE stream_id = ?').pluck().get(`lease-${leaseId}`) as number);

const fingerprint = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [
        name,
        createHash('sha256')
          .update(readFileSync(join(dir, name)))
          .digest('hex'),
      ]),
  );

const leases = async (client: Client): Promise<Map<string, Lease>> => {
  const response = await client.get('/v1/leases');
  expect(response.status, describeBody(response)).toBe(200);
  return new Map((response.body as { leases: Lease[] }).leases.map((lease) => [lease.id, lease]));
};

const positionsOf = (result: CliResult): { events: number; position: number } => {
  const [, events, position] = BACKED_UP.exec(succeeded(result)) ?? [];
  return { events: Number(events), position: Number(position) };
};

/** Each test starts a system or two and runs the CLI several times: on a loaded machine that takes a while. */
const SLOW = 180_000;

describe('leasehold backup and restore (SQLite) of a running system', () => {
  let work: string;
  let sourceDir: string;
  let source: RunningSystem;
  let client: Client;
  const started: RunningSystem[] = [];
  const created: string[] = [];
  let backup: string;
  let backedUp: { events: number; position: number };

  const createLease = async (on: Client, n: number): Promise<string> => {
    const response = await on.post('/v1/leases', leaseOnDay(n));
    expect(response.status, describeBody(response)).toBe(201);
    return (response.body as { lease: Lease }).lease.id;
  };

  const startOn = async (dataDir: string): Promise<RunningSystem> => {
    const system = await startSystem({ dataDir });
    started.push(system);
    return system;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'leasehold-backup-e2e-'));
    sourceDir = join(work, 'source');
    source = await startOn(sourceDir);
    client = api(source.url);
    expect((await client.post('/v1/os-hosts', { name: HOST })).status).toBe(201);
    for (let n = 0; n < 3; n += 1) created.push(await createLease(client, n));
  });

  afterAll(async () => {
    await Promise.all(started.map((system) => system.stop()));
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it(
    'backs up while leases are created; the restored folder verifies and answers GET /v1/leases as the source',
    async () => {
      backup = join(work, 'ledger.backup');
      let writing = true;
      const writer = (async () => {
        while (writing) created.push(await createLease(client, created.length));
      })();
      const before = [...created];
      const result = await leasehold(sourceDir, 'backup', backup);
      writing = false;
      await writer;
      backedUp = positionsOf(result);
      expect(existsSync(`${backup}.partial`)).toBe(false);
      expect(eventRows(backup, backedUp.position)).toEqual(eventRows(join(sourceDir, 'events.sqlite'), backedUp.position));
      expect(backedUp.events).toBe(backedUp.position);

      const restoredDir = join(work, 'restored');
      const restored = succeeded(await leasehold(restoredDir, 'restore', backup));
      expect(restored).toContain(`restored ${backedUp.events} events, up to position ${backedUp.position}`);
      expect(restored).toMatch(VERIFIED);
      // one self-contained file: neither the backup nor the restore left a journal beside it
      expect(readdirSync(work).filter((name) => name.startsWith('ledger.backup'))).toEqual(['ledger.backup']);

      const fromSource = await leases(client);
      const fromRestored = await leases(api((await startOn(restoredDir)).url));
      for (const id of before) expect(fromRestored.has(id), `lease ${id}, created before the backup began`).toBe(true);
      expect(fromRestored.size).toBeLessThanOrEqual(fromSource.size);
      for (const [id, lease] of fromRestored) expect(lease).toEqual(fromSource.get(id));
    },
    SLOW,
  );

  it(
    'refuses to back up over a file, unless --force',
    async () => {
      expect(failed(await leasehold(sourceDir, 'backup', backup)).join('\n')).toContain(`${backup} exists already (--force replaces it)`);
      expect(positionsOf(await leasehold(sourceDir, 'backup', '--force', backup)).position).toBeGreaterThanOrEqual(backedUp.position);
    },
    SLOW,
  );

  it(
    '--to-position restores the ledger as it was: a lease created after the position is absent, verify passes',
    async () => {
      await source.stop();
      // the stop wrote the API's and the reactor's snapshots at the source's head, past the position restored to
      const stopped = join(work, 'stopped.backup');
      const { position: head } = positionsOf(await leasehold(sourceDir, 'backup', stopped));
      const [kept, dropped] = [created[1] ?? '', created[2] ?? ''];
      const toPosition = firstPositionOf(stopped, dropped) - 1;
      expect(Math.min(...snapshotPositions(stopped))).toBeGreaterThan(toPosition);

      const earlierDir = join(work, 'earlier');
      const restored = succeeded(await leasehold(earlierDir, 'restore', '--to-position', String(toPosition), stopped));
      expect(restored).toContain(`restored ${toPosition} events, up to position ${toPosition}`);
      expect(restored).toMatch(VERIFIED);
      expect(eventRows(join(earlierDir, 'events.sqlite'), head)).toEqual(eventRows(stopped, toPosition));
      expect(snapshotPositions(join(earlierDir, 'events.sqlite'))).toEqual([]);

      let earlier = await startOn(earlierDir);
      let earlierClient = api(earlier.url);
      expect((await earlierClient.get(`/v1/leases/${dropped}`)).status).toBe(404);
      expect((await earlierClient.get(`/v1/leases/${kept}`)).status).toBe(200);
      // grow the restored log past the old snapshots' position, then crash: the next start folds from the log alone
      for (let n = created.length; (await positionAfter(earlierDir)) <= head; n += 1) await createLease(earlierClient, n);
      earlier.signal('SIGKILL');
      await earlier.stop();
      earlier = await startOn(earlierDir);
      earlierClient = api(earlier.url);
      // the dropped lease's hour on the host is free in the restored ledger
      await createLease(earlierClient, 2);
    },
    SLOW,
  );

  it(
    'refuses a restore into a folder that is not empty, and changes nothing in it',
    async () => {
      const before = fingerprint(sourceDir);
      const refused = failed(await leasehold(sourceDir, 'restore', backup)).join('\n');
      expect(refused).toContain(`${sourceDir} is not empty (`);
      expect(refused).toContain('restore only into an empty data folder');
      expect(fingerprint(sourceDir)).toEqual(before);
    },
    SLOW,
  );

  it(
    'refuses a file that is not a Leasehold log, and creates no data folder',
    async () => {
      const text = join(work, 'notes.txt');
      writeFileSync(text, 'not a database');
      const readModel = join(work, 'restored', 'read-model.sqlite');
      for (const file of [text, readModel, join(work, 'missing.backup')]) {
        const target = join(work, 'never');
        const refused = failed(await leasehold(target, 'restore', file)).join('\n');
        expect(refused).toMatch(/is not a Leasehold event log backup|no backup at/);
        expect(existsSync(target)).toBe(false);
      }
    },
    SLOW,
  );
});

const positionAfter = (dataDir: string): Promise<number> => {
  const store = SqliteEventStore.openReadOnly({ file: join(dataDir, 'events.sqlite') });
  return store.headPosition().finally(() => store.close());
};

/** A log of some 250 MB, written straight into the store's tables: big enough that its copy takes a while. */
const writeLargeLog = async (file: string, events: number): Promise<void> => {
  await SqliteEventStore.open({ file }).close();
  const db = new Database(file);
  try {
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO events (event_id, stream_id, category, revision, type, data, metadata, recorded_at)
       SELECT 'bulk-' || i, 'bulk-' || (i / 100), 'bulk', i % 100, 'Bulk.Written', '{"pad":"' || hex(randomblob(250)) || '"}',
              '{"correlationId":"c","causationId":"c","actor":null}', '2026-01-01T00:00:00.000Z' FROM n`,
    ).run(events);
  } finally {
    db.close();
  }
};

const runBackup = (dataDir: string, file: string): ChildProcess =>
  spawn(process.execPath, [join(ROOT, 'dist/apps/cli/src/main.js'), 'backup', file], {
    env: { ...process.env, LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_READ_MODEL_URL: '' },
    stdio: 'ignore',
  });

describe('leasehold backup killed with SIGKILL in the middle of the copy', () => {
  const EVENTS = 300_000;
  let work: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'leasehold-backup-kill-'));
    await writeLargeLog(join(work, 'data', 'events.sqlite'), EVENTS);
  });

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it(
    'leaves no file under the backup name, and a second run succeeds',
    async () => {
      const file = join(work, 'large.backup');
      const child = runBackup(join(work, 'data'), file);
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
      while (!existsSync(`${file}.partial`) && child.exitCode === null) await new Promise((resolve) => setImmediate(resolve));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect(existsSync(file)).toBe(false);

      const again = positionsOf(await leasehold(join(work, 'data'), 'backup', file));
      expect(again).toEqual({ events: EVENTS, position: EVENTS });
      expect(existsSync(`${file}.partial`)).toBe(false);
      expect(withLog(file, (db) => db.prepare('SELECT COUNT(*) FROM events').pluck().get())).toBe(EVENTS);
    },
    SLOW,
  );
});
