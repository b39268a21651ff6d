import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logOf } from '../helpers/fault-checks.js';
import { checkAfterFault, sleep } from '../helpers/fault-rounds.js';
import { FaultWorkload, STORAGE_UNAVAILABLE_BODY } from '../helpers/fault-workload.js';
import { SystemProcesses } from '../../bench/system-processes.js';
import { ROOT } from '../helpers/system.js';

const SEED = Number(process.env.LEASEHOLD_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));
const IS_ROOT = process.getuid?.() === 0;

const DUE_NETWORK = 'd0e00000-0000-4000-8000-0000000000d0';

/** A lease due at once, on an address of its own (the workload takes the others): its start is a timer due while storage is unavailable. */
const leaseNow = (name: string) => ({
  name,
  start_date: 'now',
  end_date: new Date(Date.now() + 30 * 60_000).toISOString().slice(0, 16).replace('T', ' '),
  reservations: [{ resource_type: 'virtual:floatingip', network_id: DUE_NETWORK, amount: 1 }],
  events: [],
});

/** Kills the reactor and creates a lease due at once: the restarted reactor finds its start due. */
const dueWhileReactorDown = async (system: SystemProcesses, name: string): Promise<string> => {
  const address = await answer(`${system.url}/v1/floatingips`, {
    method: 'POST',
    body: JSON.stringify({ floating_network_id: DUE_NETWORK, floating_ip_address: '198.51.100.1' }),
  });
  expect(address.status, JSON.stringify(address.body)).toBe(201);
  await system.kill('reactor');
  const due = await answer(`${system.url}/v1/leases`, { method: 'POST', body: JSON.stringify(leaseNow(name)) });
  expect(due.status, JSON.stringify(due.body)).toBe(201);
  return due.body.lease.id as string;
};

