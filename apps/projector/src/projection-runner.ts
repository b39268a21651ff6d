import { type EntityManager, FlushMode, LockMode, type MikroORM } from '@mikro-orm/core';
import type { EventStore, RecordedEvent, Subscription } from '../../../libs/event-store/src/event-store.port.js';
import { CheckpointEntity, READ_MODEL_CHECKPOINT } from '../../../libs/read-model/src/index.js';
import type { Projection } from './projection.js';
import { READ_MODEL_PROJECTIONS } from './projections/index.js';

export const DEFAULT_BATCH_SIZE = 500;

export type RunnerLogEntry = Readonly<{ event: 'start' | 'caught_up' | 'stop' | 'error' | 'retry'; [detail: string]: unknown }>;

export interface ProjectionRunnerOptions {
  readonly store: EventStore;
  readonly orm: MikroORM;
  /** Defaults to every read-model projection. */
  readonly projections?: readonly Projection[];
  /** Max events per transaction (default 500). */
  readonly batchSize?: number;
  /** Checkpoint row name (default READ_MODEL_CHECKPOINT). */
  readonly checkpointName?: string;
  /**
   * After a failed batch, resubscribe from the checkpoint after this delay, doubling up to
   * `maxRetryDelayMs` while failures repeat. null (default): stay stopped; see `failure()`.
   */
  readonly retryDelayMs?: number | null;
  readonly maxRetryDelayMs?: number;
  readonly log?: (entry: RunnerLogEntry) => void;
}

/** Checkpoint (position of the last projected event) stored in the read model; 0 if none. */
export const readCheckpoint = async (em: EntityManager, name: string = READ_MODEL_CHECKPOINT): Promise<number> => {
  const row = await em.fork().findOne(CheckpointEntity, { name });
  return row === null ? 0 : Number(row.position);
};

const handlerTable = (projections: readonly Projection[]): Map<string, Projection[]> => {
  const table = new Map<string, Projection[]>();
  for (const projection of projections) {
    for (const type of projection.canHandle) {
      const list = table.get(type) ?? [];
      if (!list.includes(projection)) list.push(projection);
      table.set(type, list);
    }
  }
  return table;
};

/**
 * Projects one batch atomically: one fork, one transaction holding every projection's changes and
 * the checkpoint (= the batch's last position). The fork runs in FlushMode.COMMIT, so the batch is
 * one unit of work: each row is loaded once however many events touch it, and written once, by the
 * flush just before the checkpoint. Events at or below the stored checkpoint are skipped, so a
 * redelivered batch is a no-op. Returns the checkpoint after the batch.
 */
