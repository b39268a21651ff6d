import type { MikroORM } from '@mikro-orm/core';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EventStore, FoldableEvent, Subscription } from '#event-store/event-store.port.js';
import type { Projection } from './projection.js';
import {
  type ProjectionFault,
  type ProjectionOutcome,
  markHistoryStart,
  migrateLegacyCheckpoint,
  projectBatch,
  readCheckpoints,
} from './projection-batch.js';
import { describeError } from '#domain/index.js';
import { READ_MODEL_PROJECTIONS } from './projections/index.js';
import { type FoldedBatch, PIPELINE_DEPTH, SqlitePipeline } from './sqlite-pipeline.js';

export const DEFAULT_BATCH_SIZE = 500;
/**
 * Events per transaction while the runner is far behind (a start or a resubscription with a backlog):
 * a big batch spreads each transaction's fixed cost (checkpoints, savepoints, a statement per table,
 * the commit's page writes) over more events, and a row changed by several of them (a lease through
 * its life) is written once. Into the live tables (their secondary indexes, the history tables'
 * random keys) the writer thread is what limits a catch-up, and 50,000 a batch took a catch-up from
 * 0 of a million events from 33.7-35.7 s to 27-28.6 s, for 720 MB of peak RSS instead of 510. A
 * rebuild, limited by the main thread, gained nothing from it and keeps 20,000 (REBUILD_BATCH_SIZE).
 */
export const DEFAULT_CATCH_UP_BATCH_SIZE = 50_000;
/** SQLite page cache of the projector's read-model connection. */
export const PROJECTOR_CACHE_MIB = 64;
const RETRY_WINDOW = 5_000;

export type RunnerLogEntry = Readonly<{
  event: 'start' | 'caught_up' | 'stop' | 'error' | 'retry' | 'recovered';
  [detail: string]: unknown;
}>;

export interface ProjectionRunnerOptions {
  readonly store: EventStore;
  readonly orm: MikroORM;
  /** Defaults to every read-model projection. */
  readonly projections?: readonly Projection[];
  /** Max events per transaction once caught up (default 500). */
  readonly batchSize?: number;
  /** Max events per transaction while catching up a backlog (default DEFAULT_CATCH_UP_BATCH_SIZE, at least batchSize). */
  readonly catchUpBatchSize?: number;
  /**
   * A projection that cannot project an event tries again after this delay, doubling up to
   * `maxRetryDelayMs` while it keeps failing. null (default): it stays where it stopped; see `status()`.
   */
  readonly retryDelayMs?: number | null;
  /**
   * A catch-up of at least `catchUpBatchSize` events on a SQLite read model in a file folds on this
   * thread and writes on a second one (SqlitePipeline; default true).
   */
  readonly writerThread?: boolean;
  /** Events read and folded at a time within a batch for the writer thread (default FOLD_CHUNK). */
  readonly foldChunkSize?: number;
  readonly maxRetryDelayMs?: number;
  readonly log?: (entry: RunnerLogEntry) => void;
  readonly clock?: () => Date;
  /** Milliseconds on a clock that never steps (default performance.now): retry delays are measured on it. */
  readonly monotonic?: () => number;
}

/** Where one projection stands, as /readyz and the stale marker tell it. */
export interface ProjectionStatus {
  readonly name: string;
  readonly position: number;
  readonly failure: {
    readonly position: number;
    readonly eventType: string;
    readonly error: string;
    readonly since: string;
    readonly attempts: number;
    /** ISO-8601 UTC of the next try, or null when retries are off. */
    readonly retryAt: string | null;
  } | null;
}

interface Lane {
  readonly projection: Projection;
  position: number;
  fault: ProjectionFault | null;
  since: string | null;
  attempts: number;
  retryDelay: number | null;
  /** On the monotonic clock: a wall-clock step back must not hold a retry back by the size of the step. */
  retryAt: number | null;
}

