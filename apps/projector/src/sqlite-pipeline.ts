import { BetterSqlitePlatform } from '@mikro-orm/better-sqlite';
import type { MikroORM } from '@mikro-orm/core';
import Database from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import type { FoldableEvent } from '#event-store/event-store.port.js';
import { CheckpointEntity, type CheckpointRow } from '#read-model/index.js';
import type { Bindable, CheckpointGuard, WriteStep, WriterMessage, WriterReply, WriterSetup } from './batch-writer.protocol.js';
import { startWriterThread } from './batch-writer.thread.js';
import { BatchRows, type PipelinedBatch as PipelinedRows } from './batch-rows.js';
import type { Projection } from './projection.js';
import { foldEvents } from './projection-batch.js';
import { SqliteRowWriter } from './sqlite-row-writer.js';

/**
 * The connection settings the writer thread copies from the read model's own connection. Not
 * wal_autocheckpoint: a rebuild's copy turns it off, so that its single thread never stops to
 * checkpoint, which leaves the whole copy (550 MB at a million events) in the write-ahead log for the
 * swap to checkpoint after it; the writer thread checkpoints as it goes (SQLite's default, at 1,000
 * pages) while the main thread folds. On the quiet machine, four runs at a million events: the swap's
 * write lock 1.8-2.2 s instead of 3.4 s, its checkpoint 0.2 s instead of 2.2-2.9 s, the rebuild
 * 30.5-33.0 s instead of 32.9-34.4 s (under load from other work it came out about even).
 */
const COPIED_PRAGMAS = ['busy_timeout', 'synchronous', 'cache_size'] as const;

/** Batches folded and handed to the writer thread before the main thread waits for the oldest to commit. */
export const PIPELINE_DEPTH = 2;

/**
 * Events read and folded at a time within a batch. A batch's rows live until it is written, but its
 * events need not: read all at once (20,000), they outlived two scavenges and were promoted to the old
 * generation, most of the 1.7 GB the collector promoted in a rebuild of a million events.
 */
export const FOLD_CHUNK = 2_000;

/** Up to `limit` events after position `after`, in log order. */
export type ReadEvents = (after: number, limit: number) => Promise<readonly FoldableEvent[]>;

/** A batch handed to the writer thread: the positions of its first and last events, and its commit. */
export interface FoldedBatch {
  readonly first: number;
  readonly last: number;
  /** Rejects with a PipelineWriteError when nothing of the batch was written, and then neither is any later batch. */
  readonly committed: Promise<void>;
}

interface Known {
  readonly row: object | null;
  /** The batch that last wrote the row: the row is forgotten once that batch has committed. */
  readonly batch: number;
}

/** A batch written by the writer thread: `reject`s if nothing of it was written. */
interface Waiting {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** A batch that could not be written (a checkpoint had moved since it was folded, a statement failed, the writer thread is gone). */
export class PipelineWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PipelineWriteError';
  }
}

/**
 * One batch folded on the main thread for the writer thread: the statements to run (with their
 * bound values, in the order the projections wrote them) and the rows as the batch left them.
 */
export class PipelinedBatch implements PipelinedRows {
  readonly steps: WriteStep[] = [];
  private readonly changed = new Map<string, Map<string, object | null>>();

  constructor(private readonly pipeline: SqlitePipeline) {}

  reader<Row extends object>(className: string): SqliteRowWriter<Row> {
    return this.pipeline.writerOf<Row>(className);
  }

  /** The row as this batch or a batch not yet committed left it; undefined: the database has it as it is. */
  known<Row extends object>(className: string, key: string): Row | null | undefined {
    const mine = this.changed.get(className);
    if (mine?.has(key) === true) return (mine.get(key) ?? null) as Row | null;
    return this.pipeline.known<Row>(className, key);
  }

  remember(className: string, key: string, row: object | null): void {
    let rows = this.changed.get(className);
    if (rows === undefined) this.changed.set(className, (rows = new Map<string, object | null>()));
    rows.set(key, row);
  }

  delete(className: string, keys: readonly string[]): void {
    const writer = this.reader(className);
    if (keys.length > 0) this.steps.push({ sql: writer.sql.remove, width: 1, values: keys.map((key) => writer.boundKey(key)) });
  }

  put<Row extends object>(className: string, rows: readonly Row[]): void {
    const writer = this.reader<Row>(className);
    if (rows.length > 0) this.steps.push(this.step(writer, writer.sql.upsert, rows));
  }

