import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOST_REGISTRY_STREAM, LEASE_EVENT_TYPES, type HostEvent, type LeaseEvent } from '#domain/index.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { PROJECTOR_CACHE_MIB, ProjectionRunner } from '#projector/projection-runner.js';
import { rebuildReadModel } from '#projector/rebuild-read-model.js';
import { type HostRecord, type LeaseView, evolveHostView, openReadModel } from '#read-model/index.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import { generateLedger } from './replay-workload.js';

/**
 * The replay figures of a generated ledger (bench/replay-workload.ts) written into a temporary SQLite
 * store: reading the whole log, the in-memory fold of every lease and host (the ceiling of any
 * replay), and `rebuild-read-models` (rebuildReadModel: every projection into a fresh copy, swapped
 * in), the projector's catch-up from position 0 into an empty read model (ProjectionRunner as the
 * projector runs it), with the peak RSS of the process. `node dist/bench/rebuild-bench.js [--events N]
 * [--ledger <events.sqlite>]` (default 1,000,000 generated events: `npm run bench:rebuild`, several
 * minutes, never run by default; --ledger measures a copy of an existing log instead of generating
 * one); `npm run bench` runs it with 100,000.
 */

const PAGE = 5_000;

export interface ReplayFigures {
  readonly events: number;
  readonly leases: number;
  readonly store_mb: number;
  readonly generate_s: number;
  readonly read_events_per_s: number;
  readonly fold_events_per_s: number;
  readonly fold_events_per_cpu_s: number;
  readonly rebuild_s: number;
  /** Of rebuild_s: the copy swapped into the live read model (the rest is the replay). */
  readonly swap_s: number;
  /** Of swap_s, SQLite: how long the swap held the read model's write lock (the rest is the checkpoint after it). */
  readonly swap_lock_s: number | null;
  readonly rebuild_events_per_s: number;
  /** Events per second of this process's CPU time (user + system): steadier than wall time on a shared machine. */
  readonly rebuild_events_per_cpu_s: number;
  /** The projector's catch-up from 0 (no swap): what a projector started on an empty read model does. */
  readonly catch_up_s: number;
  readonly catch_up_events_per_s: number;
  readonly catch_up_events_per_cpu_s: number;
  readonly read_model_mb: number;
  readonly load_average: readonly number[];
  readonly peak_rss_mb: number;
}

const seconds = async (work: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
};

/** Seconds of this process's CPU time (user + system) that `work` took. */
const cpuSeconds = async (work: () => Promise<unknown>): Promise<number> => {
  const started = process.cpuUsage();
  await work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1e6;
};

const perSecond = (events: number, took: number): number => Math.round(events / Math.max(took, 0.001));

const status = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
};

const eachPage = async (store: EventStore, onPage: (events: readonly RecordedEvent[]) => void): Promise<void> => {
  for (let from = 0; ;) {
    const events = await store.readAll({ from, limit: PAGE });
    const last = events.at(-1);
    if (last === undefined) return;
    onPage(events);
    from = last.position;
  }
};

const LEASE_TYPES = new Set<string>(LEASE_EVENT_TYPES);

/** Every lease and host document, folded in memory with the projections' own evolve functions. */
const fold = async (store: EventStore): Promise<number> => {
  const leases = new Map<string, LeaseView>();
  const hosts = new Map<string, HostRecord>();
  await eachPage(store, (events) => {
    for (const event of events) {
      if (LEASE_TYPES.has(event.type)) {
        const typed = { type: event.type, data: event.data } as LeaseEvent;
        const next = evolveLeaseView(leases.get(typed.data.leaseId) ?? null, typed);
        if (next === null) leases.delete(typed.data.leaseId);
        else leases.set(typed.data.leaseId, next);
      } else if (event.type.startsWith('Host.') && event.streamId !== HOST_REGISTRY_STREAM) {
        const typed = { type: event.type, data: event.data } as HostEvent;
        const next = evolveHostView(hosts.get(typed.data.hostId) ?? null, typed);
        if (next !== null) hosts.set(typed.data.hostId, next);
      }
    }
  });
  return leases.size;
};

/** Progress on stderr every 5 s: a million events take minutes. */
const ticker = (label: string, done: () => number, total: number): NodeJS.Timeout => {
  const started = performance.now();
  return setInterval(() => {
    const count = done();
    status(`${label}: ${count}/${total} events, ${perSecond(count, (performance.now() - started) / 1000)} events/s`);
  }, 5_000);
};

/** The projector's catch-up from 0 into an empty read model, in wall and CPU seconds, and the model's size. */
const catchUp = async (store: EventStore, file: string, head: number): Promise<{ wall: number; cpu: number; mb: number }> => {
  // as the projector opens it (apps/projector/src/main.ts)
  const orm = await openReadModel({ kind: 'sqlite', file }, undefined, { cacheMiB: PROJECTOR_CACHE_MIB });
  const runner = new ProjectionRunner({ store, orm });
  const progress = ticker('catch-up', () => runner.position(), head);
  try {
    const cpu = process.cpuUsage();
    const wall = await seconds(async () => {
      await runner.start();
      await runner.caughtUp;
    });
    const used = process.cpuUsage(cpu);
    return { wall, cpu: (used.user + used.system) / 1e6, mb: Math.round(statSync(file).size / 1e6) };
  } finally {
    clearInterval(progress);
    await runner.stop();
    await orm.close();
  }
};