interface Waiter {
  readonly position: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const noop = (): void => undefined;

/** LEASEHOLD_PROJECTOR_WRITER_THREAD: on unless `off` (or `0`, `false`, `no`). */
export const writerThreadFromEnv = (value: string | undefined): boolean =>
  !['off', '0', 'false', 'no'].includes((value ?? '').trim().toLowerCase());

/** A read model that has seen more than the log holds was built from another log: it cannot be trusted, only rebuilt. */
const beyondTheLog = (position: number, head: number): ProjectionFault => ({
  position,
  eventType: 'none',
  error: new Error(
    `the read model's checkpoint ${position} is beyond the log's head ${head}: it was built from another log; rebuild it (npm run rebuild-read-models)`,
  ),
});

/**
 * Keeps the read models up to date from the log. One subscription to every event feeds every
 * projection; each projection has its own checkpoint (committed with its rows), so one that cannot
 * project an event stops right before it, records why, retries with backoff and catches up on its
 * own from the log, while the others go on. A crash at any point loses or doubles nothing.
 */
export class ProjectionRunner {
  private readonly lanes: Lane[];
  private readonly batchSize: number;
  private readonly catchUpBatchSize: number;
  private readonly clock: () => Date;
  private readonly monotonic: () => number;
  private subscription: Subscription | null = null;
  private work: Promise<void> = Promise.resolve();
  private retryTimer: NodeJS.Timeout | null = null;
  private resubscribeTimer: NodeJS.Timeout | null = null;
  private running = false;
  private delivered = 0;
  private startPosition = 0;
  private writerThreadBatches = 0;
  private waiters: Waiter[] = [];
  private caughtUpPromise: Promise<void>;

  constructor(private readonly options: ProjectionRunnerOptions) {
    this.lanes = (options.projections ?? READ_MODEL_PROJECTIONS).map((projection) => ({
      projection,
      position: 0,
      fault: null,
      since: null,
      attempts: 0,
      retryDelay: options.retryDelayMs ?? null,
      retryAt: null,
    }));
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.catchUpBatchSize = Math.max(this.batchSize, options.catchUpBatchSize ?? DEFAULT_CATCH_UP_BATCH_SIZE);
    this.clock = options.clock ?? (() => new Date());
    this.monotonic = options.monotonic ?? (() => performance.now());
    this.caughtUpPromise = Promise.reject(new Error('ProjectionRunner not started'));
    this.caughtUpPromise.catch(noop);
  }

  /**
   * Resolves once everything in the store when `start()` ran is projected; rejects if the runner stops or a projection fails for good
   * first.
   */
  get caughtUp(): Promise<void> {
    return this.caughtUpPromise;
  }

  /** The lowest checkpoint: every projection has projected at least this far. */
  position(): number {
    return Math.min(...this.lanes.map((lane) => lane.position));
  }

  /** Positions every projection has passed since `start()`. */
  eventsProjected(): number {
    return this.position() - this.startPosition;
  }

  /** Batches of a catch-up that were written by the writer thread (see SqlitePipeline) since `start()`. */
  batchesByWriterThread(): number {
    return this.writerThreadBatches;
  }

  /** The error of the first projection that is stopped on an event, until it gets past it. */
  failure(): unknown {
    return this.lanes.find((lane) => lane.fault !== null)?.fault?.error;
  }

  status(): ProjectionStatus[] {
    return this.lanes.map((lane) => ({
      name: lane.projection.name,
      position: lane.position,
      failure:
        lane.fault === null
          ? null
          : {
              position: lane.fault.position,
              eventType: lane.fault.eventType,
              error: describeError(lane.fault.error),
              since: lane.since ?? '',
              attempts: lane.attempts,
              retryAt: lane.retryAt === null ? null : new Date(this.clock().getTime() + lane.retryAt - this.monotonic()).toISOString(),
            },
    }));
  }

  isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    if (this.running) return;
    const names = this.lanes.map((lane) => lane.projection.name);
    await migrateLegacyCheckpoint(this.options.orm, names);
    await markHistoryStart(this.options.orm, names);
    const checkpoints = await readCheckpoints(this.options.orm.em, names);
    for (const lane of this.lanes) lane.position = checkpoints.get(lane.projection.name) ?? 0;
    this.startPosition = this.position();
    this.delivered = this.startPosition;
    const head = await this.options.store.headPosition();
    for (const lane of this.lanes.filter((l) => l.position > head)) {
      Object.assign(lane, { fault: beyondTheLog(lane.position, head), since: this.clock().toISOString(), attempts: 1, retryAt: null });
      this.log({ event: 'error', projection: lane.projection.name, position: lane.position, error: describeError(lane.fault?.error) });
    }
    this.running = true;
    this.caughtUpPromise = this.waitForPosition(head);
    this.caughtUpPromise.then(() => this.log({ event: 'caught_up', position: this.position() }), noop);
    this.log({ event: 'start', from: this.startPosition, head });
    this.resume();
  }

