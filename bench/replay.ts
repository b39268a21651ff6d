import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { systemCaller } from '#application/caller.js';
import { HistoryQueries } from '#application/history/history.queries.js';
import { HOST_REGISTRY_STREAM, LEASE_EVENT_TYPES, type HostEvent, type LeaseEvent } from '#domain/index.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { READ_MODEL_PROJECTIONS, dumpReadModel, replayToCheckpoints } from '#projector/index.js';
import { type HostRecord, type LeaseView, evolveHostView, openReadModel } from '#read-model/index.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import { percentile } from './bench-http.js';
import { generateLedger } from './replay-workload.js';

/**
 * `npm run bench:replay [-- --events N] [--skip-projection]` (default 1,000,000; never part of `npm run bench` or CI:
 * generating the log alone takes minutes). Writes a generated ledger (bench/replay-workload.ts) into
 * a temporary SQLite store, then measures, on the store opened read-only as `leasehold verify` opens it:
 *  - reading the whole log (rows read and their JSON parsed): the ceiling of any replay;
 *  - the raw fold: the same reading, with every lease and host event folded in memory by the read
 *    model's own evolve functions (no database on the read side);
 *  - the projection replay: the projector's batch code (projectBatch through MikroORM, as a rebuild
 *    and `leasehold verify` run it) into a fresh SQLite read model;
 *  - the history of a lease with 1,000 events: HistoryQueries (as GET /v1/leases/{id}/history), and
 *    `leasehold history <id>` as a process.
 */

const BATCH = 2_000;

const argument = (name: string, fallback: number): number => {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? undefined : process.argv[index + 1];
  return value === undefined ? fallback : Number(value);
};

const seconds = async (work: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
};

const status = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
};

/** Every event of the log, page by page, as a replay reads it. */
const eachPage = async (store: EventStore, onPage: (events: readonly RecordedEvent[]) => void): Promise<number> => {
  let count = 0;
  for (let from = 0; ;) {
    const events = await store.readAll({ from, limit: BATCH });
    const last = events.at(-1);
    if (last === undefined) return count;
    onPage(events);
    count += events.length;
    from = last.position;
  }
};

const LEASE_TYPES = new Set<string>(LEASE_EVENT_TYPES);

/** The leases and hosts documents, folded in memory with the projections' own evolve functions. */
const rawFold = async (store: EventStore): Promise<{ leases: number; hosts: number }> => {
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
  return { leases: leases.size, hosts: hosts.size };
};

/** The projection replay; every projection must have reached the head without a fault. */
const projectionReplay = async (store: EventStore, dir: string, head: number): Promise<{ seconds: number; leases: number }> => {
  const orm: MikroORM = await openReadModel({ kind: 'sqlite', file: join(dir, 'replayed-read-model.sqlite') });
  try {
    const targets = new Map(READ_MODEL_PROJECTIONS.map((projection) => [projection.name, head]));
    let shown = 0;
    const took = await seconds(() =>
      replayToCheckpoints(store, orm, targets, {
        onProgress: ({ done, total }) => {
          if (done - shown >= 100_000) status(`projected ${(shown = done)} of ${total}`);
        },
      }),
    );
    const dump = await dumpReadModel(orm);
    const faults = (dump['lh_checkpoints'] as { name: string; position: number; failedPosition: number | null }[]).filter(
      (row) => row.failedPosition !== null || row.position !== head,
    );
    if (faults.length > 0) throw new Error(`the replay did not reach the head cleanly: ${JSON.stringify(faults)}`);
    return { seconds: took, leases: dump['lh_leases']?.length ?? 0 };
  } finally {
    await orm.close();
  }
};

const historyFigures = async (
  store: EventStore,
  dataDir: string,
  leaseId: string,
): Promise<{ entries: number; queryP50Ms: number; cliP50Ms: number }> => {
  const queries = new HistoryQueries(store);
  const caller = systemCaller('bench');
  const times: number[] = [];
  let entries = 0;
  for (let run = 0; run < 20; run++) {
    const started = performance.now();
    entries = (await queries.lease(caller, leaseId)).length;
    times.push(performance.now() - started);
  }
  const cli = join(import.meta.dirname, '..', 'apps', 'cli', 'src', 'main.js');
  const cliTimes: number[] = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    execFileSync(process.execPath, [cli, '--data-dir', dataDir, 'history', leaseId], {
      stdio: ['ignore', 'ignore', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
    });
    cliTimes.push(performance.now() - started);
  }
  return { entries, queryP50Ms: +percentile(times, 50).toFixed(1), cliP50Ms: +percentile(cliTimes, 50).toFixed(0) };
};

