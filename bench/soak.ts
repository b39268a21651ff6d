import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { percentile } from './bench-http.js';
import { SOAK_ADDRESSES, SOAK_HOSTS, SOAK_HOST_SIZE, SOAK_NETWORK, type SoakRequest, SoakWorkload } from './soak-workload.js';
import { APPS, type App, SystemProcesses } from './system-processes.js';

/**
 * `npm run soak [-- --minutes 30] [--rate <requests/s>] [--enforce all|errors]`: the api, the
 * projector and the reactor as three processes on a fresh embedded store; measures the peak rate of
 * the mixed workload (8 clients, back to back), then drives it open-loop at half that rate, with
 * timers firing every few seconds, and prints plain lines: requests, errors, the RSS of each process
 * at start (after a warm-up) and end, timer lateness p50/p99 (from the log), and the projector's lag.
 * Exits 1 when a target is missed: 0 errors, RSS growth under 10 %, lateness p99 under 1 s
 * (`--enforce errors`: only the first; timings on a machine shared with a test run say little).
 */

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    rate: { type: 'string' },
    'peak-seconds': { type: 'string', default: '20' },
    enforce: { type: 'string', default: 'all' },
    keep: { type: 'boolean', default: false },
  },
});

const MINUTES = Number(args.minutes);
const SECOND = 1000;
const MAX_IN_FLIGHT = 64;
const RSS_GROWTH_LIMIT = 0.1;
const LATENESS_P99_LIMIT_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Tally {
  requests: number;
  errors: number;
  readonly statuses: Map<number, number>;
  readonly errorSamples: string[];
}

const send = async (base: string, request: SoakRequest, tally: Tally): Promise<void> => {
  tally.requests++;
  try {
    const response = await fetch(`${base}${request.path}`, {
      method: request.method,
      headers: { 'Content-Type': 'application/json' },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(30 * SECOND),
    });
    const text = await response.text();
    const body = text === '' ? null : JSON.parse(text);
    tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
    if (response.status >= 500) {
      tally.errors++;
      if (tally.errorSamples.length < 5)
        tally.errorSamples.push(`${request.method} ${request.path}: ${response.status} ${text.slice(0, 300)}`);
    }
    request.answered(response.status, body);
  } catch (error) {
    tally.errors++;
    if (tally.errorSamples.length < 5)
      tally.errorSamples.push(`${request.method} ${request.path}: ${error instanceof Error ? error.message : String(error)}`);
  }
};

const newTally = (): Tally => ({ requests: 0, errors: 0, statuses: new Map(), errorSamples: [] });

const setUp = async (base: string): Promise<void> => {
  const must = async (path: string, body: unknown): Promise<void> => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  };
  for (let i = 1; i <= SOAK_HOSTS; i++) await must('/v1/os-hosts', { name: `soak-${String(i).padStart(2, '0')}`, ...SOAK_HOST_SIZE });
  for (let i = 1; i <= SOAK_ADDRESSES; i++)
    await must('/v1/floatingips', { floating_network_id: SOAK_NETWORK, floating_ip_address: `198.18.0.${i}` });
};

/** Requests per second of the workload driven back to back by 8 clients for `seconds`. */
const measurePeak = async (base: string, seconds: number): Promise<number> => {
  const workload = new SoakWorkload();
  const tally = newTally();
  const started = performance.now();
  const client = async (): Promise<void> => {
    while (performance.now() - started < seconds * SECOND) await send(base, workload.next(Date.now()), tally);
  };
  await Promise.all(Array.from({ length: 8 }, client));
  if (tally.errors > 0) throw new Error(`errors while measuring the peak: ${tally.errorSamples.join('; ')}`);
  return tally.requests / ((performance.now() - started) / SECOND);
};

/** VmRSS of a process, MB. */
const rssOf = (pid: number | null): number => {
  if (pid === null) return NaN;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match?.[1] === undefined ? NaN : Number(match[1]) / 1024;
};

const median = (values: readonly number[]): number => percentile(values, 50);

interface Sample {
  readonly atMs: number;
  readonly rss: Record<App, number>;
  readonly lagPositions: number;
  readonly lagSeconds: number;
}

