import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blazarDate, caller, launch, percentile } from './bench-http.js';
import { allHolds, foldLedger, readLedger, wholeHostClashes } from './ledger-audit.js';
import { type StoreCommitRun, runStoreCommits, storeCommitRows } from './store-commits.js';

/**
 * Admission under concurrent clients (issue 32, line 2): 8 and 32 clients create one-host leases as
 * fast as they can, 2,000 in all per run, each run on a fresh embedded system. "spread": 100 hosts,
 * leases spread over 40 hours, so all fit and the clients race only for the write path; "same hour":
 * 2,000 hosts, every lease on one hour, so every decision races for the same calendar. The log is then
 * replayed by the independent audit (./ledger-audit.ts): double bookings, and whether every lease the
 * clients were told about (201) holds its host in the log. Then the store alone (./store-commits.ts).
 * `node dist/bench/concurrent-admission.js` runs it alone (`... store`: the store part only); BENCH_LEASES, BENCH_VARIANT
 * ('spread' or 'same hour': that one only) and BENCH_NODE_OPTIONS (the system's NODE_OPTIONS, e.g. a --require that
 * profiles: Node 20 refuses --cpu-prof there) tune a run.
 */

const LEASES = Number(process.env.BENCH_LEASES ?? 2000);
const SPREAD_HOURS = 40;

interface Variant {
  readonly name: 'spread' | 'same hour';
  readonly hosts: number;
  readonly hourOf: (index: number) => number;
}

const ALL_VARIANTS: readonly Variant[] = [
  { name: 'spread', hosts: 100, hourOf: (index) => index % SPREAD_HOURS },
  { name: 'same hour', hosts: LEASES, hourOf: () => 0 },
];
const VARIANTS = ALL_VARIANTS.filter((variant) => (process.env.BENCH_VARIANT ?? variant.name) === variant.name);

/** A lean client: node:http on kept-alive sockets, one per client, the body sent as one prepared buffer. */
const poster = (port: number, sockets: number) => {
  const call = caller(`http://127.0.0.1:${port}`, sockets);
  return (path: string, body: unknown) => call('POST', path, body);
};

type Post = ReturnType<typeof poster>;

type App = 'api' | 'projector' | 'reactor';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

const procText = (pid: string, file: string): string => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
};

/**
 * CPU time (user + system, ms) used so far by each process of the system serving `port`, read from /proc
 * (Linux): what a lease costs each process, a figure the machine's other load changes far less than the
 * wall-clock rate.
 */
const systemCpuMs = (port: number): Record<App, number> => {
  const cpu: Record<App, number> = { api: 0, projector: 0, reactor: 0 };
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const app = /apps\/(api|projector|reactor)\/src\/main\.js/.exec(procText(pid, 'cmdline'))?.[1] as App | undefined;
    if (app === undefined || !procText(pid, 'environ').split('\0').includes(`LEASEHOLD_PORT=${port}`)) continue;
    // after the command in parentheses: state is field 3, utime and stime fields 14 and 15
    const fields = procText(pid, 'stat').split(') ')[1]?.split(' ') ?? [];
    cpu[app] += ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
  }
  return cpu;
};

const oneHostLease = (name: string, startMs: number) => ({
  name,
  start_date: blazarDate(startMs),
  end_date: blazarDate(startMs + 3600_000),
  reservations: [{ resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' }],
  events: [],
});

/** `count` items by `clients` workers taking the next index from one counter. */
const race = async (clients: number, count: number, work: (index: number) => Promise<void>): Promise<void> => {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let index = next++; index < count; index = next++) await work(index);
    }),
  );
};

const registerHosts = async (post: Post, hosts: number): Promise<void> =>
  race(8, hosts, async (index) => {
    const result = await post('/v1/os-hosts', { name: `ca-${String(index).padStart(5, '0')}` });
    if (result.status !== 201) throw new Error(`host ${index}: ${result.status} ${JSON.stringify(result.body)}`);
  });

export interface AdmissionRun {
  readonly variant: Variant['name'];
  readonly clients: number;
  readonly hosts: number;
  readonly requests: number;
  readonly accepted: number;
  readonly refused: number;
  readonly leases_per_s: number;
  readonly p50_ms: number;
  readonly p95_ms: number;
  readonly p99_ms: number;
  /** The bench's own CPU (user + system) per request: what the client costs. */
  readonly client_cpu_ms_per_request: number;
  /** CPU per request of the API and of the projector (which shares the machine's cores). */
  readonly api_cpu_ms_per_request: number;
  readonly projector_cpu_ms_per_request: number;
  readonly double_bookings: number;
  /** Leases answered 201 whose host booking is not in the log (an acknowledged write lost). */
  readonly acknowledged_missing: number;
  readonly misfiled_events: number;
}

const round2 = (value: number): number => +value.toFixed(2);