const answer = async (
  url: string,
  init: RequestInit = {},
  timeoutMs = 30_000,
): Promise<{ status: number; headers: Headers; body: any }> => {
  const response = await fetch(url, { ...init, headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
};

/**
 * A write refused while storage is unavailable: 503 with Blazar's body and Retry-After, never a 500.
 * Renames always append; those that find room (SQLite reuses the space of its write-ahead log) are
 * answered 200, so the probe renames until one is refused. Returns the refused name.
 */
const refusedRename = async (system: SystemProcesses, leaseId: string, prefix: string): Promise<string> => {
  for (let i = 0; i < 2_000; i++) {
    const name = `${prefix}-${i}`;
    const renamed = await answer(`${system.url}/v1/leases/${leaseId}`, { method: 'PUT', body: JSON.stringify({ name }) });
    if (renamed.status === 503) {
      expect(renamed.body).toEqual(STORAGE_UNAVAILABLE_BODY);
      expect(renamed.headers.get('retry-after')).toBe('1');
      return name;
    }
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
  }
  throw new Error('no write was refused');
};

/** Process-level liveness while storage is unavailable: each probe answers well within the busy timeout a blocked process would take. */
const probesAnswer = async (system: SystemProcesses): Promise<void> => {
  for (const url of [`${system.url}/healthz`, `${system.healthUrl('projector')}/healthz`, `${system.healthUrl('reactor')}/healthz`]) {
    expect((await answer(url, {}, 2_500)).status, url).toBe(200);
  }
  expect((await answer(`${system.url}/v1/os-hosts`, {}, 10_000)).status).toBe(200);
};

const loggedNames = (dataDir: string): Set<string> =>
  new Set(logOf(dataDir).flatMap((e) => (e.type === 'Lease.Created' || e.type === 'Lease.Renamed' ? [e.data.name as string] : [])));

/**
 * Fault injection, part 2: storage made unavailable under a running system and a mixed workload,
 * then given back. Writes answer the documented 503 (nothing written), reads and probes go on, a
 * timer due meanwhile fires once afterwards, and every check of docs/operations.md holds after.
 */
describe(`storage unavailable (seed ${SEED})`, () => {
  describe.skipIf(!IS_ROOT)('a full disk under the data folder (a small tmpfs the test mounts; needs root)', () => {
    let mountPoint: string;
    let system: SystemProcesses;
    let workload: FaultWorkload;

    beforeAll(async () => {
      mountPoint = mkdtempSync(join(tmpdir(), 'leasehold-fault-disk-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', mountPoint]);
      system = await SystemProcesses.start(join(mountPoint, 'data'));
      workload = new FaultWorkload({ url: () => system.url, seed: SEED });
      await workload.setUp();
    });

    afterAll(async () => {
      await system?.stop();
      if (mountPoint !== undefined) {
        execFileSync('umount', [mountPoint]);
        rmSync(mountPoint, { recursive: true, force: true });
      }
    });

    it('answers writes 503 while it is full, keeps reading, and recovers with every check holding once space is freed', async () => {
      workload.resume();
      await sleep(1_500);
      const due = await dueWhileReactorDown(system, 'due-while-full');
      const filler = join(mountPoint, 'filler');
      const refused = await workload.whileStorageUnavailable(async () => {
        fillDisk(filler);
        await system.startApp('reactor');
        const name = await refusedRename(system, due, 'refused-while-full');
        await probesAnswer(system);
        await sleep(2_000);
        unlinkSync(filler);
        return name;
      });
      await sleep(2_000);
      await workload.pause();
      console.info(await checkAfterFault(system, workload, 'disk full'));
      const logged = loggedNames(system.dataDir);
      expect(logged.has(refused), 'the refused rename was written').toBe(false);
      expect(
        workload.refusedNames.filter((name) => logged.has(name)),
        'refused writes that were written',
      ).toEqual([]);
      expect(logOf(system.dataDir).some((e) => e.type === 'Lease.Started' && e.streamId === `lease-${due}`)).toBe(true);
      expect(workload.storageUnavailableAnswers).toBeGreaterThan(0);
    }, 300_000);
  });

  describe('a write lock on the log held by another process beyond the busy timeout', () => {
    let dir: string;
    let system: SystemProcesses;
    let workload: FaultWorkload;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'leasehold-fault-lock-'));
      system = await SystemProcesses.start(dir);
      workload = new FaultWorkload({ url: () => system.url, seed: SEED + 1 });
      await workload.setUp();
    });

    afterAll(async () => {
      await system?.stop();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('answers writes 503 while it is held, keeps answering probes and reads, and recovers with every check holding', async () => {
      workload.resume();
      await sleep(1_500);
      const due = await dueWhileReactorDown(system, 'due-while-locked');
      await workload.whileStorageUnavailable(async () => {
        const holder = await holdWriteLock(join(dir, 'events.sqlite'), 12_000);
        // restarted while the lock is held: it must start, and its due timer waits for the lock
        await system.startApp('reactor');
        await probesAnswer(system);
        await holder.released;
      });
      await sleep(2_000);
      await workload.pause();
      console.info(await checkAfterFault(system, workload, 'write lock'));
      expect(workload.storageUnavailableAnswers).toBeGreaterThan(0);
      expect(
        workload.refusedNames.filter((name) => loggedNames(system.dataDir).has(name)),
        'refused writes that were written',
      ).toEqual([]);
      expect(logOf(system.dataDir).some((e) => e.type === 'Lease.Started' && e.streamId === `lease-${due}`)).toBe(true);
    }, 300_000);
  });
});

/** Writes zeros until the file system says there is no space left. */
function fillDisk(file: string): void {
  const chunk = Buffer.alloc(1 << 20);
  const fd = openSync(file, 'w');
  try {
    for (;;) writeSync(fd, chunk.subarray(0, chunk.length));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    // the last partial megabyte: fill to the byte
    for (let size = 1 << 19; size >= 1; size >>= 1) {
      try {
        for (;;) writeSync(fd, chunk.subarray(0, size));
      } catch (inner) {
        if ((inner as NodeJS.ErrnoException).code !== 'ENOSPC') throw inner;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Another process (better-sqlite3 in a child) takes the log's write lock (BEGIN IMMEDIATE) and holds
 * it for `ms`: resolves once the lock is taken, with a promise of its release.
 */
async function holdWriteLock(file: string, ms: number): Promise<{ readonly released: Promise<void> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stderr.write('locked\\n');
    setTimeout(() => { db.exec('ROLLBACK'); db.close(); }, Number(process.argv[2]));
  `;
  const child = spawn(process.execPath, ['-e', script, file, String(ms)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const released = new Promise<void>((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the lock holder exited ${code}: ${stderr}`)))),
  );
  released.catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    child.stderr?.once('data', () => resolve());
    child.once('exit', () => reject(new Error(`the lock holder exited before taking the lock: ${stderr}`)));
  });
  return { released };
}