  /** Stops after the batch in flight (if any) has committed or rolled back. */
  async stop(): Promise<void> {
    for (const timer of [this.retryTimer, this.resubscribeTimer]) if (timer !== null) clearTimeout(timer);
    this.retryTimer = null;
    this.resubscribeTimer = null;
    const wasRunning = this.running;
    this.running = false;
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
    await this.work.catch(noop);
    this.rejectWaiters(new Error('ProjectionRunner stopped'));
    if (wasRunning) this.log({ event: 'stop', position: this.position() });
  }

  /** Resolves once every projection has reached `position`; rejects if the runner stops, or a projection fails for good, first. */
  waitForPosition(position: number): Promise<void> {
    if (this.position() >= position) return Promise.resolve();
    const promise = new Promise<void>((resolve, reject) => {
      this.waiters.push({ position, resolve, reject });
    });
    promise.catch(noop);
    if (!this.running) this.rejectWaiters(this.failure() ?? new Error('ProjectionRunner not running'));
    return promise;
  }

  /** Reads the backlog up to the head in big batches, then follows the log with the subscription. */
  private resume(): void {
    void this.serialised(async () => {
      try {
        await this.fastForward();
      } catch (error) {
        // the subscription reads the rest (and retries a failing read itself)
        this.log({ event: 'error', phase: 'catch-up', position: this.delivered, error: describeError(error) });
      }
    }).then(() => {
      if (this.running && this.subscription === null) this.subscribe();
    });
  }

  /**
   * A backlog of at least a batch on a SQLite read model is folded on this thread and written on
   * another (SqlitePipeline), a batch folded while the one before it is written.
   */
  private async fastForward(): Promise<void> {
    const head = await this.options.store.headPosition();
    const pipelined = this.options.writerThread !== false && head - this.delivered >= this.catchUpBatchSize;
    const pipeline = pipelined ? await this.openPipeline() : null;
    const inFlight: Promise<boolean>[] = [];
    let pipelining = pipeline !== null;
    try {
      while (this.running) {
        const behind = this.delivered < head;
        if (behind && pipeline !== null && pipelining && this.pipelinable(inFlight.length > 0)) {
          const from = this.delivered;
          const folded = await pipeline.fold(
            this.lanes.map((lane) => lane.projection),
            from,
            this.readChunk,
            this.catchUpBatchSize,
            this.options.foldChunkSize,
          );
          if (folded !== null && folded.last > from) {
            inFlight.push(this.whenCommitted(folded));
            this.delivered = folded.last;
            if (inFlight.length >= PIPELINE_DEPTH && !(await inFlight.shift()))
              pipelining = await this.afterPipelineFailure(pipeline, inFlight);
            continue;
          }
        }
        // not pipelined (or a projection could not fold the batch): in a transaction of its own, once the batches in flight are in
        const events = behind ? await this.nextBatch() : [];
        if (events.length === 0) {
          // done only once every batch in flight is in: one that was not written is read again from the checkpoints
          if ((await this.settled(inFlight)) || pipeline === null) return;
          pipelining = await this.afterPipelineFailure(pipeline, inFlight);
          continue;
        }
        if (await this.settled(inFlight)) await this.project(events);
        else if (pipeline !== null) pipelining = await this.afterPipelineFailure(pipeline, inFlight);
      }
    } finally {
      await this.settled(inFlight);
      await pipeline?.close();
    }
  }

  private async nextBatch(): Promise<readonly FoldableEvent[]> {
    return this.readChunk(this.delivered, this.catchUpBatchSize);
  }

  /**
   * A read and a batch on SQLite settle without the event loop: timers (progress) and signals (SIGTERM) get their turn before each read.
   */
  private readonly readChunk = async (after: number, limit: number): Promise<readonly FoldableEvent[]> => {
    await yieldToEventLoop();
    return this.options.store.readAllFoldable({ from: after, limit });
  };

