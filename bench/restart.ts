import { type ChildProcess, spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
 *
 * The API's time is split at its "listening" log line: spawn to listening (module loading, Nest's
 * start, the indexes restored and caught up), then listening to the first 200. `--dir PATH` keeps the
 * large ledger in PATH (made there when PATH holds none, used as it is otherwise: no second
 * generation to compare two builds on one log), and `--api-starts N` adds N more API starts from its
 * snapshot on it, which show how much one start varies. `--apps api` starts only the API, `--whole-log 0`
 * skips the starts without a snapshot.
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

const option = (name: string): string | null => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? null : (process.argv[index + 1] ?? null);
};

const status = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const rssMiB = (pid: number): number => {
  const line =
    readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:')) ?? '';
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
  /** From spawn to the API's "listening" line (null for the reactor, which logs none). */
  readonly listenS: number | null;
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
  let listenS: number | null = null;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (listenS === null && app === 'api' && output.includes('"listening"')) listenS = +((performance.now() - started) / 1000).toFixed(2);
  });
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
    return { app, snapshot, answerS: +answerS.toFixed(2), listenS, cpuS, rssMiB: rss, rssLaterMiB: rssLater };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
};

const answered = async (child: ChildProcess, url: string, output: () => string): Promise<void> => {
  const deadline = performance.now() + 600_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited while starting (${child.exitCode ?? child.signalCode}):\n${output()}`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(5_000) })).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  throw new Error(`${url} did not answer:\n${output()}`);
};

/** A ledger of `events` ended-lease events and `live` leases to come in `dir`, or the one already there. */
const ledger = async (dir: string, events: number, live: number): Promise<number> => {
  const file = join(dir, 'events.sqlite');
  const made = existsSync(file);
  const store = SqliteEventStore.open({ file });
  try {
    if (made) return await store.headPosition();
    // about 9.5 events a lease, 2,000 leases every 3 hours: the history ends well before now
    const rounds = Math.ceil(events / 9.5 / HOSTS);
    const base = Date.now() - (rounds * 3 * 3_600_000 + 7 * DAY);
    await generateLedger(store, {
      events,
      hosts: HOSTS,
      base,
      onProgress: (written) => written % 100_000 < 20_000 && status(`written ${written}`),
    });
    await appendLiveLeases(store, { count: live, hosts: HOSTS, start: Date.now() + DAY });
    return await store.headPosition();
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

interface Measured {
  readonly head: number;
  readonly runs: Run[];
  readonly snapshots: Record<string, SnapshotSize | null>;
}

const APPS = (option('apps') ?? 'api,reactor').split(',').filter((app): app is App => app === 'api' || app === 'reactor');
/** `--whole-log 0`: only starts from the snapshots a kept folder holds (the whole-log starts take minutes at 1M events). */
const WHOLE_LOG = argument('whole-log', 1) !== 0;

/** `kept`: the data folder to use and leave in place (a new one, removed after, when null). */
const measure = async (events: number, live: number, kept: string | null, apiStarts: number): Promise<Measured> => {
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'leasehold-restart-bench-'));
  mkdirSync(dir, { recursive: true });
  status(
    `${existsSync(join(dir, 'events.sqlite')) ? 'using the ledger in' : `generating ${events} events and ${live} live leases in`} ${dir}`,
  );
  const head = await ledger(dir, events, live);
  try {
    const runs: Run[] = [];
    for (const app of APPS) {
      for (const snapshot of WHOLE_LOG ? [false, true] : [true]) {
        status(`${app} ${snapshot ? 'from its snapshot' : 'folding the whole log'} (${head} events)`);
        // a kept folder holds the snapshots of the last run: a start "without" one drops them first
        if (!snapshot) dropSnapshots(dir, app);
        runs.push(await startAndStop(app, dir, snapshot));
      }
    }
    for (let start = 1; start <= apiStarts; start++) {
      status(`api from its snapshot, again (${start}/${apiStarts})`);
      runs.push(await startAndStop('api', dir, true));
    }
    return { head, runs, snapshots: await snapshotSizes(dir) };
  } finally {
    if (kept === null) rmSync(dir, { recursive: true, force: true });
  }
};

/** Each app's own snapshots (the reactor's healing and freepool calendars are kept apart from its timeline). */
const OWN_SNAPSHOTS: Readonly<Record<App, string>> = {
  api: `kind IN ('${WRITE_INDEX_SNAPSHOT_KIND}', '${QUOTA_INDEX_SNAPSHOT_KIND}')`,
  reactor: "kind LIKE 'reactor-%'",
};

/** The app's own snapshots only: the other's stay, for its next start and for the sizes reported. */
const dropSnapshots = (dir: string, app: App): void => {
  // the table is made by the first store that opens the file: opened once so that it exists
  void SqliteSnapshotStore.open(join(dir, 'events.sqlite')).close();
  const db = new Database(join(dir, 'events.sqlite'));
  try {
    db.exec(`DELETE FROM snapshots WHERE ${OWN_SNAPSHOTS[app]}`);
  } finally {
    db.close();
  }
};

const main = async (): Promise<void> => {
  const live = argument('live', 2_000);
  const large = await measure(argument('events', 1_000_000), live, option('dir'), argument('api-starts', 0));
  const smallEvents = argument('small', 100_000);
  const small = smallEvents > 0 ? await measure(smallEvents, live, null, 0) : null;
  console.log(JSON.stringify({ live, large, small }, null, 2));
  console.log(
    '\n| log | app | start | first answer (wall) | of which to listening | CPU used by then | RSS at answer / 10 s later |\n|---|---|---|---|---|---|---|',
  );
  for (const { head, runs } of small === null ? [large] : [large, small]) {
    for (const run of runs) {
      const start = run.snapshot ? 'from snapshot' : 'whole log';
      const listen = run.listenS === null ? '-' : `${run.listenS} s`;
      console.log(
        `| ${head.toLocaleString('en-US')} events | ${run.app} | ${start} | ${run.answerS} s | ${listen} | ${run.cpuS} s | ${run.rssMiB} / ${run.rssLaterMiB} MiB |`,
      );
    }
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