export const projectBatch = async (
  orm: MikroORM,
  projections: readonly Projection[] | ReadonlyMap<string, readonly Projection[]>,
  events: readonly RecordedEvent[],
  checkpointName: string = READ_MODEL_CHECKPOINT,
): Promise<number> => {
  const handlers = projections instanceof Map ? projections : handlerTable(projections as readonly Projection[]);
  const em = orm.em.fork({ flushMode: FlushMode.COMMIT });
  return em.transactional(
    async (tx) => {
      // FOR UPDATE (PostgreSQL; SQLite transactions are serialised anyway): a second projector
      // racing on the same read model waits here, then skips what this one committed
      const stored = await tx.findOne(CheckpointEntity, { name: checkpointName }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const from = stored === null ? 0 : Number(stored.position);
      let position = from;
      for (const event of events) {
        if (event.position <= position) continue;
        for (const projection of handlers.get(event.type) ?? []) await projection.apply(tx, event);
        position = event.position;
      }
      await tx.flush();
      if (position !== from) {
        if (stored === null) await tx.insert(CheckpointEntity, { name: checkpointName, position });
        else await tx.nativeUpdate(CheckpointEntity, { name: checkpointName }, { position });
      }
      return position;
    },
    { flushMode: FlushMode.COMMIT },
  );
};

interface Waiter {
  readonly position: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const noop = (): void => undefined;

/**
 * Keeps the read model up to date: subscribes to every event (no filter, so that every position moves
 * the checkpoint the API waits on for read-your-writes) from the stored checkpoint and projects each
 * delivered batch with `projectBatch`. A crash at any point loses or doubles nothing: a batch's rows
 * and its checkpoint commit together or not at all.
 */
export class ProjectionRunner {
  private readonly handlers: Map<string, Projection[]>;
  private readonly batchSize: number;
  private readonly checkpointName: string;
  private subscription: Subscription | null = null;
  private inFlight: Promise<unknown> = Promise.resolve();
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelay: number | null;
  private running = false;
  private current = 0;
  private projected = 0;
  private lastError: unknown = undefined;
  private waiters: Waiter[] = [];
  private caughtUpPromise: Promise<void>;

  constructor(private readonly options: ProjectionRunnerOptions) {
    this.handlers = handlerTable(options.projections ?? READ_MODEL_PROJECTIONS);
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.checkpointName = options.checkpointName ?? READ_MODEL_CHECKPOINT;
    this.retryDelay = options.retryDelayMs ?? null;
    this.caughtUpPromise = Promise.reject(new Error('ProjectionRunner not started'));
    this.caughtUpPromise.catch(noop);
  }

  /** Resolves once everything in the store when `start()` ran is projected; rejects if the runner stops first. */
  get caughtUp(): Promise<void> {
    return this.caughtUpPromise;
  }

  /** Checkpoint of the last committed batch. */
  position(): number {
    return this.current;
  }

  /** Events delivered and committed since this runner was created. */
  eventsProjected(): number {
    return this.projected;
  }

  /** The last batch error, until a batch succeeds again (with retries off, the error that stopped the runner). */
  failure(): unknown {
    return this.lastError;
  }

  isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.lastError = undefined;
    try {
      this.current = await readCheckpoint(this.options.orm.em, this.checkpointName);
      const head = await this.options.store.headPosition();
      this.caughtUpPromise = this.waitForPosition(head);
      this.caughtUpPromise.then(() => this.log({ event: 'caught_up', position: this.current }), noop);
      this.subscribe();
      this.log({ event: 'start', from: this.current, head });
    } catch (error) {
      this.running = false;
      throw error;
    }
  }

  /** Stops after the batch in flight (if any) has committed or rolled back. */
  async stop(): Promise<void> {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const wasRunning = this.running;
    this.running = false;
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
    await this.inFlight.catch(noop);
    this.rejectWaiters(new Error('ProjectionRunner stopped'));
    if (wasRunning) this.log({ event: 'stop', position: this.current });
  }

  /** Resolves once the checkpoint reaches `position`; rejects if the runner stops or fails for good first. */
  waitForPosition(position: number): Promise<void> {
    if (this.current >= position) return Promise.resolve();
    const promise = new Promise<void>((resolve, reject) => {
      this.waiters.push({ position, resolve, reject });
    });
    promise.catch(noop);
    if (!this.running) this.rejectWaiters(this.lastError ?? new Error('ProjectionRunner not running'));
    return promise;
  }

  private subscribe(): void {
    this.subscription = this.options.store.subscribeToAll({
      from: this.current,
      batchSize: this.batchSize,
      onEvents: (events) => this.onEvents(events),
      onError: (error) => this.onFailure(error),
    });
  }

  private async onEvents(events: readonly RecordedEvent[]): Promise<void> {
    if (!this.running || events.length === 0) return;
    const batch = projectBatch(this.options.orm, this.handlers, events, this.checkpointName);
    this.inFlight = batch;
    this.current = await batch;
    this.projected += events.length;
    this.retryDelay = this.options.retryDelayMs ?? null;
    this.lastError = undefined;
    const reached = this.waiters.filter((w) => w.position <= this.current);
    this.waiters = this.waiters.filter((w) => w.position > this.current);
    for (const waiter of reached) waiter.resolve();
  }

  private onFailure(error: unknown): void {
    this.lastError = error;
    this.subscription = null;
    const message = error instanceof Error ? error.message : String(error);
    this.log({ event: 'error', position: this.current, error: message });
    if (!this.running) return;
    const delay = this.retryDelay;
    if (delay === null) {
      this.running = false;
      this.rejectWaiters(error);
      this.log({ event: 'stop', position: this.current, reason: 'error' });
      return;
    }
    this.retryDelay = Math.min(delay * 2, this.options.maxRetryDelayMs ?? 30_000);
    this.log({ event: 'retry', position: this.current, inMs: delay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.running) return;
      void readCheckpoint(this.options.orm.em, this.checkpointName)
        .then((position) => {
          if (!this.running) return;
          this.current = position;
          this.subscribe();
        })
        .catch((retryError: unknown) => this.onFailure(retryError));
    }, delay);
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
