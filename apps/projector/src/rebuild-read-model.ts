import type { MikroORM } from '@mikro-orm/core';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { rmSync } from 'node:fs';
import type { EventStore } from '#event-store/event-store.port.js';
import { READ_MODEL_ENTITIES, type ReadModelDatabase, openReadModel } from '#read-model/index.js';
import type { Projection } from './projection.js';
import { describeError } from '#domain/index.js';
import { ProjectionRunner, type RunnerLogEntry } from './projection-runner.js';
import { type RebuildEndTimes, dropCopyTables, openCopyTables, sortHistoryCopies, swapInCopyTables } from './sqlite-copy-tables.js';

export interface RebuildOptions {
  readonly store: EventStore;
  /** The read model to rebuild: it is replaced only once the rebuild has succeeded. */
  readonly orm: MikroORM;
  readonly projections?: readonly Projection[];
  /** Events per transaction (default REBUILD_BATCH_SIZE). */
  readonly batchSize?: number;
  readonly log?: (entry: RunnerLogEntry) => void;
  /** Called about every `progressEveryMs` (default 1 s) while the log is replayed: events replayed so far, and the head. */
  readonly onProgress?: (replayed: number, head: number) => void;
  readonly progressEveryMs?: number;
  /** SQLite: fold on this thread and write on a second one (default true; see SqlitePipeline). */
  readonly writerThread?: boolean;
  /** SQLite: told how long the history copies took to sort, the swap held the read model's write lock, and the checkpoint after it. */
  readonly onSwapped?: (times: RebuildEndTimes) => void;
}

/**
 * A rebuild has the whole log before it: big batches spread each transaction's fixed cost (the
 * checkpoints, the savepoints, a statement per table) over more events, and a row changed by several
 * events of one batch (a lease through its life) is read and written once.
 */
export const REBUILD_BATCH_SIZE = 20_000;

export interface RebuildResult {
  readonly rebuilt: true;
  /** Checkpoint after the rebuild: the store's head when the copy was swapped in. */
  readonly position: number;
  /** Events replayed. */
  readonly events: number;
}

/** A projection stopped on an event: the live read model was left as it was. */
export class RebuildFailedError extends Error {
  constructor(
    readonly projection: string,
    readonly position: number,
    readonly eventType: string,
    readonly reason: string,
  ) {
    super(
      `rebuild failed: projection ${projection} could not project event ${position} (${eventType}): ${reason}; the read model was left unchanged`,
    );
    this.name = 'RebuildFailedError';
  }
}

/** PostgreSQL: where the copy is built, a schema beside the live tables'. */
const scratchSchemaFor = (orm: MikroORM): (ReadModelDatabase & { kind: 'postgresql' }) | null => {
  const clientUrl = orm.config.get('clientUrl');
  if (!(orm.em.getPlatform() instanceof PostgreSqlPlatform) || clientUrl === undefined) return null;
  return { kind: 'postgresql', url: clientUrl, schema: `${orm.config.get('schema') ?? 'public'}_rebuild` };
};

const dropScratchSchema = async (scratch: ReadModelDatabase & { kind: 'postgresql' }, via: MikroORM): Promise<void> => {
  await via.em.getConnection().execute(`drop schema if exists "${scratch.schema ?? ''}" cascade`);
};

/** Replays the log into the scratch read model until it holds the store's head. */
const replay = async (options: RebuildOptions, scratch: MikroORM): Promise<number> => {
  const runner = new ProjectionRunner({
    store: options.store,
    orm: scratch,
    ...(options.projections === undefined ? {} : { projections: options.projections }),
    batchSize: options.batchSize ?? REBUILD_BATCH_SIZE,
    catchUpBatchSize: options.batchSize ?? REBUILD_BATCH_SIZE,
    ...(options.writerThread === undefined ? {} : { writerThread: options.writerThread }),
    ...(options.log === undefined ? {} : { log: options.log }),
    retryDelayMs: null,
  });
  await runner.start();
  const head = await options.store.headPosition();
  const { onProgress } = options;
  const ticker = onProgress === undefined ? null : setInterval(() => onProgress(runner.position(), head), options.progressEveryMs ?? 1_000);
  try {
    await runner.caughtUp.catch(() => undefined);
    const stuck = runner.status().find((status) => status.failure !== null);
    if (stuck?.failure != null)
      throw new RebuildFailedError(stuck.name, stuck.failure.position, stuck.failure.eventType, stuck.failure.error);
    if (runner.failure() !== undefined) throw new Error(describeError(runner.failure()));
    return runner.position();
  } finally {
    if (ticker !== null) clearInterval(ticker);
    await runner.stop();
  }
};

