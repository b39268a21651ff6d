import pg from 'pg';
import { type RequestedEvent, matchesExpected, requestedEvents, validateRequests } from '../append-rules.js';
import {
  IdempotencyConflictError,
  WrongExpectedRevisionError,
  type AppendRequest,
  type AppendResult,
  type EventData,
  type EventFilter,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type FoldableEvent,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  streamCategory,
} from '../event-store.port.js';
import { EVENT_COLUMNS, type EventRow, recordedEvent } from '../event-rows.js';
import { storedVersionOf } from '../event-versions.js';
import { Subscriptions } from '../polling-subscription.js';
import { decodeStoredText as decode, encodeStoredText as encode } from '../stored-text.js';
import { EXPECTED_ANY, EXPECTED_STREAM_EXISTS, assertSchemaName, ensureSchema, keyOf } from './postgresql-schema.js';
import { NotificationListener } from './notification-listener.js';

export interface PostgresEventStoreOptions {
  /** postgres://user:password@host:port/database; `?schema=name` picks the schema (default `leasehold`). */
  readonly url: string;
  readonly clock?: () => Date;
  /** How often an idle subscription looks at the head when no notification came (the fallback). */
  readonly pollIntervalMs?: number;
  readonly poolSize?: number;
}

const DEFAULT_SCHEMA = 'leasehold';
const DEFAULT_POLL_INTERVAL_MS = 500;
const DEFAULT_POOL_SIZE = 10;

/** What append_events returns (postgresql-schema.ts); the arrays are null when empty. */
interface AppendRow {
  readonly written: boolean;
  readonly head: string;
  readonly revisions: number[] | null;
  readonly stored_ids: string[] | null;
  readonly stored_streams: string[] | null;
  readonly stored_positions: string[] | null;
}

interface StoredEvent {
  readonly event_id: string;
  readonly stream_id: string;
  readonly position: string;
}

interface AppendFound {
  readonly written: boolean;
  readonly head: number;
  /** Each stream's revision before the append (-1: no stream). */
  readonly revisions: ReadonlyMap<string, number>;
  readonly stored: readonly StoredEvent[];
}

const expectedCode = (expected: ExpectedRevision): number => {
  switch (expected) {
    case 'any':
      return EXPECTED_ANY;
    case 'stream_exists':
      return EXPECTED_STREAM_EXISTS;
    case 'no_stream':
      return -1;
    default:
      return expected;
  }
};

/** The connection string without our own `schema` parameter, and that schema. */
const parseUrl = (url: string): { readonly connectionString: string; readonly schema: string } => {
  const parsed = new URL(url);
  const schema = assertSchemaName(parsed.searchParams.get('schema') ?? DEFAULT_SCHEMA);
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
};

/**
 * The events from < position <= to matching the filter, ascending, at most `limit` (null: all); an
 * empty list means "no constraint", like an absent one. A filter is read as one run of the
 * (type, position) index per type, or of the (category, position) index per category when it names
 * no type (the categories then checked on each event of a type's run), each run in position order
 * and cut at the limit, merged (Merge Append) and cut again: a page costs about a page whichever
 * values are named. Each value is its own parameter, so the statement (unnamed: planned at each
 * call with its values) sees its key as a constant and the column's statistics: given the key list
 * as an array, the planner could not tell a rare value from a common one, and read a rare category
 * by scanning the whole table (0.2 s a read at a million events, even with nothing to return).
 */
const rangeQuery = (
  schema: string,
  from: number,
  to: number,
  limit: number | undefined,
  filter: EventFilter | undefined,
): pg.QueryArrayConfig => {
  const categories = [...new Set((filter?.categories ?? []).map(encode))];
  const types = [...new Set((filter?.types ?? []).map(encode))];
  const bounds = [from, to, limit ?? null];
  if (categories.length === 0 && types.length === 0) {
    return {
      text: `SELECT ${EVENT_COLUMNS} FROM ${schema}.events WHERE position > $1 AND position <= $2 ORDER BY position LIMIT $3`,
      values: bounds,
      rowMode: 'array',
    };
  }
  const [column, values, also] = types.length > 0 ? (['type', types, categories] as const) : (['category', categories, []] as const);
  const alsoSql = also.length > 0 ? ' AND category = ANY($4::text[])' : '';
  const first = also.length > 0 ? 5 : 4;
  const runs = values.map(
    (_, i) =>
      `(SELECT ${EVENT_COLUMNS} FROM ${schema}.events WHERE ${column}_key = ${keyOf(schema, `$${first + i}::text`)} AND ${column} = $${first + i} AND position > $1 AND position <= $2${alsoSql} ORDER BY position LIMIT $3)`,
  );
  return {
    text: `SELECT ${EVENT_COLUMNS} FROM (${runs.join(' UNION ALL ')}) AS runs ORDER BY position LIMIT $3`,
    values: [...bounds, ...(also.length > 0 ? [also] : []), ...values],
    rowMode: 'array',
  };
};