const perSecond = (events: number, took: number): number => Math.round(events / took);

const main = async (): Promise<void> => {
  const target = argument('events', 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-replay-bench-'));
  try {
    const file = join(dir, 'events.sqlite');
    const writer = SqliteEventStore.open({ file });
    status(`generating at least ${target} events in ${file}`);
    let ledger: Awaited<ReturnType<typeof generateLedger>> | undefined;
    const generation = await seconds(async () => {
      ledger = await generateLedger(writer, {
        events: target,
        onProgress: (written) => written % 100_000 < 10_000 && status(`written ${written}`),
      });
    });
    await writer.close();
    if (ledger === undefined) throw new Error('no ledger generated');
    const store = SqliteEventStore.openReadOnly({ file });
    try {
      const head = await store.headPosition();
      status(`generated ${head} events (${ledger.leases} leases on ${ledger.hosts} hosts) in ${generation.toFixed(1)} s; reading`);
      const read = await seconds(() => eachPage(store, () => undefined));
      status('raw fold');
      let folded = { leases: 0, hosts: 0 };
      const cpuBefore = process.cpuUsage();
      const fold = await seconds(async () => (folded = await rawFold(store)));
      const cpu = process.cpuUsage(cpuBefore);
      const foldCpu = (cpu.user + cpu.system) / 1e6;
      const projected = process.argv.includes('--skip-projection')
        ? null
        : (status('projection replay'), await projectionReplay(store, dir, head));
      if (projected !== null && projected.leases !== folded.leases)
        throw new Error(`the projections hold ${projected.leases} leases, the fold ${folded.leases}`);
      status('history');
      const history = await historyFigures(store, dir, ledger.longLeaseId);
      const figures = {
        events: head,
        leases: ledger.leases,
        hosts: ledger.hosts,
        store_mb: +(statSync(file).size / 1e6).toFixed(0),
        generate_s: +generation.toFixed(1),
        read_events_per_s: perSecond(head, read),
        raw_fold_events_per_s: perSecond(head, fold),
        // CPU time of the process (all its threads, the collector's included): steadier than wall time on a shared machine
        raw_fold_events_per_cpu_s: perSecond(head, foldCpu),
        projection_replay_s: projected === null ? null : +projected.seconds.toFixed(1),
        projection_replay_events_per_s: projected === null ? null : perSecond(head, projected.seconds),
        history_entries: history.entries,
        history_query_p50_ms: history.queryP50Ms,
        history_cli_p50_ms: history.cliP50Ms,
      };
      console.log(JSON.stringify(figures, null, 2));
      console.log(`\n| figure | value |\n|---|---|`);
      console.log(
        `| log | ${head.toLocaleString('en-US')} events, ${ledger.leases.toLocaleString('en-US')} leases on ${ledger.hosts} hosts, ${figures.store_mb} MB |`,
      );
      console.log(`| read the whole log (rows + JSON) | ${figures.read_events_per_s.toLocaleString('en-US')} events/s |`);
      console.log(
        `| raw fold (read + evolve in memory) | ${figures.raw_fold_events_per_s.toLocaleString('en-US')} events/s wall, ${figures.raw_fold_events_per_cpu_s.toLocaleString('en-US')} per CPU second |`,
      );
      if (projected !== null)
        console.log(
          `| projection replay (projectBatch, MikroORM, SQLite) | ${perSecond(head, projected.seconds).toLocaleString('en-US')} events/s (${figures.projection_replay_s} s) |`,
        );
      console.log(
        `| history of a lease with ${history.entries} events: query p50 / leasehold history p50 | ${history.queryP50Ms} ms / ${history.cliP50Ms} ms |`,
      );
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