const columnsOf = (orm: MikroORM, className: string): { table: string; columns: string } => {
  const meta = orm.getMetadata().get(className);
  const columns = meta.props
    .flatMap((prop) => prop.fieldNames ?? [])
    .map((name) => `"${name}"`)
    .join(', ');
  return { table: meta.tableName, columns };
};

/** PostgreSQL: copies every table of the scratch schema over the live one in one transaction: readers see the old rows or the new ones. */
const copyIn = async (live: MikroORM, scratch: ReadModelDatabase & { kind: 'postgresql' }): Promise<void> => {
  await live.em.fork().transactional(async (tx) => {
    const tables = READ_MODEL_ENTITIES.map((entity) => columnsOf(live, entity.meta.className));
    for (const { table, columns } of tables) {
      await tx.getConnection().execute(`delete from "${table}"`, [], 'run', tx.getTransactionContext());
      await tx
        .getConnection()
        .execute(
          `insert into "${table}" (${columns}) select ${columns} from "${scratch.schema}"."${table}"`,
          [],
          'run',
          tx.getTransactionContext(),
        );
    }
  });
};

const rebuildOnPostgreSql = async (
  options: RebuildOptions,
  scratch: ReadModelDatabase & { kind: 'postgresql' },
): Promise<RebuildResult> => {
  await dropScratchSchema(scratch, options.orm);
  const scratchOrm = await openReadModel(scratch);
  try {
    const position = await replay(options, scratchOrm);
    await copyIn(options.orm, scratch);
    return { rebuilt: true, position, events: position };
  } finally {
    await scratchOrm.close();
    await dropScratchSchema(scratch, options.orm);
  }
};

/** SQLite: the copy is built in tables of the live file and renamed into place (see sqlite-copy-tables.ts). */
const rebuildOnSqlite = async (options: RebuildOptions): Promise<RebuildResult> => {
  const file = options.orm.config.get('dbName');
  if (file === undefined || file === ':memory:')
    throw new Error('rebuildReadModel: a SQLite read model in a file is needed (the copy is built beside it by another connection)');
  // earlier releases built the copy in a file of its own
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}.rebuild${suffix}`, { force: true });
  const copy = await openCopyTables(file);
  let open = true;
  try {
    const position = await replay(options, copy);
    await copy.close();
    open = false;
    const sortSeconds = sortHistoryCopies(file);
    const times = swapInCopyTables(file);
    options.onSwapped?.({ sortSeconds, ...times });
    return { rebuilt: true, position, events: position };
  } finally {
    if (open) await copy.close();
    dropCopyTables(file);
  }
};

/**
 * Rebuilds the read model from the whole log without ever leaving a half-built one: the log is
 * replayed (with the live projector's runner and projections) into a copy beside the live tables
 * (tables `rebuild_<table>` in the same file for SQLite, renamed into place; schema `<schema>_rebuild`
 * for PostgreSQL, copied over), and only when every projection has reached the head is the copy
 * swapped in, in one transaction. On failure the copy is
 * dropped and the live read model stays as it was. A projector running meanwhile notices its
 * checkpoints moved and carries on from them.
 */
export const rebuildReadModel = async (options: RebuildOptions): Promise<RebuildResult> => {
  const schema = scratchSchemaFor(options.orm);
  return schema === null ? rebuildOnSqlite(options) : rebuildOnPostgreSql(options, schema);
};