/** Every second: each process's RSS, and how far the projector's slowest read model is behind the log. */
const sampler = (system: SystemProcesses, log: Database.Database, samples: Sample[]): (() => void) => {
  const head = log.prepare('SELECT coalesce(max(position), 0) FROM events').pluck();
  const recordedAt = log.prepare('SELECT recorded_at FROM events WHERE position > ? ORDER BY position LIMIT 1').pluck();
  let stopped = false;
  const loop = async (): Promise<void> => {
    while (!stopped) {
      const started = performance.now();
      try {
        const ready = (await (
          await fetch(`${system.healthUrl('projector')}/readyz`, { signal: AbortSignal.timeout(5 * SECOND) })
        ).json()) as { projections: { position: number }[] };
        const checkpoint = Math.min(...ready.projections.map((p) => p.position));
        const lagPositions = Math.max(0, (head.get() as number) - checkpoint);
        const oldest = lagPositions === 0 ? undefined : (recordedAt.get(checkpoint) as string | undefined);
        const lagSeconds = oldest === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / SECOND);
        const rss = Object.fromEntries(APPS.map((app) => [app, rssOf(system.pid(app))])) as Record<App, number>;
        samples.push({ atMs: started, rss, lagPositions, lagSeconds });
      } catch {
        // a probe that did not answer in time is a sample missed, not an error of the workload
      }
      await sleep(Math.max(0, SECOND - (performance.now() - started)));
    }
  };
  void loop();
  return () => {
    stopped = true;
  };
};