/** A copy of `ledger` in `file`, or a generated one of at least `target` events (and its lease count). */
const prepareLedger = async (
  file: string,
  target: number,
  ledger: string | null,
): Promise<{ store: EventStore; leases: number; generate: number }> => {
  if (ledger !== null) {
    copyFileSync(ledger, file);
    return { store: SqliteEventStore.open({ file }), leases: 0, generate: 0 };
  }
  const store = SqliteEventStore.open({ file });
  status(`generating at least ${target} events`);
  let leases = 0;
  const generate = await seconds(async () => (leases = (await generateLedger(store, { events: target })).leases));
  return { store, leases, generate };
};

/** Generates (or copies) the ledger in a temporary folder, measures, and removes the folder. */
export const runReplayBench = async (target: number, ledger: string | null = null): Promise<ReplayFigures> => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-rebuild-bench-'));
  try {
    const file = join(dir, 'events.sqlite');
    const { store, leases, generate } = await prepareLedger(file, target, ledger);
    try {
      const head = await store.headPosition();
      status(`generated ${head} events in ${generate.toFixed(1)} s; reading`);
      const read = await seconds(() => eachPage(store, () => undefined));
      let folded = 0;
      const folding = await seconds(async () => (folded = await fold(store)));
      const foldingCpu = await cpuSeconds(() => fold(store));
      status('rebuild');
      const orm = await openReadModel({ kind: 'sqlite', file: join(dir, 'read-model.sqlite') });
      let rebuild: number;
      let caughtUp = 0;
      let swapLock: number | null = null;
      const cpu = process.cpuUsage();
      try {
        const started = performance.now();
        const onProgress = (replayed: number): void =>
          status(`rebuild: ${replayed}/${head} events, ${perSecond(replayed, (performance.now() - started) / 1000)} events/s`);
        const log = (entry: { event: string }): void => {
          if (entry.event === 'caught_up') caughtUp = performance.now() - started;
        };
        rebuild = await seconds(() =>
          rebuildReadModel({
            store,
            orm,
            log,
            onProgress,
            progressEveryMs: 5_000,
            onSwapped: (times) => (swapLock = +times.lockedSeconds.toFixed(1)),
          }),
        );
      } finally {
        await orm.close();
      }
      const used = process.cpuUsage(cpu);
      status('projector catch-up from 0');
      const caught = await catchUp(store, join(dir, 'caught-up.sqlite'), head);
      return {
        events: head,
        leases: ledger === null ? leases : folded,
        store_mb: +(statSync(file).size / 1e6).toFixed(0),
        generate_s: +generate.toFixed(1),
        read_events_per_s: perSecond(head, read),
        fold_events_per_s: perSecond(head, folding),
        fold_events_per_cpu_s: perSecond(head, foldingCpu),
        rebuild_s: +rebuild.toFixed(1),
        swap_s: +(rebuild - caughtUp / 1000).toFixed(1),
        swap_lock_s: swapLock,
        rebuild_events_per_s: perSecond(head, rebuild),
        rebuild_events_per_cpu_s: perSecond(head, (used.user + used.system) / 1e6),
        catch_up_s: +caught.wall.toFixed(1),
        catch_up_events_per_s: perSecond(head, caught.wall),
        catch_up_events_per_cpu_s: perSecond(head, caught.cpu),
        read_model_mb: caught.mb,
        load_average: loadavg().map((load) => +load.toFixed(2)),
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const thousands = (n: number): string => n.toLocaleString('en-US');

/** The figures as rows of the bench's table. */
export const replayRows = (f: ReplayFigures): string[] => [
  `| replay: log of ${thousands(f.events)} generated events (${thousands(f.leases)} leases), read | ${thousands(f.read_events_per_s)} events/s | |`,
  `| replay: fold in memory (leases and hosts) | ${thousands(f.fold_events_per_s)} events/s, ${thousands(f.fold_events_per_cpu_s)} per CPU second (target 100,000) | |`,
  `| replay: rebuild-read-models (swap ${f.swap_s} s included${f.swap_lock_s === null ? '' : `, write lock held ${f.swap_lock_s} s`}), peak RSS | ${thousands(f.rebuild_events_per_s)} events/s, ${thousands(f.rebuild_events_per_cpu_s)} per CPU second (target 50,000); ${f.peak_rss_mb} MB | |`,
  `| replay: projector catch-up from 0 (read model ${thousands(f.read_model_mb)} MB), load average ${f.load_average.join(' ')} | ${thousands(f.catch_up_events_per_s)} events/s, ${thousands(f.catch_up_events_per_cpu_s)} per CPU second (target 50,000) | |`,
];

const argument = (name: string): string | null => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? null : (process.argv[index + 1] ?? null);
};

if (process.argv[1]?.endsWith('rebuild-bench.js') === true) {
  runReplayBench(Number(argument('events') ?? 1_000_000), argument('ledger')).then(
    (figures) => {
      console.log(JSON.stringify(figures, null, 2));
      for (const row of replayRows(figures)) console.log(row);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
