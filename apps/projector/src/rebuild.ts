/**
 * Rebuilds the read model from the whole event log:
 *
 *   node dist/apps/projector/src/rebuild.js [--target <sqlite file>] [--batch-size <events>]
 *
 * Without --target it rebuilds the configured read model (LEASEHOLD_READ_MODEL_URL, else
 * `${LEASEHOLD_DATA_DIR:-./data}/read-model.sqlite`); with it, the given SQLite file. The log is
 * `${LEASEHOLD_DATA_DIR:-./data}/events.sqlite`. The copy is built beside the live tables and swapped
 * in only when every projection has reached the head (see rebuildReadModel), so the API and the
 * projector may keep running. stderr shows the progress (events done of the head, events/s, time
 * left): on a terminal one line rewritten every second, elsewhere (a log) a line every 5 seconds; a
 * summary line ends every run. --batch-size: events per transaction (default REBUILD_BATCH_SIZE).
 * LEASEHOLD_PROJECTOR_WRITER_THREAD=off: fold and write on one thread (as the projector's setting). Prints {"rebuilt": true, "position": N,
 * "events": N}; on failure
 * prints the projection, the position and type of the event it could not project and the error,
 * exits 1, and leaves the read model as it was.
 */
import type { MikroORM } from '@mikro-orm/core';
import { parseArgs } from 'node:util';
import type { EventStore } from '#event-store/event-store.port.js';
import { openEventStore } from '#event-store/open-event-store.js';
import { READ_MODEL_SCHEMA_VERSION, type ReadModelDatabase, openReadModel, readModelDatabaseFromEnv } from '#read-model/index.js';
import { markSchemaVersion } from './read-model-schema.js';
import { REBUILD_BATCH_SIZE, rebuildReadModel } from './rebuild-read-model.js';
import type { RebuildEndTimes } from './sqlite-copy-tables.js';
import { writerThreadFromEnv } from './projection-runner.js';
import { describeError } from '#domain/index.js';

const USAGE = 'usage: rebuild.js [--target <sqlite file>] [--batch-size <events>]';

interface RebuildArguments {
  readonly target: string | null;
  readonly batchSize: number;
}

const parseArguments = (args: readonly string[]): RebuildArguments => {
  let values: { target?: string; 'batch-size'?: string };
  try {
    ({ values } = parseArgs({ args: [...args], options: { target: { type: 'string' }, 'batch-size': { type: 'string' } }, strict: true }));
  } catch {
    throw new Error(USAGE);
  }
  const batchSize = Number(values['batch-size'] ?? REBUILD_BATCH_SIZE);
  if (values.target === '' || !Number.isInteger(batchSize) || batchSize < 1) throw new Error(USAGE);
  return { target: values.target ?? null, batchSize };
};

const rate = (events: number, ms: number): number => Math.round(events / Math.max(ms / 1000, 0.001));

/** `replayed/head events (n%), r events/s, ETA s`: rewritten in place on a terminal, one line each time elsewhere. */
const progressLine =
  (started: number, terminal: boolean) =>
  (replayed: number, head: number): void => {
    const elapsed = performance.now() - started;
    const perSecond = rate(replayed, elapsed);
    const eta = perSecond === 0 ? '?' : `${Math.ceil((head - replayed) / perSecond)} s`;
    const percent = head === 0 ? 100 : Math.floor((replayed / head) * 100);
    const line = `rebuild: ${replayed}/${head} events (${percent}%), ${perSecond} events/s, ETA ${eta}`;
    process.stderr.write(terminal ? `\r${line}   ` : `${line}\n`);
  };

const run = async (): Promise<void> => {
  const dataDir = process.env.LEASEHOLD_DATA_DIR ?? './data';
  const { target, batchSize } = parseArguments(process.argv.slice(2));
  const db: ReadModelDatabase = target === null ? readModelDatabaseFromEnv(dataDir) : { kind: 'sqlite', file: target };
  let store: EventStore | null = null;
  let orm: MikroORM | null = null;
  try {
    store = await openEventStore('events', dataDir);
    orm = await openReadModel(db);
    const started = performance.now();
    const terminal = process.stderr.isTTY;
    let swap = '';
    const onSwapped = ({ sortSeconds, lockedSeconds, checkpointSeconds }: RebuildEndTimes): void => {
      swap = ` (history sorted into its keys in ${sortSeconds.toFixed(1)} s; swap: write lock held ${lockedSeconds.toFixed(1)} s, checkpoint ${checkpointSeconds.toFixed(1)} s)`;
    };
    const writerThread = writerThreadFromEnv(process.env.LEASEHOLD_PROJECTOR_WRITER_THREAD);
    const result = await rebuildReadModel({
      store,
      orm,
      batchSize,
      writerThread,
      onProgress: progressLine(started, terminal),
      progressEveryMs: terminal ? 1_000 : 5_000,
      onSwapped,
    });
    await markSchemaVersion(orm, READ_MODEL_SCHEMA_VERSION);
    const took = performance.now() - started;
    if (process.stderr.isTTY) process.stderr.write('\n');
    process.stderr.write(
      `rebuild: ${result.events} events in ${(took / 1000).toFixed(1)} s (${rate(result.events, took)} events/s), swapped in at position ${result.position}${swap}\n`,
    );
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
