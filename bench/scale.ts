import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openEventStore } from '#event-store/open-event-store.js';
import { blazarDate, caller, percentile } from './bench-http.js';
import { type ScaleLedger, writeScaleLedger } from './scale-ledger.js';

/**
 * `npm run bench -- --scale [--hosts N] [--events N] [--store sqlite|postgresql|both]` (defaults
 * 10,000 hosts, 1,000,000 events, both; never part of `npm run bench` or CI: writing the ledger alone
 * takes many minutes). For each store: writes the ledger through the application layer
 * (./scale-ledger.ts), rebuilds the read model from it (`rebuild-read-models`: events/s, peak RSS),
 * then starts the projector, the reactor and the API one after another on it and measures how long
 * each takes to answer (the projector and reactor ready on /readyz, the API's first lease admitted),
 * then admission latency (lease creates through HTTP), pages of 100 leases, and each process's RSS.
 * PostgreSQL: the server of LEASEHOLD_BENCH_PG_URL (scripts/bench.sh starts the project's own), in a
 * fresh database used for both the events and the read model.
 */

// LEASEHOLD_BENCH_APPS_DIST: start another build's apps (e.g. a baseline) on the same ledger
const dist = process.env.LEASEHOLD_BENCH_APPS_DIST ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const PORT = Number(process.env.BENCH_PORT ?? 62300);
const ADMISSIONS = 200;
const PAGES = 30;

const argument = (name: string, fallback: string): string => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : (process.argv[index + 1] ?? fallback);
};

const status = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
};

/** Resident memory of a process now (MiB), from /proc. */
const rssMiB = (pid: number | undefined): number => {
  if (pid === undefined) return 0;
  try {
    const line =
      readFileSync(`/proc/${pid}/status`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('VmRSS:')) ?? '';
    return Math.round(Number(line.replace(/\D+/g, '')) / 1024);
  } catch {
    return 0;
  }
};

interface Started {
  readonly child: ChildProcess;
  readonly seconds: number;
}

const untilTrue = async (check: () => Promise<boolean>, child: ChildProcess, what: string): Promise<void> => {
  for (const deadline = performance.now() + 1_800_000; performance.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not answer within 30 minutes`);
};

/** Spawns an app and times it from the spawn to the first answer `ready` accepts; `onLine` reads its log (stdout). */
const startApp = async (
  entry: string,
  env: NodeJS.ProcessEnv,
  ready: () => Promise<boolean>,
  onLine?: (line: string) => void,
): Promise<Started> => {
  const started = performance.now();
  const args = [...(env.LEASEHOLD_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''), join(dist, entry)];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', onLine === undefined ? 'ignore' : 'pipe', 'inherit'] });
  if (onLine !== undefined) {
    let rest = '';
    // read all of it: a pipe left full would block the app's synchronous log writes
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
  }
  await untilTrue(ready, child, entry);
  return { child, seconds: (performance.now() - started) / 1000 };
};

/** CPU seconds (user + system) a process has used so far, from /proc. */
const cpuSeconds = (pid: number | undefined): number => {
  if (pid === undefined) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
};

/** Whether each of the processes used under 10 % of a core over the next two seconds. */
const idle = async (children: readonly ChildProcess[]): Promise<boolean> => {
  const before = children.map((c) => cpuSeconds(c.pid));
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  return children.every((c, i) => cpuSeconds(c.pid) - (before[i] ?? 0) < 0.2);
};

const json = async (url: string): Promise<Record<string, unknown>> => (await fetch(url)).json() as Promise<Record<string, unknown>>;

/**
 * Until the start's after-work is done: the API's usage index warmed (its log says so), the read models
 * and the reactor at the head of the log, and the three processes idle (snapshots written).
 */
const settled = async (
  apps: { readonly projector: ChildProcess; readonly reactor: ChildProcess; readonly api: ChildProcess },
  ports: { readonly reactor: number; readonly api: number },
  warmed: () => boolean,
): Promise<void> => {
  const quiet = async (): Promise<boolean> => {
    if (!warmed()) return false;
    const api = await json(`http://127.0.0.1:${ports.api}/readyz`);
    const head = Number(api.head);
    const models = (api.read_models ?? []) as { readonly lag_positions: number }[];
    const reactor = await json(`http://127.0.0.1:${ports.reactor}/readyz`);
    if (models.some((m) => m.lag_positions > 0) || Number(reactor.position) < head) return false;
    return idle([apps.projector, apps.reactor, apps.api]);
  };
  await untilTrue(quiet, apps.api, 'the settling');
};