  /** The writer thread, or null (another database, or it could not start: the catch-up then runs on this thread alone). */
  private async openPipeline(): Promise<SqlitePipeline | null> {
    try {
      return await SqlitePipeline.open(this.options.orm);
    } catch (error) {
      this.log({ event: 'error', phase: 'writer-thread', error: describeError(error) });
      return null;
    }
  }

  /** Every lane is healthy and where the next batch starts (or, with batches in flight, they all fold from the same place). */
  private pipelinable(pending: boolean): boolean {
    return this.lanes.every((lane) => lane.fault === null && (pending || lane.position === this.delivered));
  }

  /**
   * Once the writer has committed the batch, every lane is past it; false: nothing of it was written. Holds the batch's positions, not its
   * events.
   */
  private async whenCommitted({ committed, first, last }: FoldedBatch): Promise<boolean> {
    try {
      await committed;
    } catch (error) {
      this.log({ event: 'error', phase: 'catch-up', position: first, error: describeError(error) });
      return false;
    }
    this.writerThreadBatches++;
    for (const lane of this.lanes) this.record(lane, { position: last, fault: null });
    this.settle();
    return true;
  }

  /** Waits for the batches in flight; false if one of them was not written. */
  private async settled(inFlight: Promise<boolean>[]): Promise<boolean> {
    const results = await Promise.all(inFlight.splice(0));
    return results.every(Boolean);
  }

  /**
   * A batch was not written (nor any after it): the lanes stand at their last commits; the log is read
   * again from there, a batch at a time in a transaction of its own, which names the event and
   * projection at fault if there is one.
   */
  private async afterPipelineFailure(pipeline: SqlitePipeline, inFlight: Promise<boolean>[]): Promise<boolean> {
    await this.settled(inFlight);
    pipeline.reset();
    const checkpoints = await readCheckpoints(
      this.options.orm.em,
      this.lanes.map((lane) => lane.projection.name),
    );
    for (const lane of this.lanes) lane.position = checkpoints.get(lane.projection.name) ?? lane.position;
    this.delivered = this.position();
    return false;
  }

  private subscribe(): void {
    this.subscription = this.options.store.subscribeToAll({
      from: this.delivered,
      batchSize: this.batchSize,
      onEvents: (events) => this.serialised(() => this.project(events)),
      onError: (error) => this.onSubscriptionError(error),
    });
  }

  /** Batches, catch-ups and retries run one at a time, in order. */
  private serialised(step: () => Promise<void>): Promise<void> {
    const next = this.work.then(step);
    this.work = next.catch(noop);
    return next;
  }

  private async project(events: readonly FoldableEvent[]): Promise<void> {
    const first = events[0];
    if (!this.running || first === undefined) return;
    const due = this.lanes.filter((lane) => this.isDue(lane));
    for (const lane of due.filter((l) => l.position < first.position - 1)) await this.catchUp(lane, first.position - 1);
    const contiguous = due.filter((lane) => lane.position >= first.position - 1 && this.isDue(lane));
    await this.projectInto(contiguous, events);
    this.delivered = Math.max(this.delivered, events.at(-1)?.position ?? first.position);
    // a checkpoint found behind the batch (moved back by a rebuild's swap) catches up from the log
    for (const lane of contiguous) if (lane.fault === null && lane.position < this.delivered) await this.catchUp(lane, this.delivered);
    this.settle();
  }

  private isDue(lane: Lane): boolean {
    return lane.fault === null || (lane.retryAt !== null && lane.retryAt <= this.monotonic());
  }

  /**
   * Reads the log from the lane's checkpoint up to `target` and projects it for that lane alone. A
   * retry takes the stuck event with up to RETRY_WINDOW events after it into one unit of work, so a
   * correction recorded since (renaming the lease, say) replaces a value the read model could not
   * store before anything is written.
   */
  private async catchUp(lane: Lane, target: number): Promise<void> {
    while (this.running && lane.position < target && this.isDue(lane)) {
      const limit = lane.fault === null ? this.catchUpBatchSize : RETRY_WINDOW;
      const events = (await this.options.store.readAllFoldable({ from: lane.position, limit })).filter((e) => e.position <= target);
      if (events.length === 0) return;
      await this.projectInto([lane], events);
    }
  }

