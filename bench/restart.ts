import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { SqliteSnapshotStore } from '#event-store/snapshots/sqlite-snapshot-store.js';
import { QUOTA_INDEX_SCHEMA_VERSION, QUOTA_INDEX_SNAPSHOT_KIND } from '#application/quotas/quota-index.snapshots.js';
import { WRITE_INDEX_SCHEMA_VERSION, WRITE_INDEX_SNAPSHOT_KIND } from '#application/write-model/write-index.snapshots.js';
import { TIMELINE_SCHEMA_VERSION, TIMELINE_SNAPSHOT_KIND } from '#reactor/timeline-snapshots.js';
import { appendLiveLeases, generateLedger } from './replay-workload.js';
import { freePort } from './system-processes.js';

/**
 * Restart bench (`npm run bench:restart`, `-- --events N --live N --small N`, `--small 0` for one ledger): how long the API and
 * the reactor take from spawn to their first answer on a log of N events (1,000,000 by default), with
 * and without their snapshots, and the reactor's memory after its start.
 *
 * The ledger is generateLedger's (hosts registered, leases created, renamed, a quarter rescheduled,
 * started and ended with their effects) placed in the past, so every one of them has ended, plus
 * `--live` leases (2,000 by default) booked in the days to come. A second, smaller ledger (`--small`
 * events, 100,000 by default) with the same live leases gives the reactor's memory at another history size.
 *
 * For each ledger and app: a start with no snapshot (it folds the whole log, then writes one), a
 * stop (SIGTERM), and a start from the snapshot. The API's first answer is GET /v1/leases?limit=1
 * (it listens only once its write index is caught up); the reactor's is /readyz (200 once its timeline
 * is caught up and its timers run). RSS is read from /proc after the answer and 10 s later (healing
 * and the freepool watch fold the hosts' calendars in the background after the start).
 */

const DAY = 86_400_000;
const HOSTS = 2_000;

const findRoot = (from: string): string => (existsSync(join(from, 'package.json')) ? from : findRoot(dirname(from)));
const ROOT = findRoot(import.meta.dirname);

const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? undefined : process.argv[index + 1];
  return value === undefined ? fallback : Number(value);
};

const status = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const rssMiB = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:')) ?? '';
  return Math.round(Number(/\d+/.exec(line)?.[0] ?? 0) / 1024);
};

/** CPU seconds the process used so far (user + system): what a start costs whatever else the machine runs. */
const cpuSeconds = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return +((Number(fields[11]) + Number(fields[12])) / 100).toFixed(2);
};

type App = 'api' | 'reactor';

interface Run {
  readonly app: App;
  readonly snapshot: boolean;
  readonly answerS: number;
  readonly cpuS: number;
  readonly rssMiB: number;
  readonly rssLaterMiB: number;
}

const ENTRY: Readonly<Record<App, string>> = { api: 'dist/apps/api/src/main.js', reactor: 'dist/apps/reactor/src/main.js' };

/** Spawns the app, times its first answer, reads its memory, stops it with SIGTERM (its snapshot is written then). */
const startAndStop = async (app: App, dataDir: string, snapshot: boolean): Promise<Run> => {
  const port = await freePort();
  const env = {
    ...process.env,
    LEASEHOLD_DATA_DIR: dataDir,
    LEASEHOLD_PORT: String(port),
    LEASEHOLD_REACTOR_HEALTH_PORT: String(port),
    LEASEHOLD_ACCESS_LOG: '0',
  };
  const url = app === 'api' ? `http://127.0.0.1:${port}/v1/leases?limit=1` : `http://127.0.0.1:${port}/readyz`;
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, ENTRY[app])], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await answered(child, url, () => output);
    const answerS = (performance.now() - started) / 1000;
    const cpuS = cpuSeconds(child.pid ?? 0);
    // another process may hold the port drawn (it answered, not ours)
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${app} exited:\n${output}`);
    const rss = rssMiB(child.pid ?? 0);
    await sleep(10_000);
    const rssLater = rssMiB(child.pid ?? 0);
    return { app, snapshot, answerS: +answerS.toFixed(2), cpuS, rssMiB: rss, rssLaterMiB: rssLater };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
};

const answered = async (child: ChildProcess, url: string, output: () => string): Promise<void> => {
  const deadline = performance.now() + 600_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited while starting (${child.exitCode ?? child.signalCode}):\n${output()}`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(5_000) })).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  throw new Error(`${url} did not answer:\n${output()}`);
};

