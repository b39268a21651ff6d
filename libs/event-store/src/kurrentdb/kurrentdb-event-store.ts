import {
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  START,
  STREAM_NAME,
  StreamNotFoundError,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type ReadPosition,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { validateRequests } from '../append-rules.js';
import type {
  AppendRequest,
  AppendResult,
  EventData,
  EventFilter,
  EventStore,
  ExpectedRevision,
  FoldableEvent,
  ReadAllOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../event-store.port.js';
import { Subscriptions } from '../polling-subscription.js';
import { replayStart, replayVerdict, toPortAppendError } from './kurrentdb-errors.js';
import { fromServerEvent, streamPrefix, toServerEvent, toStreamName, toStreamState } from './kurrentdb-events.js';
import { matchesFilter, serverFilter } from './kurrentdb-filter.js';
import { appendedPosition, toServerPosition } from './kurrentdb-positions.js';
import { assertSupportedServerVersion, serverVersionOf } from './kurrentdb-server-version.js';
import { parseKurrentDbUrl } from './kurrentdb-url.js';

export interface KurrentDbEventStoreOptions {
  /** kurrentdb://host:2113?tls=false (any form the client takes); `&prefix=name` names this deployment's streams. */
  readonly url: string;
  /** Which of the deployment's logs: its streams are `<prefix>.<log>.<stream id>`. */
  readonly log: string;
  readonly clock?: () => Date;
  /** How often an idle subscription looks at the head when the server's live feed said nothing. */
  readonly pollIntervalMs?: number;
}

const DEFAULT_POLL_INTERVAL_MS = 1_000;
const READ_PAGE = 500;

const collect = async <T>(events: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
};

/**
 * The event store on KurrentDB 25.1 or later, kept thin: appends go through multiStreamAppend (one
 * atomic write, whatever the number of streams), reads through readStream and a filtered readAll,
 * positions are commit positions (./kurrentdb-positions.ts). Subscriptions are the shared polling ones
 * over readAll, woken by one filtered subscribeToAll per store, as PostgreSQL's are by NOTIFY: the
 * checkpoint is the consumer's (its last delivered position), so delivery, batching and stopping
 * behave as on the other adapters. Not run against a server on the machines it was built on.
 */
export class KurrentDbEventStore implements EventStore {
  private readonly subscriptions: Subscriptions;
  private liveFeed: AllStreamSubscription | null = null;
  private closed = false;

  private constructor(
    private readonly client: KurrentDBClient,
    private readonly prefix: string,
    private readonly clock: () => Date,
    pollIntervalMs: number,
  ) {
    const source = {
      headPosition: () => this.headPosition(),
      changeToken: () => this.headPosition(),
      readRange: this.readRange.bind(this),
    };
    this.subscriptions = new Subscriptions(source, pollIntervalMs);
  }

  static async open(options: KurrentDbEventStoreOptions): Promise<KurrentDbEventStore> {
    const { connectionString, prefix } = parseKurrentDbUrl(options.url);
    const client = KurrentDBClient.connectionString(connectionString);
    try {
      assertSupportedServerVersion(await serverVersionOf(client));
    } catch (error) {
      await client.dispose();
      throw error;
    }
    const store = new KurrentDbEventStore(
      client,
      streamPrefix(prefix, options.log),
      options.clock ?? (() => new Date()),
      options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    );
    store.startLiveFeed();
    return store;
  }

  appendToStream(streamId: string, expectedRevision: ExpectedRevision, events: readonly EventData[]): Promise<AppendResult> {
    return this.appendMultiple([{ streamId, expectedRevision, events }]);
  }

  async appendMultiple(requests: readonly AppendRequest[]): Promise<AppendResult> {
    validateRequests(requests);
    const recordedAt = this.clock().toISOString();
    try {
      const written = await this.client.multiStreamAppend(
        requests.map((request) => ({
          streamName: this.streamName(request.streamId),
          expectedState: toStreamState(request.expectedRevision),
          events: request.events.map((event) => toServerEvent(event, recordedAt)),
        })),
      );
      const revisions = new Map(written.responses.map((response) => [response.streamName, Number(response.revision)]));
      this.subscriptions.notify();
      return {
        streams: await Promise.all(
          requests.map(async (request) => ({
            streamId: request.streamId,
            nextRevision: revisions.get(this.streamName(request.streamId)) ?? (await this.streamRevision(request.streamId)),
          })),
        ),
        position: appendedPosition(written.position),
        idempotentReplay: false,
      };
    } catch (error) {
      const refused = toPortAppendError(error, requests, (streamId) => this.streamName(streamId));
      if (refused !== error && (await this.isReplay(requests))) return this.replayResult(requests);
      throw refused;
    }
  }

  async readStream(streamId: string, options?: { readonly fromRevision?: number }): Promise<RecordedEvent[]> {
    const resolved = await this.readServerStream(streamId, BigInt(options?.fromRevision ?? 0), Number.MAX_SAFE_INTEGER);
    return resolved.flatMap((resolvedEvent) => (resolvedEvent.event === undefined ? [] : [this.toEvent(resolvedEvent.event)]));
  }

  async streamRevision(streamId: string): Promise<number> {
    const [last] = await this.readServerStream(streamId, END, 1, BACKWARDS);
    return last?.event === undefined ? -1 : Number(last.event.revision);
  }

  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.readRange(options.from, Number.MAX_SAFE_INTEGER, options.limit ?? Number.MAX_SAFE_INTEGER, options.filter);
  }

  /** Whole events: the metadata is a small part of what a read here costs (the round trip, JSON decoding in the driver). */
  readAllFoldable(options: ReadAllOptions): Promise<FoldableEvent[]> {
    return this.readAll(options);
  }

  async headPosition(): Promise<number> {
    for await (const resolved of this.client.readAll({
      fromPosition: END,
      direction: BACKWARDS,
      maxCount: 1,
      filter: serverFilter(this.prefix, undefined),
    })) {
      if (resolved.event !== undefined) return this.toEvent(resolved.event).position;
    }
    return 0;
  }

  /** KurrentDB keeps no index by time: this walks back from the head to the first event stamped at or before the instant. */
  async positionAt(instant: string): Promise<number> {
    const bound = new Date(instant).toISOString();
    for await (const resolved of this.client.readAll({
      fromPosition: END,
      direction: BACKWARDS,
      filter: serverFilter(this.prefix, undefined),
    })) {
      if (resolved.event === undefined) continue;
      const event = this.toEvent(resolved.event);
      if (event.recordedAt <= bound) return event.position;
    }
    return 0;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return this.subscriptions.subscribe(options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.subscriptions.close();
    await this.liveFeed?.unsubscribe().catch(() => undefined);
    await this.client.dispose();
  }

  private streamName(streamId: string): string {
    return toStreamName(this.prefix, streamId);
  }

  private toEvent(event: NonNullable<ResolvedEvent['event']>): RecordedEvent {
    return fromServerEvent(this.prefix, event);
  }

  private async readServerStream(
    streamId: string,
    fromRevision: bigint | typeof END,
    maxCount: number,
    direction: typeof FORWARDS | typeof BACKWARDS = FORWARDS,
  ): Promise<ResolvedEvent[]> {
    try {
      return await collect(this.client.readStream(this.streamName(streamId), { fromRevision, maxCount, direction }));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }

  /**
   * Events with from < position <= to, in pages of the server's filtered $all. A page starts at the
   * last event seen, which the server includes and this skips: a start must be an event's position.
   */
  private async readRange(from: number, to: number, limit: number, filter: EventFilter | undefined): Promise<RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    let after = from;
    for (;;) {
      const start: ReadPosition = after === 0 ? START : toServerPosition(after);
      let read = 0;
      for await (const resolved of this.client.readAll({
        fromPosition: start,
        maxCount: READ_PAGE,
        filter: serverFilter(this.prefix, filter),
      }) as AsyncIterable<AllStreamResolvedEvent>) {
        read += 1;
        if (resolved.event === undefined) continue;
        const event = this.toEvent(resolved.event);
        if (event.position <= after) continue;
        if (event.position > to) return found;
        after = event.position;
        if (matchesFilter(event, filter)) found.push(event);
        if (found.length >= limit) return found;
      }
      if (read < READ_PAGE) return found;
    }
  }

  private async isReplay(requests: readonly AppendRequest[]): Promise<boolean> {
    const stored = await Promise.all(
      requests.map(async (request) => {
        const start = replayStart(request);
        if (start === null || request.events.length === 0) return null;
        const events = await this.readServerStream(request.streamId, BigInt(start), request.events.length);
        return events.map((event) => (event.event === undefined ? '' : this.toEvent(event.event).id));
      }),
    );
    return replayVerdict(requests, stored) === 'replay';
  }

  /** The replayed events' own position, as the original append reported it: its last event's. */
  private async replayResult(requests: readonly AppendRequest[]): Promise<AppendResult> {
    let position = 0;
    const streams = [];
    for (const request of requests) {
      const start = replayStart(request) ?? 0;
      const events = request.events.length === 0 ? [] : await this.readStream(request.streamId, { fromRevision: start });
      const replayed = events.slice(0, request.events.length);
      position = Math.max(position, ...replayed.map((event) => event.position));
      streams.push({ streamId: request.streamId, nextRevision: await this.streamRevision(request.streamId) });
    }
    return { streams, position, idempotentReplay: true };
  }

  /** Any event of ours, seen live, wakes the polling subscriptions; if the feed fails, their polling still finds it. */
  private startLiveFeed(): void {
    const feed = this.client.subscribeToAll({
      fromPosition: END,
      filter: { filterOn: STREAM_NAME, prefixes: [this.prefix], checkpointInterval: 1 },
    });
    feed.on('data', () => this.subscriptions.notify());
    feed.on('error', () => undefined);
    this.liveFeed = feed;
  }
}