  private async projectInto(lanes: readonly Lane[], events: readonly FoldableEvent[]): Promise<void> {
    if (lanes.length === 0) return;
    let outcomes: Map<string, ProjectionOutcome>;
    try {
      outcomes = await projectBatch(
        this.options.orm,
        lanes.map((lane) => lane.projection),
        events,
        () => this.clock().toISOString(),
      );
    } catch (error) {
      // the batch transaction itself failed (storage unavailable, say): nothing of it was kept
      outcomes = new Map(
        lanes.map((lane) => [lane.projection.name, { position: lane.position, fault: this.faultAfter(lane, events, error) }]),
      );
    }
    for (const lane of lanes) {
      const outcome = outcomes.get(lane.projection.name);
      if (outcome !== undefined) this.record(lane, outcome);
    }
  }

  private faultAfter(lane: Lane, events: readonly FoldableEvent[], error: unknown): ProjectionFault {
    const next = events.find((event) => event.position > lane.position);
    return { position: next?.position ?? lane.position + 1, eventType: next?.type ?? 'unknown', error };
  }

  private record(lane: Lane, outcome: ProjectionOutcome): void {
    lane.position = outcome.position;
    const { fault } = outcome;
    if (fault === null) {
      if (lane.fault !== null)
        this.log({ event: 'recovered', projection: lane.projection.name, position: lane.position, attempts: lane.attempts });
      Object.assign(lane, { fault: null, since: null, attempts: 0, retryAt: null, retryDelay: this.options.retryDelayMs ?? null });
      return;
    }
    const samePlace = lane.fault?.position === fault.position;
    lane.since = samePlace ? lane.since : this.clock().toISOString();
    lane.attempts = samePlace ? lane.attempts + 1 : 1;
    lane.fault = fault;
    const name = lane.projection.name;
    this.log({
      event: 'error',
      projection: name,
      position: lane.position,
      failedPosition: fault.position,
      eventType: fault.eventType,
      error: describeError(fault.error),
    });
    const delay = lane.retryDelay;
    if (delay === null) {
      lane.retryAt = null;
      this.log({ event: 'stop', projection: name, position: lane.position, reason: 'error' });
      return;
    }
    lane.retryAt = this.monotonic() + delay;
    lane.retryDelay = Math.min(delay * 2, this.options.maxRetryDelayMs ?? 30_000);
    this.log({ event: 'retry', projection: name, position: lane.position, inMs: delay });
  }

  /** Resolves the waiters that are reached, rejects those a stopped projection will never reach, and schedules retries. */
  private settle(): void {
    const position = this.position();
    const stuck = this.lanes.find((lane) => lane.fault !== null && lane.retryAt === null);
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) {
      if (waiter.position <= position) waiter.resolve();
      else if (stuck !== undefined && waiter.position > stuck.position) waiter.reject(stuck.fault?.error);
      else this.waiters.push(waiter);
    }
    this.scheduleRetry();
  }

  /** Without new events, a failed projection still gets its retry. */
  private scheduleRetry(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const next = Math.min(...this.lanes.map((lane) => (lane.fault !== null && lane.retryAt !== null ? lane.retryAt : Infinity)));
    if (!this.running || next === Infinity) return;
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = null;
        void this.serialised(() => this.retryDue());
      },
      Math.max(0, next - this.monotonic()),
    );
  }

  private async retryDue(): Promise<void> {
    for (const lane of this.lanes) {
      if (lane.fault === null || !this.isDue(lane)) continue;
      await this.catchUp(lane, this.delivered);
      // nothing to retry with (the lane is not behind): try again later rather than at once
      if (lane.fault !== null && this.isDue(lane)) this.record(lane, { position: lane.position, fault: lane.fault });
    }
    this.settle();
  }

  /** The store could not deliver (a read failed): resume after a pause from what was delivered. */
  private onSubscriptionError(error: unknown): void {
    this.subscription = null;
    this.log({ event: 'error', phase: 'subscription', position: this.delivered, error: describeError(error) });
    if (!this.running) return;
    this.resubscribeTimer = setTimeout(() => {
      this.resubscribeTimer = null;
      if (this.running) this.resume();
    }, this.options.retryDelayMs ?? 1_000);
  }

  private rejectWaiters(error: unknown): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(error);
  }

  private log(entry: RunnerLogEntry): void {
    this.options.log?.(entry);
  }
}
