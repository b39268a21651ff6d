import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOST_REGISTRY_STREAM, LEASE_EVENT_TYPES, type HostEvent, type LeaseEvent } from '#domain/index.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { rebuildReadModel } from '#projector/rebuild-read-model.js';
import { type HostRecord, type LeaseView, evolveHostView, evolveLeaseView, openReadModel } from '#read-model/index.js';
import { generateLedger } from './replay-workload.js';

/**
 * The replay figures of a generated ledger (bench/replay-workload.ts) written into a temporary SQLite
 * store: reading the whole log, the in-memory fold of every lease and host (the ceiling of any
 * replay), and `rebuild-read-models` (rebuildReadModel: every projection into a fresh copy, swapped
 * in) with the peak RSS of the process. `node dist/bench/rebuild-bench.js [--events N]` (default
 * 1,000,000: `npm run bench:rebuild`, several minutes, never run by default); `npm run bench` runs
 * it with 100,000.
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
  readonly rebuild_events_per_s: number;
  /** Events per second of this process's CPU time (user + system): steadier than wall time on a shared machine. */
  readonly rebuild_events_per_cpu_s: number;
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

const status = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
};

const eachPage = async (store: EventStore, onPage: (events: readonly RecordedEvent[]) => void): Promise<void> => {
  for (let from = 0; ; ) {
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

const perSecond = (events: number, took: number): number => Math.round(events / took);

/** Generates the ledger in a temporary folder, measures, and removes the folder. */
export const runReplayBench = async (target: number): Promise<ReplayFigures> => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-rebuild-bench-'));
  try {
    const file = join(dir, 'events.sqlite');
    const store = SqliteEventStore.open({ file });
    try {
      status(`generating at least ${target} events`);
      let leases = 0;
      const generate = await seconds(async () => (leases = (await generateLedger(store, { events: target })).leases));
      const head = await store.headPosition();
      status(`generated ${head} events in ${generate.toFixed(1)} s; reading`);
      const read = await seconds(() => eachPage(store, () => undefined));
      const folding = await seconds(() => fold(store));
      const foldingCpu = await cpuSeconds(() => fold(store));
      status('rebuild');
      const orm = await openReadModel({ kind: 'sqlite', file: join(dir, 'read-model.sqlite') });
      let rebuild: number;
      let caughtUp = 0;
      const cpu = process.cpuUsage();
      try {
        const started = performance.now();
        rebuild = await seconds(() => rebuildReadModel({ store, orm, log: (entry) => entry.event === 'caught_up' && (caughtUp = performance.now() - started) }));
      } finally {
        await orm.close();
      }
      const used = process.cpuUsage(cpu);
      return {
        events: head,
        leases,
        store_mb: +(statSync(file).size / 1e6).toFixed(0),
        generate_s: +generate.toFixed(1),
        read_events_per_s: perSecond(head, read),
        fold_events_per_s: perSecond(head, folding),
        fold_events_per_cpu_s: perSecond(head, foldingCpu),
        rebuild_s: +rebuild.toFixed(1),
        swap_s: +(rebuild - caughtUp / 1000).toFixed(1),
        rebuild_events_per_s: perSecond(head, rebuild),
        rebuild_events_per_cpu_s: perSecond(head, (used.user + used.system) / 1e6),
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
  `| replay: rebuild-read-models (swap ${f.swap_s} s included), peak RSS | ${thousands(f.rebuild_events_per_s)} events/s, ${thousands(f.rebuild_events_per_cpu_s)} per CPU second (target 50,000); ${f.peak_rss_mb} MB | |`,
];

const eventsArgument = (): number => {
  const index = process.argv.indexOf('--events');
  return index === -1 ? 1_000_000 : Number(process.argv[index + 1]);
};

if (process.argv[1]?.endsWith('rebuild-bench.js') === true) {
  runReplayBench(eventsArgument()).then(
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