  add<Row extends object>(className: string, rows: readonly Row[]): void {
    const writer = this.reader<Row>(className);
    if (rows.length > 0) this.steps.push(this.step(writer, writer.sql.insert, rows));
  }

  private step<Row extends object>(writer: SqliteRowWriter<Row>, sql: string, rows: readonly Row[]): WriteStep {
    const values: Bindable[] = [];
    writer.boundInto(values, rows);
    return { sql, width: writer.width, values };
  }

  /** What the batch changed, for the pipeline to know until the batch has committed. */
  changes(): ReadonlyMap<string, ReadonlyMap<string, object | null>> {
    return this.changed;
  }
}

/**
 * The projector's catch-up on a SQLite read model in two threads: the main thread reads the log and
 * folds a batch (every projection, in memory, as projectBatch does), then hands its statements to a
 * writer thread (batch-writer.thread.ts) that writes them, with the checkpoints, in one transaction on
 * a connection of its own, while the main thread goes on with the next batch.
 *
 * A batch in flight has not committed, so what it wrote is not in the database yet: the main thread
 * keeps every row a batch wrote until that batch has committed, and a later batch reads those rows
 * from there, others from the database (through a connection of its own), where no batch in flight
 * has changed them. Each batch is guarded by its checkpoints: the writer writes it only if every
 * projection's checkpoint is still where the batch was folded from. A crash loses no more than the
 * batches not committed, which the projector projects again from the log.
 */
export class SqlitePipeline {
  private readonly inFlightRows = new Map<string, Map<string, Known>>();
  private readonly waiting = new Map<number, Waiting>();
  private lastBatch = 0;
  private closed: Promise<void> | null = null;
  private readonly exited: Promise<void>;
  private onClosed: (() => void) | null = null;
  /** Reads a projection's checkpoint: the writer writes a batch only where it finds what the batch was folded from. */
  private readonly guardSql: string;
  /** Why the writer thread is gone, once it is: a batch handed over after that fails at once. */
  private gone: Error | null = null;

  private constructor(
    private readonly orm: MikroORM,
    private readonly reads: Database.Database,
    private readonly worker: Worker,
  ) {
    const meta = orm.getMetadata().get<CheckpointRow>(CheckpointEntity.meta.className);
    const column = (name: keyof CheckpointRow): string => `"${meta.properties[name].fieldNames[0] ?? name}"`;
    this.guardSql = `select ${column('position')} from "${meta.tableName}" where ${column('name')} = ?`;
    worker.on('message', (reply: WriterReply) => this.onReply(reply));
    worker.on('error', (error) => this.failAll(error));
    this.exited = new Promise((resolve) => {
      worker.once('exit', () => {
        this.failAll(this.gone ?? new Error('the projector writer thread exited'));
        resolve();
      });
    });
  }

  /** A pipeline for this read model; null unless it is SQLite in a file (the writer opens the file too). */
  static async open(orm: MikroORM): Promise<SqlitePipeline | null> {
    const file = orm.config.get('dbName');
    if (!(orm.em.getPlatform() instanceof BetterSqlitePlatform) || file === undefined || file === '' || file === ':memory:') return null;
    const connection = orm.em.getConnection();
    const pragmas: string[] = [];
    for (const name of COPIED_PRAGMAS) {
      const rows = (await connection.execute(`pragma ${name}`)) as Record<string, unknown>[];
      const value = rows[0] === undefined ? undefined : Object.values(rows[0])[0];
      if (typeof value === 'number' || typeof value === 'bigint') pragmas.push(`${name} = ${value}`);
    }
    const reads = new Database(file, { fileMustExist: true, readonly: true });
    for (const pragma of pragmas.filter((line) => line.startsWith('cache_size') || line.startsWith('busy_timeout'))) reads.pragma(pragma);
    const setup: WriterSetup = { file, pragmas };
    const worker = startWriterThread(setup);
    return new SqlitePipeline(orm, reads, worker);
  }

  /** The entity's statements, and reads on the main thread's connection of its own (SqliteRowWriter keeps one per connection). */
  writerOf<Row extends object>(className: string): SqliteRowWriter<Row> {
    return SqliteRowWriter.on<Row>(
      this.reads,
      this.orm.getMetadata().get<Row>(className),
      this.orm.em.getPlatform() as BetterSqlitePlatform,
    );
  }

  known<Row extends object>(className: string, key: string): Row | null | undefined {
    const known = this.inFlightRows.get(className)?.get(key);
    return known === undefined ? undefined : (known.row as Row | null);
  }