/** Open loop: `rate` requests per second whatever the answers take, at most MAX_IN_FLIGHT at once (the rest counted as not sent). */
const drive = async (base: string, rate: number, seconds: number, tally: Tally): Promise<number> => {
  const workload = new SoakWorkload();
  const interval = SECOND / rate;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let issued = 0;
  let notSent = 0;
  while (performance.now() - started < seconds * SECOND) {
    const due = Math.floor((performance.now() - started) / interval);
    for (; issued < due; issued++) {
      if (inFlight.size >= MAX_IN_FLIGHT) {
        notSent++;
        continue;
      }
      const request = send(base, workload.next(Date.now()), tally).finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    await sleep(5);
  }
  await Promise.all(inFlight);
  return notSent;
};

interface PhaseRow {
  readonly stream_id: string;
  readonly type: string;
  readonly data: string;
  readonly recorded_at: string;
}

const SCHEDULE_EVENTS = new Set(['Lease.Created', 'Lease.Rescheduled']);
const AFTER_START = new Set(['Lease.Started', 'Lease.StartFailed']);
const AFTER_BEFORE_END = new Set(['Lease.BeforeEndCompleted', 'Lease.BeforeEndFailed']);

/**
 * How late each timer fired, from the log: the begin event's time minus the moment the phase became
 * due, the later of its date and the event that made it possible (the lease created or rescheduled,
 * for the end also started and its before-end done). Ends of deleted leases are no timers.
 */
const timerLateness = (log: Database.Database): { readonly lateness: number[]; readonly busiestSecond: number } => {
  const rows = log
    .prepare("SELECT stream_id, type, data, recorded_at FROM events WHERE stream_id LIKE 'lease-%' ORDER BY position")
    .all() as PhaseRow[];
  const leases = new Map<
    string,
    { start: number; beforeEnd: number | null; end: number; scheduled: number; started: number; beforeEndDone: number }
  >();
  const lateness: number[] = [];
  const dueSeconds = new Map<number, number>();
  const due = (at: number, dueMs: number): void => {
    lateness.push(at - dueMs);
    const second = Math.floor(dueMs / SECOND);
    dueSeconds.set(second, (dueSeconds.get(second) ?? 0) + 1);
  };
  for (const row of rows) {
    const at = Date.parse(row.recorded_at);
    const data = JSON.parse(row.data);
    const lease = leases.get(row.stream_id);
    if (SCHEDULE_EVENTS.has(row.type)) {
      const dates = {
        start: Date.parse(data.startDate),
        end: Date.parse(data.endDate),
        beforeEnd: data.beforeEndDate === null ? null : Date.parse(data.beforeEndDate),
      };
      leases.set(row.stream_id, { started: 0, beforeEndDone: 0, ...lease, ...dates, scheduled: at });
    } else if (lease === undefined) {
      continue;
    } else if (AFTER_START.has(row.type)) {
      lease.started = at;
    } else if (AFTER_BEFORE_END.has(row.type)) {
      lease.beforeEndDone = at;
    } else if (row.type === 'Lease.StartRequested') {
      due(at, Math.max(lease.start, lease.scheduled));
    } else if (row.type === 'Lease.BeforeEndRequested' && lease.beforeEnd !== null) {
      due(at, Math.max(lease.beforeEnd, lease.scheduled, lease.started));
    } else if (row.type === 'Lease.EndRequested' && data.reason === 'scheduled') {
      due(at, Math.max(lease.end, lease.scheduled, lease.started, lease.beforeEndDone));
    }
  }
  return { lateness, busiestSecond: Math.max(0, ...dueSeconds.values()) };
};

const percent = (from: number, to: number): string => `${to >= from ? '+' : ''}${(((to - from) / from) * 100).toFixed(1)} %`;

const main = async (): Promise<number> => {
  if (!(MINUTES > 0)) throw new Error('--minutes must be a positive number');
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-soak-'));
  const system = await SystemProcesses.start(dataDir);
  const log = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
  const samples: Sample[] = [];
  try {
    await setUp(system.url);
    const cold = Object.fromEntries(APPS.map((app) => [app, rssOf(system.pid(app))])) as Record<App, number>;
    const peak = args.rate === undefined ? await measurePeak(system.url, Number(args['peak-seconds'])) : null;
    const rate = args.rate === undefined ? (peak ?? 0) / 2 : Number(args.rate);
    const seconds = MINUTES * 60;
    const warmUp = Math.min(60, seconds / 6);
    console.log(
      `soak: ${MINUTES} min at ${rate.toFixed(1)} requests/s (${peak === null ? 'as asked' : `half the measured peak of ${peak.toFixed(1)}/s`}), ${cpus().length} cores, Node ${process.version}, load average at start ${loadavg()[0]?.toFixed(2)}`,
    );
    const tally = newTally();
    const stopSampling = sampler(system, log, samples);
    const drivenFrom = performance.now();
    const notSent = await drive(system.url, rate, seconds, tally);
    stopSampling();
    const exits = system.unexpectedExits;

    // medians over a window at each end: a garbage collection moves RSS by tens of MB within seconds
    const window = Math.min(60, seconds / 10);
    const around = (fromS: number, toS: number, app: App): number =>
      median(samples.filter((s) => s.atMs >= drivenFrom + fromS * SECOND && s.atMs <= drivenFrom + toS * SECOND).map((s) => s.rss[app]));
    const rss = APPS.map((app) => ({
      app,
      cold: cold[app],
      start: around(warmUp, warmUp + window, app),
      end: around(seconds - window, seconds, app),
    }));
    const { lateness, busiestSecond } = timerLateness(log);
    const lagPositions = Math.max(0, ...samples.map((s) => s.lagPositions));
    const lagSeconds = Math.max(0, ...samples.map((s) => s.lagSeconds));
    const statuses = [...tally.statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');

    console.log(`requests: ${tally.requests} (${statuses}; ${notSent} not sent: ${MAX_IN_FLIGHT} in flight)`);
    console.log(
      `errors: ${tally.errors + exits.length}${tally.errorSamples.length === 0 ? '' : ` (${tally.errorSamples.join('; ')})`}${exits.length === 0 ? '' : ` (processes exited: ${JSON.stringify(exits)})`}`,
    );
    for (const { app, cold: atBoot, start, end } of rss) {
      console.log(
        `rss ${app}: ${start.toFixed(1)} MB at start (median of ${window} s after ${warmUp} s of load; ${atBoot.toFixed(1)} MB idle) -> ${end.toFixed(1)} MB at end (median of the last ${window} s; ${percent(start, end)})`,
      );
    }
    console.log(
      `timer lateness: p50 ${percentile(lateness, 50).toFixed(0)} ms, p99 ${percentile(lateness, 99).toFixed(0)} ms, max ${Math.max(0, ...lateness).toFixed(0)} ms (${lateness.length} timers, up to ${busiestSecond} due in one second)`,
    );
    const step = Math.max(1, Math.round(MINUTES / 6));
    const trend = (app: App): string =>
      Array.from({ length: Math.floor(MINUTES / step) }, (_, i) =>
        around(Math.max(0, (i + 1) * step * 60 - window), (i + 1) * step * 60, app).toFixed(0),
      ).join(' ');
    console.log(`rss trend (MB, every ${step} min): ${APPS.map((app) => `${app} ${trend(app)}`).join('; ')}`);
    console.log(`projector lag max: ${lagPositions} positions, ${lagSeconds.toFixed(2)} s`);

    const missed = [
      ...(tally.errors + exits.length > 0 ? ['errors'] : []),
      ...(args.enforce === 'errors'
        ? []
        : rss.filter((r) => !((r.end - r.start) / r.start < RSS_GROWTH_LIMIT)).map((r) => `rss growth of ${r.app}`)),
      ...(args.enforce === 'errors' || percentile(lateness, 99) < LATENESS_P99_LIMIT_MS ? [] : ['timer lateness p99']),
    ];
    console.log(
      `targets (${args.enforce === 'errors' ? 'errors enforced' : 'all enforced'}): ${missed.length === 0 ? 'met' : `missed: ${missed.join(', ')}`}`,
    );
    return missed.length === 0 ? 0 : 1;
  } finally {
    log.close();
    await system.stop();
    if (args.keep) console.log(`data kept in ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(2);
  },
);
