import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppendRequest, EventData } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { Synchronous } from '#event-store/sqlite/schema.js';
import { percentile } from './bench-http.js';

/**
 * The embedded store alone, without HTTP: appends shaped like a one-host admission (a lease's stream,
 * new, and a booking on one of 100 host streams) by 1 writer waiting for each append, or by 8 and 32
 * writers at once (what group commit can share), with synchronous NORMAL and FULL. Shows what a commit
 * costs and whether sharing it makes FULL's sync per commit free. Part of ./concurrent-admission.ts.
 */

const APPENDS = 2000;
const HOSTS = 100;

const payload = 'x'.repeat(600);
const event = (type: string): EventData => ({
  id: crypto.randomUUID(),
  type,
  data: { payload },
  metadata: { correlationId: 'bench', causationId: 'bench', actor: null },
});

const admission = (index: number): AppendRequest[] => [
  { streamId: `lease-${crypto.randomUUID()}`, expectedRevision: 'no_stream', events: [event('Lease.Created'), event('Lease.Scheduled')] },
  { streamId: `host-${index % HOSTS}`, expectedRevision: 'any', events: [event('Host.Booked')] },
];

export interface StoreCommitRun {
  readonly synchronous: Synchronous;
  readonly writers: number;
  readonly appends_per_s: number;
  readonly appends_per_commit: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
}

const runOne = async (synchronous: Synchronous, writers: number): Promise<StoreCommitRun> => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-bench-commits-'));
  const store = SqliteEventStore.open({ file: join(dir, 'events.sqlite'), synchronous });
  try {
    const times: number[] = [];
    let next = 0;
    const wall = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        for (let index = next++; index < APPENDS; index = next++) {
          const started = performance.now();
          await store.appendMultiple(admission(index));
          times.push(performance.now() - started);
        }
      }),
    );
    const seconds = (performance.now() - wall) / 1000;
    return {
      synchronous,
      writers,
      appends_per_s: Math.round(APPENDS / seconds),
      appends_per_commit: +(APPENDS / store.commits()).toFixed(1),
      p50_ms: +percentile(times, 50).toFixed(2),
      p99_ms: +percentile(times, 99).toFixed(2),
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export const runStoreCommits = async (): Promise<readonly StoreCommitRun[]> => {
  const runs: StoreCommitRun[] = [];
  for (const synchronous of ['NORMAL', 'FULL'] as const) for (const writers of [1, 8, 32]) runs.push(await runOne(synchronous, writers));
  return runs;
};

export const storeCommitRows = (runs: readonly StoreCommitRun[]): string[] =>
  runs.map(
    (r) =>
      `| store alone: ${APPENDS} admission-shaped appends, ${r.writers} writer(s), synchronous=${r.synchronous} | ${r.appends_per_s} appends/s, ${r.appends_per_commit} appends per commit, p50 ${r.p50_ms} / p99 ${r.p99_ms} ms | not measured |`,
  );
