/**
 * The one event-store port. Adapters: embedded SQLite (default), PostgreSQL and KurrentDB later.
 * Every adapter must pass the shared contract suite in ./testing/event-store.contract.ts.
 */

/** Who caused an event: the authenticated user and project (null for the service itself). */
export interface Actor {
  readonly userId: string;
  readonly projectId: string;
}

export interface EventMetadata {
  readonly correlationId: string;
  readonly causationId: string;
  readonly actor: Actor | null;
  /** Free-form extras (request id, reason...); never needed to rebuild state. */
  readonly [key: string]: unknown;
}

/** What a writer hands to the store. `id` makes appends idempotent. */
export interface EventData {
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

/** What the store hands back: the event plus where and when it was recorded. */
export interface RecordedEvent<Data = unknown> {
  readonly id: string;
  readonly streamId: string;
  /** 0-based index of the event in its stream. */
  readonly revision: number;
  /** Global, strictly increasing position across all streams (starts at 1). */
  readonly position: number;
  readonly type: string;
  readonly data: Data;
  readonly metadata: EventMetadata;
  /** ISO-8601 UTC, set by the store at append time. */
  readonly recordedAt: string;
}

/**
 * Expected revision of a stream at append time.
 * - 'no_stream': the stream must not exist yet;
 * - 'stream_exists': it must exist, any revision;
 * - 'any': no check;
 * - a number: the stream's last revision must be exactly this (0-based).
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface AppendRequest {
  readonly streamId: string;
  readonly expectedRevision: ExpectedRevision;
  readonly events: readonly EventData[];
}

export interface StreamAppendResult {
  readonly streamId: string;
  /** Revision of the stream's last event after the append. */
  readonly nextRevision: number;
}

export interface AppendResult {
  readonly streams: readonly StreamAppendResult[];
  /** Global position of the last event written (or already present, for an idempotent replay). */
  readonly position: number;
  /** True when every event id was already stored and nothing was written. */
  readonly idempotentReplay: boolean;
}

/** Filters for reading or subscribing to $all. Empty filter = everything. */
export interface EventFilter {
  /** Stream categories: the part of the stream id before the first '-' (e.g. 'lease', 'host'). */
  readonly categories?: readonly string[];
  /** Exact event types. */
  readonly types?: readonly string[];
}

/**
 * An event as a fold needs it: what happened and where in the log, without the event's id, stream and
 * time and the metadata of the request that caused it. Every RecordedEvent is one.
 */
export type FoldableEvent<Data = unknown> = Pick<RecordedEvent<Data>, 'position' | 'type' | 'data'>;

export interface ReadAllOptions {
  /** Exclusive lower bound: events with position > from. 0 = from the beginning. */
  readonly from: number;
  readonly limit?: number;
  readonly filter?: EventFilter;
}

export interface SubscribeOptions {
  /** Exclusive lower bound; 0 = catch up from the beginning. */
  readonly from: number;
  readonly filter?: EventFilter;
  /** Max events handed to onEvents at once. */
  readonly batchSize?: number;
  /** Called in order, one batch at a time; the next batch waits for the returned promise. */
  readonly onEvents: (events: readonly RecordedEvent[]) => Promise<void>;
  /** Called once if the subscription stops on an error thrown by onEvents or by the store. */
  readonly onError?: (error: unknown) => void;
}

export interface Subscription {
  /** Resolves once the subscription has delivered everything that existed when it started. */
  readonly caughtUp: Promise<void>;
  /** Position of the last event delivered (0 before the first). */
  lastPosition(): number;
  stop(): Promise<void>;
}

export interface EventStore {
  /** Append to one stream; throws WrongExpectedRevisionError on a revision mismatch. */
  appendToStream(streamId: string, expectedRevision: ExpectedRevision, events: readonly EventData[]): Promise<AppendResult>;
  /** Append to several streams atomically: all requests succeed or none is written. */
  appendMultiple(requests: readonly AppendRequest[]): Promise<AppendResult>;
  /** Events of one stream in revision order; [] for an unknown stream. */
  readStream(streamId: string, options?: { readonly fromRevision?: number }): Promise<RecordedEvent[]>;
  /** Last revision of a stream, or -1 if it does not exist. */
  streamRevision(streamId: string): Promise<number>;
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * readAll for a reader that folds the log (the projector's catch-up, a rebuild): a store may leave
   * out what such a reader never looks at (an event's id, stream, revision, time and metadata). On
   * SQLite that is two thirds of the text a replay reads; a store may as well return whole RecordedEvents.
   */
  readAllFoldable(options: ReadAllOptions): Promise<FoldableEvent[]>;
  /** Position of the newest event in the store (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * The newest position whose event was recorded at or before `instant` (ISO-8601; 0 when none was):
   * the log as it stood then. Should the clock have stepped back, the later of the instants it read
   * `instant` counts.
   */
  positionAt(instant: string): Promise<number>;
  /** Catch-up-then-live subscription to all events matching the filter. */
  subscribeToAll(options: SubscribeOptions): Subscription;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number,
  ) {
    super(`Wrong expected revision for stream ${streamId}: expected ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** An append re-used event ids in a way that is not a plain replay of an earlier append. */
export class IdempotencyConflictError extends Error {
  constructor(
    readonly eventId: string,
    detail: string,
  ) {
    super(`Event id ${eventId} conflicts with a stored event: ${detail}`);
    this.name = 'IdempotencyConflictError';
  }
}

export const streamCategory = (streamId: string): string => {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash);
};