/**
 * The event store on PostgreSQL, for deployments of several processes. Appends take one
 * transaction-scoped advisory lock per store: positions are allocated as the head plus one while it
 * is held, so they are gap-free and become visible in position order (the lock is released only
 * after the commit is visible). A reader that read up to the head can never later find a smaller
 * position committing (the trap of sequences, whose numbers are taken in call order and committed in
 * another). An append is one call of append_events, which takes that lock, checks and writes on the
 * server: the lock is held for the server's work, never across a client's round trips, and a writer
 * pays one round trip per append. Live subscriptions are woken by LISTEN/NOTIFY and poll the head as
 * a fallback.
 */
export class PostgresEventStore implements EventStore {
  private readonly subscriptions: Subscriptions;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly listener: NotificationListener,
    private readonly clock: () => Date,
    pollIntervalMs: number,
  ) {
    // the head is the change token: any commit, of any process, moves it
    const source = {
      headPosition: () => this.headPosition(),
      changeToken: () => this.headPosition(),
      readRange: this.readRange.bind(this),
    };
    this.subscriptions = new Subscriptions(source, pollIntervalMs);
  }

  static async open(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    const { connectionString, schema } = parseUrl(options.url);
    const pool = new pg.Pool({ connectionString, max: options.poolSize ?? DEFAULT_POOL_SIZE });
    // an idle client losing its connection must not take the process down: the next query reconnects
    pool.on('error', () => undefined);
    try {
      await ensureSchema(pool, schema);
    } catch (error) {
      await pool.end();
      throw error;
    }
    const listener = new NotificationListener(connectionString, `leasehold_events_${schema}`);
    const store = new PostgresEventStore(
      pool,
      schema,
      listener,
      options.clock ?? (() => new Date()),
      options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    );
    listener.start(() => store.notifySubscriptions());
    return store;
  }

  appendToStream(streamId: string, expectedRevision: ExpectedRevision, events: readonly EventData[]): Promise<AppendResult> {
    return this.appendMultiple([{ streamId, expectedRevision, events }]);
  }

  async appendMultiple(requests: readonly AppendRequest[]): Promise<AppendResult> {
    validateRequests(requests);
    const found = await this.appendOnServer(requests);
    const result = this.appendResult(requests, found);
    if (!result.idempotentReplay) this.notifySubscriptions();
    return result;
  }

  async readStream(streamId: string, options?: { readonly fromRevision?: number }): Promise<RecordedEvent[]> {
    const { rows } = await this.pool.query<EventRow>({
      // prepared once per connection (every decision on a stream reads it): one index range whatever the stream
      name: `leasehold-read-stream-${this.schema}`,
      text: `SELECT ${EVENT_COLUMNS} FROM ${this.schema}.events WHERE stream_key = ${keyOf(this.schema, '$1::text')} AND stream_id = $1 AND revision >= $2 ORDER BY revision`,
      values: [encode(streamId), options?.fromRevision ?? 0],
      rowMode: 'array',
    });
    return rows.map(recordedEvent);
  }

  async streamRevision(streamId: string): Promise<number> {
    const { rows } = await this.pool.query<{ revision: number }>(
      `SELECT revision FROM ${this.schema}.streams WHERE stream_key = ${keyOf(this.schema, '$1::text')} AND stream_id = $1`,
      [encode(streamId)],
    );
    return rows[0]?.revision ?? -1;
  }

  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.readRange(options.from, Number.MAX_SAFE_INTEGER, options.limit, options.filter);
  }

  /** Whole events: the metadata is a small part of what a read here costs (the round trip, JSON decoding in the driver). */
  readAllFoldable(options: ReadAllOptions): Promise<FoldableEvent[]> {
    return this.readAll(options);
  }

  async headPosition(): Promise<number> {
    const { rows } = await this.pool.query<{ head: string }>(`SELECT COALESCE(MAX(position), 0) AS head FROM ${this.schema}.events`);
    return Number(rows[0]?.head ?? 0);
  }

  /** recordedAt and the bound are both `toISOString()` text, whose order is the instants' order. */
  async positionAt(instant: string): Promise<number> {
    const { rows } = await this.pool.query<{ position: string }>(
      `SELECT COALESCE(MAX(position), 0) AS position FROM ${this.schema}.events WHERE recorded_at <= $1`,
      [new Date(instant).toISOString()],
    );
    return Number(rows[0]?.position ?? 0);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return this.subscriptions.subscribe(options);
  }

  async close(): Promise<void> {
    if (!(await this.subscriptions.close())) return;
    await this.listener.stop();
    await this.pool.end();
  }

  private notifySubscriptions(): void {
    this.subscriptions.notify();
  }

  private async readRange(from: number, to: number, limit: number | undefined, filter: EventFilter | undefined): Promise<RecordedEvent[]> {
    const { rows } = await this.pool.query<EventRow>(rangeQuery(this.schema, from, to, limit, filter));
    return rows.map(recordedEvent);
  }

  /** One call of append_events (postgresql-schema.ts): the checks and the write in one round trip, under the store's lock. */
  private async appendOnServer(requests: readonly AppendRequest[]): Promise<AppendFound> {
    const events = requests.flatMap((request, i) => request.events.map((event) => ({ event, request: i + 1 })));
    const { rows } = await this.pool.query<AppendRow>({
      // prepared once per connection: the call is parsed and planned once, not at every append
      name: `leasehold-append-${this.schema}`,
      text: `SELECT * FROM ${this.schema}.append_events($1, $2, $3::text[], $4::text[], $5::int8[], $6::text[], $7::int4[], $8::text[], $9::int4[], $10::text[], $11::text[], $12)`,
      values: [
        `leasehold-append:${this.schema}`,
        this.listener.channel,
        requests.map((request) => encode(request.streamId)),
        requests.map((request) => encode(streamCategory(request.streamId))),
        requests.map((request) => expectedCode(request.expectedRevision)),
        events.map(({ event }) => encode(event.id)),
        events.map(({ request }) => request),
        events.map(({ event }) => encode(event.type)),
        events.map(({ event }) => storedVersionOf(event.type)),
        events.map(({ event }) => JSON.stringify(event.data ?? null)),
        events.map(({ event }) => JSON.stringify(event.metadata)),
        this.clock().toISOString(),
      ],
    });
    const row = rows[0] as AppendRow;
    const revisions = row.revisions ?? [];
    const stored = (row.stored_ids ?? []).map((id, i) => ({
      event_id: id,
      stream_id: row.stored_streams?.[i] ?? '',
      position: row.stored_positions?.[i] ?? '0',
    }));
    return {
      written: row.written,
      head: Number(row.head),
      revisions: new Map(requests.map((request, i) => [request.streamId, revisions[i] ?? -1])),
      stored,
    };
  }

  /** What the server did or found, as the port says it: the write, a replay, or the error that refused it. */
  private appendResult(requests: readonly AppendRequest[], found: AppendFound): AppendResult {
    const { revisions, stored } = found;
    if (found.written) {
      const streams = requests.map((request) => ({
        streamId: request.streamId,
        nextRevision: (revisions.get(request.streamId) ?? -1) + request.events.length,
      }));
      return {
        streams,
        position: found.head + requests.reduce((count, request) => count + request.events.length, 0),
        idempotentReplay: false,
      };
    }
    const requested = requestedEvents(requests);
    if (requested.length > 0 && stored.length === requested.length) return this.replayResult(requests, requested, stored, revisions);
    const firstStored = requested.find((event) => stored.some((row) => decode(row.event_id) === event.id));
    if (firstStored) throw new IdempotencyConflictError(firstStored.id, 'some event ids of this append are already stored, others are not');
    for (const request of requests) {
      const actual = revisions.get(request.streamId) ?? -1;
      if (!matchesExpected(request.expectedRevision, actual))
        throw new WrongExpectedRevisionError(request.streamId, request.expectedRevision, actual);
    }
    throw new Error('append_events wrote nothing, yet found no stored event and no revision conflict');
  }

  private replayResult(
    requests: readonly AppendRequest[],
    requested: readonly RequestedEvent[],
    stored: readonly StoredEvent[],
    revisions: ReadonlyMap<string, number>,
  ): AppendResult {
    const byId = new Map(stored.map((row) => [decode(row.event_id), row]));
    for (const event of requested) {
      const storedIn = decode(byId.get(event.id)?.stream_id ?? '');
      if (storedIn !== event.streamId)
        throw new IdempotencyConflictError(event.id, `already stored in stream ${storedIn}, not ${event.streamId}`);
    }
    return {
      streams: requests.map((request) => ({ streamId: request.streamId, nextRevision: revisions.get(request.streamId) ?? -1 })),
      position: stored.reduce((max, row) => Math.max(max, Number(row.position)), 0),
      idempotentReplay: true,
    };
  }
}
