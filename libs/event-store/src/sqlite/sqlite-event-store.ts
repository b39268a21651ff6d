import type Database from 'better-sqlite3';
import {
  IdempotencyConflictError,
  WrongExpectedRevisionError,
  type AppendRequest,
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type FoldableEvent,
  type ReadAllOptions,
  type RecordedEvent,
  type StreamAppendResult,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port.js';
import { type RequestedEvent, matchesExpected, requestedEvents, validateRequests } from '../append-rules.js';
import { withBusyRetry } from './busy-retry.js';
import { EventRows, type StoredEventRef } from './event-rows.js';
import { GroupCommit } from './group-commit.js';
import { type SubscriptionSource, Subscriptions } from '../polling-subscription.js';
import { type Synchronous, openDatabase, openReadOnlyDatabase } from './schema.js';

export interface SqliteEventStoreOptions {
  /** Database file, or ':memory:' (single process, tests). */
  readonly file: string;
  readonly clock?: () => Date;
  /** How often idle subscriptions look for commits made by other processes. */
  readonly pollIntervalMs?: number;
  /** How a commit reaches the disk (see schema.ts); NORMAL by default. */
  readonly synchronous?: Synchronous;
}

const DEFAULT_POLL_INTERVAL_MS = 10;

export class SqliteEventStore implements EventStore {
  private readonly rows: EventRows;
  private readonly subscriptions: Subscriptions;
  private readonly appends: GroupCommit<readonly AppendRequest[], AppendResult>;

  private constructor(
    private readonly db: Database.Database,
    private readonly clock: () => Date,
    private readonly pollIntervalMs: number,
  ) {
    this.rows = new EventRows(db);
    this.subscriptions = new Subscriptions(this.subscriptionSource(), pollIntervalMs);
    this.appends = new GroupCommit(db, (requests: readonly AppendRequest[]) => this.appendInTransaction(requests));
  }

  static open(options: SqliteEventStoreOptions): SqliteEventStore {
    return new SqliteEventStore(
      openDatabase(options.file, options.synchronous),
      options.clock ?? (() => new Date()),
      options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    );
  }

  /** The store of another process, for tools: reads and subscriptions work, every append fails (SQLITE_READONLY). */
  static openReadOnly(options: Pick<SqliteEventStoreOptions, 'file' | 'pollIntervalMs'>): SqliteEventStore {
    return new SqliteEventStore(openReadOnlyDatabase(options.file), () => new Date(), options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
  }

  appendToStream(streamId: string, expectedRevision: ExpectedRevision, events: readonly EventData[]): Promise<AppendResult> {
    return this.appendMultiple([{ streamId, expectedRevision, events }]);
  }

  async appendMultiple(requests: readonly AppendRequest[]): Promise<AppendResult> {
    validateRequests(requests);
    const result = await this.appends.submit(requests);
    if (!result.idempotentReplay) this.notifySubscriptions();
    return result;
  }

  async readStream(streamId: string, options?: { readonly fromRevision?: number }): Promise<RecordedEvent[]> {
    return withBusyRetry(() => this.rows.readStream(streamId, options?.fromRevision ?? 0));
  }

  async streamRevision(streamId: string): Promise<number> {
    return withBusyRetry(() => this.rows.streamRevision(streamId));
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return withBusyRetry(() => this.rows.readRange(options.from, Number.MAX_SAFE_INTEGER, options.limit, options.filter));
  }

  async readAllFoldable(options: ReadAllOptions): Promise<FoldableEvent[]> {
    return withBusyRetry(() => this.rows.readFoldableRange(options.from, Number.MAX_SAFE_INTEGER, options.limit, options.filter));
  }

  async headPosition(): Promise<number> {
    return withBusyRetry(() => this.rows.headPosition());
  }

  async positionAt(instant: string): Promise<number> {
    return withBusyRetry(() => this.rows.positionAt(new Date(instant).toISOString()));
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return this.subscriptions.subscribe(options);
  }

  /** Transactions that wrote appends so far: appends made together share one (see GroupCommit). */
  commits(): number {
    return this.appends.commits();
  }

  async close(): Promise<void> {
    await this.appends.drained();
    if (await this.subscriptions.close()) this.db.close();
  }

  /** The rows read with SQLITE_BUSY retried; data_version changes on every other connection's commit. */
  private subscriptionSource(): SubscriptionSource {
    const rows = this.rows;
    return {
      headPosition: () => withBusyRetry(() => rows.headPosition()),
      changeToken: () => withBusyRetry(() => rows.dataVersion()),
      readRange: (from, to, limit, filter) => withBusyRetry(() => rows.readRange(from, to, limit, filter)),
    };
  }

  private notifySubscriptions(): void {
    this.subscriptions.notify();
  }

  /**
   * Runs inside BEGIN IMMEDIATE, in a savepoint of its own: holds the write lock, so checks and writes cannot
   * interleave with other writers, and sees the appends of its group written before it.
   */
  private appendInTransaction(requests: readonly AppendRequest[]): AppendResult {
    const requested = requestedEvents(requests);
    const stored = requested.map((event) => this.rows.eventRef(event.id));
    const alreadyStored = stored.filter((ref): ref is StoredEventRef => ref !== undefined);
    if (requested.length > 0 && alreadyStored.length === requested.length) {
      return this.replayResult(requests, requested, alreadyStored);
    }
    const firstStored = requested.find((_, index) => stored[index] !== undefined);
    if (firstStored) {
      throw new IdempotencyConflictError(firstStored.id, 'some event ids of this append are already stored, others are not');
    }
    const revisions = requests.map((request) => this.checkedRevision(request));
    return this.write(requests, revisions);
  }

  private checkedRevision(request: AppendRequest): number {
    const actual = this.rows.streamRevision(request.streamId);
    if (!matchesExpected(request.expectedRevision, actual)) {
      throw new WrongExpectedRevisionError(request.streamId, request.expectedRevision, actual);
    }
    return actual;
  }

  private replayResult(
    requests: readonly AppendRequest[],
    requested: readonly RequestedEvent[],
    stored: readonly StoredEventRef[],
  ): AppendResult {
    requested.forEach((event, index) => {
      const storedIn = stored[index]?.streamId;
      if (storedIn !== event.streamId) {
        throw new IdempotencyConflictError(event.id, `already stored in stream ${String(storedIn)}, not ${event.streamId}`);
      }
    });
    return {
      streams: requests.map((request) => ({ streamId: request.streamId, nextRevision: this.rows.streamRevision(request.streamId) })),
      position: stored.reduce((max, ref) => Math.max(max, ref.position), 0),
      idempotentReplay: true,
    };
  }

  private write(requests: readonly AppendRequest[], currentRevisions: readonly number[]): AppendResult {
    const recordedAt = this.clock().toISOString();
    let position = 0;
    const streams = requests.map((request, index): StreamAppendResult => {
      let revision = currentRevisions[index] ?? -1;
      for (const event of request.events) {
        revision += 1;
        position = this.rows.insert(request.streamId, revision, event, recordedAt);
      }
      if (request.events.length > 0) this.rows.setStreamRevision(request.streamId, revision);
      return { streamId: request.streamId, nextRevision: revision };
    });
    return { streams, position: position || this.rows.headPosition(), idempotentReplay: false };
  }
}