/** The replay audit: whole-host clashes among every hold in the log, and the acknowledged leases that hold nothing. */
const audit = (dataDir: string, acknowledged: readonly string[]) => {
  const fold = foldLedger(readLedger(join(dataDir, 'events.sqlite')));
  const holds = allHolds(fold.hostHolds);
  const holding = new Set(holds.map((h) => h.leaseId));
  return {
    double_bookings: wholeHostClashes(holds, 0).length,
    acknowledged_missing: acknowledged.filter((leaseId) => !holding.has(leaseId)).length,
    misfiled_events: fold.misfiled.length,
  };
};

const admit = async (post: Post, port: number, variant: Variant, clients: number) => {
  const t0 = Math.ceil(Date.now() / 3600_000) * 3600_000 + 24 * 3600_000;
  const times: number[] = [];
  const acknowledged: string[] = [];
  let refused = 0;
  const cpu = process.cpuUsage();
  const systemBefore = systemCpuMs(port);
  const wall = performance.now();
  await race(clients, LEASES, async (index) => {
    const result = await post('/v1/leases', oneHostLease(`ca-${index}`, t0 + variant.hourOf(index) * 3600_000));
    times.push(result.ms);
    if (result.status === 201) acknowledged.push((result.body as { lease: { id: string } }).lease.id);
    else if (result.status === 409) refused++;
    else throw new Error(`lease ${index}: ${result.status} ${JSON.stringify(result.body)}`);
  });
  const seconds = (performance.now() - wall) / 1000;
  const used = process.cpuUsage(cpu);
  const systemAfter = systemCpuMs(port);
  return {
    times,
    acknowledged,
    refused,
    seconds,
    clientCpuMs: (used.user + used.system) / 1000,
    apiCpuMs: systemAfter.api - systemBefore.api,
    projectorCpuMs: systemAfter.projector - systemBefore.projector,
  };
};

const runOne = async (port: number, variant: Variant, clients: number): Promise<AdmissionRun> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-admission-'));
  const nodeOptions = process.env.BENCH_NODE_OPTIONS;
  const env: Record<string, string> = nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions };
  try {
    const system = await launch(port, dataDir, env);
    const post = poster(port, Math.max(clients, 8));
    try {
      await registerHosts(post, variant.hosts);
      const run = await admit(post, port, variant, clients);
      return {
        variant: variant.name,
        clients,
        hosts: variant.hosts,
        requests: LEASES,
        accepted: run.acknowledged.length,
        refused: run.refused,
        leases_per_s: +(LEASES / run.seconds).toFixed(1),
        p50_ms: round2(percentile(run.times, 50)),
        p95_ms: round2(percentile(run.times, 95)),
        p99_ms: round2(percentile(run.times, 99)),
        client_cpu_ms_per_request: round2(run.clientCpuMs / LEASES),
        api_cpu_ms_per_request: round2(run.apiCpuMs / LEASES),
        projector_cpu_ms_per_request: round2(run.projectorCpuMs / LEASES),
        ...audit(dataDir, run.acknowledged),
      };
    } finally {
      await system.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export interface ConcurrentAdmissionFigures {
  readonly admission: readonly AdmissionRun[];
  readonly store: readonly StoreCommitRun[];
}

export const runConcurrentAdmission = async (port: number): Promise<ConcurrentAdmissionFigures> => {
  const admission: AdmissionRun[] = [];
  for (const variant of VARIANTS) for (const clients of [8, 32]) admission.push(await runOne(port, variant, clients));
  return { admission, store: await runStoreCommits() };
};

export const concurrentAdmissionRows = (figures: ConcurrentAdmissionFigures): string[] => [
  ...figures.admission.map(
    (f) =>
      `| concurrent admission, ${f.clients} clients x ${f.requests} one-host leases, ${f.variant} (${f.hosts} hosts) | ${f.leases_per_s} leases/s, p50 ${f.p50_ms} / p95 ${f.p95_ms} / p99 ${f.p99_ms} ms; ${f.accepted} accepted, ${f.refused} refused; replay: ${f.double_bookings} double bookings, ${f.acknowledged_missing} acknowledged missing; CPU/request: API ${f.api_cpu_ms_per_request} ms, projector ${f.projector_cpu_ms_per_request} ms, client ${f.client_cpu_ms_per_request} ms | not measured |`,
  ),
  ...storeCommitRows(figures.store),
];

const storeOnly = async (): Promise<void> => {
  const store = await runStoreCommits();
  console.log(JSON.stringify(store, null, 2));
  for (const row of storeCommitRows(store)) console.log(row);
};

const all = async (): Promise<void> => {
  const figures = await runConcurrentAdmission(Number(process.env.BENCH_PORT ?? 62252));
  console.log(JSON.stringify(figures, null, 2));
  for (const row of concurrentAdmissionRows(figures)) console.log(row);
};

if (process.argv[1]?.endsWith('concurrent-admission.js')) {
  (process.argv[2] === 'store' ? storeOnly() : all()).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