/** A ledger of `events` ended-lease events and `live` leases to come, in a new data folder. */
const ledger = async (events: number, live: number): Promise<{ dir: string; head: number }> => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-restart-bench-'));
  const store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
  try {
    // about 9.5 events a lease, 2,000 leases every 3 hours: the history ends well before now
    const rounds = Math.ceil(events / 9.5 / HOSTS);
    const base = Date.now() - (rounds * 3 * 3_600_000 + 7 * DAY);
    await generateLedger(store, { events, hosts: HOSTS, base, onProgress: (written) => written % 100_000 < 20_000 && status(`written ${written}`) });
    await appendLiveLeases(store, { count: live, hosts: HOSTS, start: Date.now() + DAY });
    return { dir, head: await store.headPosition() };
  } finally {
    await store.close();
  }
};

interface SnapshotSize {
  readonly position: number;
  readonly bytes: number;
}

/** Where each app's snapshot stands and how big it is (of the schema version the apps read). */
const snapshotSizes = async (dir: string): Promise<Record<string, SnapshotSize | null>> => {
  const snapshots = SqliteSnapshotStore.open(join(dir, 'events.sqlite'));
  const kinds = [
    [WRITE_INDEX_SNAPSHOT_KIND, WRITE_INDEX_SCHEMA_VERSION],
    [QUOTA_INDEX_SNAPSHOT_KIND, QUOTA_INDEX_SCHEMA_VERSION],
    [TIMELINE_SNAPSHOT_KIND, TIMELINE_SCHEMA_VERSION],
  ] as const;
  try {
    const sizes: Record<string, SnapshotSize | null> = {};
    for (const [kind, version] of kinds) {
      const snapshot = await snapshots.load(kind, version);
      sizes[kind] = snapshot === null ? null : { position: snapshot.position, bytes: Buffer.byteLength(snapshot.payload) };
    }
    return sizes;
  } finally {
    await snapshots.close();
  }
};

const measure = async (events: number, live: number): Promise<{ head: number; runs: Run[]; snapshots: Record<string, SnapshotSize | null> }> => {
  status(`generating ${events} events and ${live} live leases`);
  const { dir, head } = await ledger(events, live);
  try {
    const runs: Run[] = [];
    for (const app of ['api', 'reactor'] as const) {
      for (const snapshot of [false, true]) {
        status(`${app} ${snapshot ? 'from its snapshot' : 'folding the whole log'} (${head} events)`);
        runs.push(await startAndStop(app, dir, snapshot));
      }
    }
    return { head, runs, snapshots: await snapshotSizes(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const main = async (): Promise<void> => {
  const live = argument('live', 2_000);
  const large = await measure(argument('events', 1_000_000), live);
  const smallEvents = argument('small', 100_000);
  const small = smallEvents > 0 ? await measure(smallEvents, live) : null;
  console.log(JSON.stringify({ live, large, small }, null, 2));
  console.log('\n| log | app | start | first answer (wall) | CPU used by then | RSS at answer / 10 s later |\n|---|---|---|---|---|---|');
  for (const { head, runs } of small === null ? [large] : [large, small]) {
    for (const run of runs) {
      const start = run.snapshot ? 'from snapshot' : 'whole log';
      console.log(`| ${head.toLocaleString('en-US')} events | ${run.app} | ${start} | ${run.answerS} s | ${run.cpuS} s | ${run.rssMiB} / ${run.rssLaterMiB} MiB |`);
    }
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