const stop = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
};

const readyAt = (port: number) => async (): Promise<boolean> => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;

/** Runs the rebuild as an operator does; its wall time and the largest RSS seen while it ran. */
const rebuild = async (
  env: NodeJS.ProcessEnv,
  events: number,
): Promise<{ readonly events_per_second: number; readonly seconds: number; readonly peak_rss_mib: number }> => {
  const started = performance.now();
  const child = spawn(process.execPath, [join(dist, 'apps/projector/src/rebuild.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(child.pid))), 250);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(sampler);
  if (code !== 0) throw new Error(`rebuild exited with ${code}`);
  const seconds = (performance.now() - started) / 1000;
  return { events_per_second: Math.round(events / seconds), seconds: +seconds.toFixed(1), peak_rss_mib: peak };
};

/** Admission and page latencies, and each process's RSS when they were taken. */
export interface Latencies {
  readonly admission_p50_ms: number;
  readonly admission_p95_ms: number;
  readonly page_100_p50_ms: number;
  readonly page_100_p95_ms: number;
  readonly rss_mib: { readonly projector: number; readonly reactor: number; readonly api: number };
}

export interface ScaleFigures extends Latencies {
  readonly store: string;
  readonly ledger: ScaleLedger;
  readonly rebuild: Awaited<ReturnType<typeof rebuild>>;
  readonly start_seconds: { readonly projector: number; readonly reactor: number; readonly api: number };
  /** From the API's start to its usage index warmed (its own log), and to everything settled (see `settled`). */
  readonly usage_warm_up_seconds: number;
  readonly settled_after_start_seconds: number;
  /** The same figures once the start's after-work is done (the top-level ones: right after the starts). */
  readonly settled: Latencies;
}

const leaseBody = (i: number, farMs: number) => {
  const start = farMs + (i % 50) * 3_600_000;
  return {
    name: `scale-admission-${i}`,
    start_date: blazarDate(start),
    end_date: blazarDate(start + 2 * 3_600_000),
    reservations: [{ resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' }],
    events: [],
  };
};

interface Written {
  readonly ledger: ScaleLedger;
  readonly rebuild: Awaited<ReturnType<typeof rebuild>>;
}

/** Where a --data-dir keeps what its ledger and rebuild measured, so that a later run can start the apps on them again. */
const WRITTEN = 'scale-ledger.json';

const writeLedger = async (label: string, env: NodeJS.ProcessEnv, hosts: number, events: number): Promise<Written> => {
  status(`${label}: writing ${hosts} hosts and ${events} events through the application layer`);
  const store = await openEventStore('events', env.LEASEHOLD_DATA_DIR ?? '', env);
  let ledger: ScaleLedger;
  try {
    ledger = await writeScaleLedger(store, { hosts, events }, (line) => status(`${label}: ${line}`));
  } finally {
    await store.close();
  }
  status(`${label}: ${JSON.stringify(ledger)}; rebuilding the read model`);
  return { ledger, rebuild: await rebuild(env, ledger.events) };
};

/** The ledger of a --data-dir that holds one (its figures are those of the run that wrote it), else a new one. */
const ledgerIn = async (label: string, env: NodeJS.ProcessEnv, hosts: number, events: number, keptDir: string | null): Promise<Written> => {
  const file = keptDir === null ? null : join(keptDir, WRITTEN);
  if (file !== null && existsSync(file)) {
    status(`${label}: reusing the ledger of ${file}`);
    return JSON.parse(readFileSync(file, 'utf8')) as Written;
  }
  const written = await writeLedger(label, env, hosts, events);
  if (file !== null) writeFileSync(file, JSON.stringify(written));
  return written;
};

const measure = async (
  label: string,
  env: NodeJS.ProcessEnv,
  hosts: number,
  events: number,
  keptDir: string | null,
): Promise<ScaleFigures | Written> => {
  const { ledger, rebuild: rebuilt } = await ledgerIn(label, env, hosts, events, keptDir);
  status(`${label}: rebuild ${JSON.stringify(rebuilt)}; starting the apps`);
  if (process.argv.includes('--ledger-only')) return { ledger, rebuild: rebuilt };
  const [projectorPort, reactorPort, apiPort] = [PORT + 1, PORT + 2, PORT];
  const apps: ChildProcess[] = [];
  try {
    const projector = await startApp(
      'apps/projector/src/main.js',
      { ...env, LEASEHOLD_PROJECTOR_HEALTH_PORT: String(projectorPort) },
      readyAt(projectorPort),
    );
    apps.push(projector.child);
    const reactor = await startApp(
      'apps/reactor/src/main.js',
      { ...env, LEASEHOLD_REACTOR_HEALTH_PORT: String(reactorPort) },
      readyAt(reactorPort),
    );
    apps.push(reactor.child);
    const call = caller(`http://127.0.0.1:${apiPort}`);
    const far = Date.now() + 400 * 86_400_000;
    let admitted = 0;
    let warmedAt: number | null = null;
    const apiSpawned = performance.now();
    const onApiLine = (line: string): void => {
      if (warmedAt === null && line.includes('"event":"usage-index"')) warmedAt = performance.now();
    };
    // the API answers once a lease is admitted: its write index holds every booking by then
    const api = await startApp(
      'apps/api/src/main.js',
      { ...env, LEASEHOLD_PORT: String(apiPort) },
      async () => (await call('POST', '/v1/leases', leaseBody(admitted, far))).status === 201,
      onApiLine,
    );
    apps.push(api.child);
    status(
      `${label}: started projector ${projector.seconds.toFixed(1)} s, reactor ${reactor.seconds.toFixed(1)} s, api ${api.seconds.toFixed(1)} s`,
    );
    const children = { projector: projector.child, reactor: reactor.child, api: api.child };
    const latencies = async (): Promise<Latencies> => {
      const admissions: number[] = [];
      for (let i = 0; i < ADMISSIONS; i++) {
        const result = await call('POST', '/v1/leases', leaseBody(++admitted, far));
        if (result.status !== 201) throw new Error(`admission ${admitted}: ${result.status} ${JSON.stringify(result.body)}`);
        admissions.push(result.ms);
      }
      const pages: number[] = [];
      for (let i = 0; i < PAGES; i++) {
        const result = await call('GET', '/v1/leases?limit=100&sort_key=created_at&sort_dir=desc');
        if (result.status !== 200) throw new Error(`page: ${result.status}`);
        pages.push(result.ms);
      }
      return {
        admission_p50_ms: +percentile(admissions, 50).toFixed(1),
        admission_p95_ms: +percentile(admissions, 95).toFixed(1),
        page_100_p50_ms: +percentile(pages, 50).toFixed(1),
        page_100_p95_ms: +percentile(pages, 95).toFixed(1),
        rss_mib: { projector: rssMiB(projector.child.pid), reactor: rssMiB(reactor.child.pid), api: rssMiB(api.child.pid) },
      };
    };
    const first = await latencies();
    status(
      `${label}: right after the starts ${JSON.stringify(first)}; waiting for the usage index, the reactor and the read models to settle`,
    );
    await settled(children, { reactor: reactorPort, api: apiPort }, () => warmedAt !== null);
    const settledAfter = (performance.now() - apiSpawned) / 1000;
    const settledLatencies = await latencies();
    status(`${label}: settled ${settledAfter.toFixed(1)} s after the API's spawn: ${JSON.stringify(settledLatencies)}`);
    return {
      store: label,
      ledger,
      rebuild: rebuilt,
      start_seconds: { projector: +projector.seconds.toFixed(1), reactor: +reactor.seconds.toFixed(1), api: +api.seconds.toFixed(1) },
      ...first,
      usage_warm_up_seconds: +(((warmedAt ?? performance.now()) - apiSpawned) / 1000).toFixed(1),
      settled_after_start_seconds: +settledAfter.toFixed(1),
      settled: settledLatencies,
    };
  } finally {
    for (const app of apps.reverse()) await stop(app);
  }
};

/** A fresh database on the bench's PostgreSQL server, for the events and the read model. */
const freshDatabase = async (serverUrl: string): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const name = `leasehold_scale_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
};

export const scaleRows = (figures: ScaleFigures): string[] => [
  `| ${figures.store}: ledger (${figures.ledger.hosts} hosts, ${figures.ledger.leases} leases, ${figures.ledger.live} live) | ${figures.ledger.events} events in ${figures.ledger.seconds.toFixed(0)} s |`,
  `| ${figures.store}: rebuild-read-models | ${figures.rebuild.events_per_second} events/s (${figures.rebuild.seconds} s, peak RSS ${figures.rebuild.peak_rss_mib} MiB) |`,
  `| ${figures.store}: start to answer: projector / reactor / API (first lease admitted) | ${figures.start_seconds.projector} s / ${figures.start_seconds.reactor} s / ${figures.start_seconds.api} s |`,
  `| ${figures.store}: admission (POST /v1/leases) p50 / p95 | ${figures.admission_p50_ms} ms / ${figures.admission_p95_ms} ms |`,
  `| ${figures.store}: GET /v1/leases?limit=100 p50 / p95 | ${figures.page_100_p50_ms} ms / ${figures.page_100_p95_ms} ms |`,
  `| ${figures.store}: RSS projector / reactor / API | ${figures.rss_mib.projector} / ${figures.rss_mib.reactor} / ${figures.rss_mib.api} MiB |`,
  `| ${figures.store}: API's usage index warm / all settled, after the API's spawn | ${figures.usage_warm_up_seconds} s / ${figures.settled_after_start_seconds} s |`,
  `| ${figures.store}: settled: admission p50 / p95 | ${figures.settled.admission_p50_ms} ms / ${figures.settled.admission_p95_ms} ms |`,
  `| ${figures.store}: settled: GET /v1/leases?limit=100 p50 / p95 | ${figures.settled.page_100_p50_ms} ms / ${figures.settled.page_100_p95_ms} ms |`,
  `| ${figures.store}: settled: RSS projector / reactor / API | ${figures.settled.rss_mib.projector} / ${figures.settled.rss_mib.reactor} / ${figures.settled.rss_mib.api} MiB |`,
];

const main = async (): Promise<void> => {
  const hosts = Number(argument('hosts', '10000'));
  const events = Number(argument('events', '1000000'));
  const stores = argument('store', 'both');
  // kept after the run (and reused when it holds a ledger): to profile the apps, or to start them again on a copy
  const keptDir = process.argv.includes('--data-dir') ? argument('data-dir', '') : null;
  if (keptDir !== null) mkdirSync(keptDir, { recursive: true });
  const figures: (ScaleFigures | Written)[] = [];
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.LEASEHOLD_EVENT_STORE_URL;
  delete base.LEASEHOLD_READ_MODEL_URL;
  if (stores === 'sqlite' || stores === 'both') {
    const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'leasehold-bench-scale-'));
    try {
      figures.push(await measure('SQLite', { ...base, LEASEHOLD_DATA_DIR: dataDir }, hosts, events, keptDir));
    } finally {
      if (keptDir === null) rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (stores === 'postgresql' || stores === 'both') {
    const server = process.env.LEASEHOLD_BENCH_PG_URL ?? '';
    if (server === '')
      throw new Error('LEASEHOLD_BENCH_PG_URL must name a PostgreSQL server for --store postgresql (scripts/bench.sh --scale starts one)');
    const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-scale-pg-'));
    const database = await freshDatabase(server);
    try {
      figures.push(
        await measure(
          'PostgreSQL',
          { ...base, LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_EVENT_STORE_URL: database.url, LEASEHOLD_READ_MODEL_URL: database.url },
          hosts,
          events,
          null,
        ),
      );
    } finally {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  console.log(JSON.stringify(figures, null, 2));
  console.log('| scale bench | figure |\n|---|---|');
  for (const row of figures.flatMap((f) => ('store' in f ? scaleRows(f) : []))) console.log(row);
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
