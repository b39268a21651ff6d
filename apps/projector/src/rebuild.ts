/**
 * Rebuilds the read model from the whole event log:
 *
 *   node dist/apps/projector/src/rebuild.js [--target <sqlite file>]
 *
 * Without --target it rebuilds the configured read model (LEASEHOLD_READ_MODEL_URL, else
 * `${LEASEHOLD_DATA_DIR:-./data}/read-model.sqlite`); with it, the given SQLite file. The log is
 * `${LEASEHOLD_DATA_DIR:-./data}/events.sqlite`. The copy is built beside the live tables and swapped
 * in only when every projection has reached the head (see rebuildReadModel), so the API and the
 * projector may keep running. On a terminal, stderr shows the progress (events/s, time left) every
 * second; a summary line goes to stderr in any case. Prints {"rebuilt": true, "position": N, "events": N}; on failure
 * prints the projection, the position and type of the event it could not project and the error,
 * exits 1, and leaves the read model as it was.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { EventStore } from '#event-store/event-store.port.js';
import { openEventStore } from '#event-store/open-event-store.js';
import { type ReadModelDatabase, openReadModel, readModelDatabaseFromEnv } from '#read-model/index.js';
import { rebuildReadModel } from './rebuild-read-model.js';
import { describeError } from '#domain/index.js';

const USAGE = 'usage: rebuild.js [--target <sqlite file>]';

const parseTarget = (args: readonly string[]): string | null => {
  if (args.length === 0) return null;
  if (args.length === 2 && args[0] === '--target' && args[1] !== undefined && args[1] !== '') return args[1];
  const inline = args.length === 1 ? /^--target=(.+)$/.exec(args[0] ?? '') : null;
  if (inline?.[1] !== undefined) return inline[1];
  throw new Error(USAGE);
};

const rate = (events: number, ms: number): number => Math.round(events / Math.max(ms / 1000, 0.001));

/** `replayed/head events (n%), r events/s, ETA s` on one line, rewritten in place. */
const progressLine = (started: number) => (replayed: number, head: number): void => {
  const elapsed = performance.now() - started;
  const perSecond = rate(replayed, elapsed);
  const eta = perSecond === 0 ? '?' : `${Math.ceil((head - replayed) / perSecond)} s`;
  const percent = head === 0 ? 100 : Math.floor((replayed / head) * 100);
  process.stderr.write(`\rrebuild: ${replayed}/${head} events (${percent}%), ${perSecond} events/s, ETA ${eta}   `);
};

const run = async (): Promise<void> => {
  const dataDir = process.env.LEASEHOLD_DATA_DIR ?? './data';
  const target = parseTarget(process.argv.slice(2));
  const db: ReadModelDatabase = target === null ? readModelDatabaseFromEnv(dataDir) : { kind: 'sqlite', file: target };
  let store: EventStore | null = null;
  let orm: MikroORM | null = null;
  try {
    store = await openEventStore('events', dataDir);
    orm = await openReadModel(db);
    const started = performance.now();
    const onTerminal = process.stderr.isTTY ? { onProgress: progressLine(started) } : {};
    const result = await rebuildReadModel({ store, orm, ...onTerminal });
    const took = performance.now() - started;
    if (process.stderr.isTTY) process.stderr.write('\n');
    process.stderr.write(`rebuild: ${result.events} events in ${(took / 1000).toFixed(1)} s (${rate(result.events, took)} events/s), swapped in at position ${result.position}\n`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await orm?.close();
    await store?.close();
  }
};

run().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${describeError(error)}\n`);
    process.exit(1);
  },
);