  /**
   * Reads up to `size` events after `from` (every projection is at `from`), `chunk` at a time,
   * folds them for `projections` and hands the batch to the writer thread. Returns null, having handed
   * nothing over, when a projection throws: the caller waits for the batches in flight and projects
   * these events in a transaction of its own (projectBatch), which finds the event and records the
   * fault. With nothing to read, hands nothing over and returns `last` = `from`.
   */
  async fold(
    projections: readonly Projection[],
    from: number,
    read: ReadEvents,
    size: number,
    chunk = FOLD_CHUNK,
  ): Promise<FoldedBatch | null> {
    const batch = new PipelinedBatch(this);
    const em = this.orm.em.fork();
    const rows = projections.map(() => new BatchRows(em, batch));
    let first = 0;
    let last = from;
    for (let count = 0; count < size;) {
      const limit = Math.min(chunk, size - count);
      const events = await read(last, limit);
      const [start, end] = [events[0], events.at(-1)];
      if (start === undefined || end === undefined) break;
      try {
        for (const [i, projection] of projections.entries()) await foldEvents(rows[i] as BatchRows, projection, events);
      } catch {
        return null;
      }
      first ||= start.position;
      last = end.position;
      count += events.length;
      if (events.length < limit) break;
    }
    if (last === from) return { first: from, last, committed: Promise.resolve() };
    try {
      for (const projectionRows of rows) await projectionRows.write();
    } catch {
      return null;
    }
    return {
      first,
      last,
      committed: this.send(
        batch,
        projections.map((projection) => projection.name),
        from,
        last,
      ),
    };
  }

  private send(batch: PipelinedBatch, names: readonly string[], from: number, to: number): Promise<void> {
    const id = ++this.lastBatch;
    for (const [className, rows] of batch.changes()) {
      let known = this.inFlightRows.get(className);
      if (known === undefined) this.inFlightRows.set(className, (known = new Map<string, Known>()));
      for (const [key, row] of rows) known.set(key, { row, batch: id });
    }
    const checkpoints = this.writerOf<CheckpointRow>(CheckpointEntity.meta.className);
    const guards: CheckpointGuard[] = names.map((name) => ({ sql: this.guardSql, params: [checkpoints.boundKey(name)], expected: from }));
    const values: Bindable[] = [];
    checkpoints.boundInto(
      values,
      names.map((name) => ({ name, position: to, failedPosition: null, failedEventType: null, error: null, failedAt: null })),
    );
    const message: WriterMessage = {
      kind: 'batch',
      id,
      guards,
      steps: [...batch.steps, { sql: checkpoints.sql.upsert, width: checkpoints.width, values }],
    };
    if (this.gone !== null) return Promise.reject(new PipelineWriteError(this.gone.message));
    const committed = new Promise<void>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    committed.catch(() => undefined);
    this.worker.postMessage(message);
    return committed;
  }

  private onReply(reply: WriterReply): void {
    if (reply.kind === 'closed') {
      this.onClosed?.();
      return;
    }
    const waiting = this.waiting.get(reply.id);
    this.waiting.delete(reply.id);
    if (reply.kind === 'written') {
      this.forgetUpTo(reply.id);
      waiting?.resolve();
    } else {
      waiting?.reject(new PipelineWriteError(reply.error));
    }
  }

  /** Rows last written by committed batches are in the database now. */
  private forgetUpTo(batch: number): void {
    for (const rows of this.inFlightRows.values()) {
      for (const [key, known] of rows) if (known.batch <= batch) rows.delete(key);
    }
  }

  private failAll(error: Error): void {
    this.gone ??= error;
    for (const waiting of this.waiting.values()) waiting.reject(new PipelineWriteError(error.message));
    this.waiting.clear();
  }

  /** After a failed batch (every batch in flight has settled): forgets what they wrote and lets the writer write again. */
  reset(): void {
    this.inFlightRows.clear();
    this.worker.postMessage({ kind: 'reset' } satisfies WriterMessage);
  }

  /**
   * Ends the writer thread once it has written (or refused) every batch handed to it: their commits
   * settle first, as the thread takes its messages in order.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      const closed = new Promise<void>((resolve) => {
        this.onClosed = resolve;
      });
      this.worker.postMessage({ kind: 'close' } satisfies WriterMessage);
      await Promise.race([closed, this.exited]);
      await this.worker.terminate();
      this.reads.close();
    })();
    return this.closed;
  }
}
