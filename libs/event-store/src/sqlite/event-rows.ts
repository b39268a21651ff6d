import type Database from 'better-sqlite3';
import type { EventData, EventFilter, FoldableEvent, RecordedEvent } from '../event-store.port.js';
import { EVENT_COLUMNS, type EventRow, recordedEvent } from '../event-rows.js';
import { streamCategory } from '../event-store.port.js';
import { storedVersionOf, upcast } from '../event-versions.js';
import { decodeStoredText as decode, encodeStoredText as encode } from '../stored-text.js';

export interface StoredEventRef {
  readonly streamId: string;
  readonly position: number;
}

/** SQLite treats a negative LIMIT as "no limit". */
const NO_LIMIT = -1;

/** The columns of a FoldableEvent, as an array (`.raw()`). */
const FOLDABLE_COLUMNS = 'position, type, schema_version, data';
type RawFoldableRow = readonly [number, string, number, string];

const foldableFromRaw = ([position, storedType, version, data]: RawFoldableRow): FoldableEvent => {
  const type = decode(storedType);
  return { position, type, data: upcast(type, version, JSON.parse(data)) };
};

const placeholders = (count: number): string => Array.from({ length: count }, () => '?').join(', ');

interface FilterSql {
  readonly sql: string;
  readonly params: readonly string[];
}

/** An empty list means "no constraint", like an absent one. */
function filterSql(filter: EventFilter | undefined): FilterSql {
  const categories = filter?.categories ?? [];
  const types = filter?.types ?? [];
  const clauses = [
    categories.length > 0 ? ` AND category IN (${placeholders(categories.length)})` : '',
    types.length > 0 ? ` AND type IN (${placeholders(types.length)})` : '',
  ];
  return { sql: clauses.join(''), params: [...categories, ...types].map(encode) };
}

/** A page of a filter on several values is read through the index runs of each (EventRows.readMerged). */
const readsMerged = (limit: number | undefined, filter: EventFilter | undefined): limit is number =>
  limit !== undefined && ((filter?.types?.length ?? 0) > 1 || (filter?.categories?.length ?? 0) > 1);

/**
 * Prepared statements over one connection; all methods are synchronous. Every value is a bound
 * parameter; the text keys (event id, stream id, category, type) are stored encoded so that any
 * string reads back exactly (see stored-text.ts); data and metadata are JSON, which escapes them.
 */
export class EventRows {
  private readonly rangeStatements = new Map<string, Database.Statement>();
  private readonly positionStatements = new Map<string, Database.Statement>();
  /** The events at the positions of a JSON array, ascending. */
  private readonly eventsAt: Database.Statement;
  private readonly insertEvent: Database.Statement;
  private readonly upsertStream: Database.Statement;
  private readonly selectStreamRevision: Database.Statement;
  private readonly selectEventRef: Database.Statement;
  private readonly selectStream: Database.Statement;
  private readonly selectHead: Database.Statement;
  private readonly selectPositionAt: Database.Statement;
  private readonly selectDataVersion: Database.Statement;
  /**
   * A merged page's index runs are statements of their own: read outside one transaction, another
   * process's commit landing between two runs puts its later events in the page and leaves out its
   * earlier ones, below the position the reader resumes from (lost for good).
   */
  private readonly inOneSnapshot: Database.Transaction<(read: () => RecordedEvent[]) => RecordedEvent[]>;

  constructor(private readonly db: Database.Database) {
    this.inOneSnapshot = db.transaction((read: () => RecordedEvent[]) => read());
    this.insertEvent = db.prepare(
      `INSERT INTO events (event_id, stream_id, category, revision, type, schema_version, data, metadata, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.upsertStream = db.prepare(
      `INSERT INTO streams (stream_id, revision) VALUES (?, ?)
       ON CONFLICT (stream_id) DO UPDATE SET revision = excluded.revision`,
    );
    this.selectStreamRevision = db.prepare('SELECT revision FROM streams WHERE stream_id = ?').pluck();
    this.selectEventRef = db.prepare('SELECT stream_id AS streamId, position FROM events WHERE event_id = ?');
    this.selectStream = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision`).raw();
    this.selectHead = db.prepare('SELECT COALESCE(MAX(position), 0) FROM events').pluck();
    // left to itself SQLite walks the table from the head down, reading whole events
    this.selectPositionAt = db
      .prepare('SELECT COALESCE(MAX(position), 0) FROM events INDEXED BY events_recorded_at WHERE recorded_at <= ?')
      .pluck();
    this.selectDataVersion = db.prepare('PRAGMA data_version').pluck();
    this.eventsAt = db
      .prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE position IN (SELECT value FROM json_each(?)) ORDER BY position`)
      .raw();
  }

  streamRevision(streamId: string): number {
    const revision = this.selectStreamRevision.get(encode(streamId)) as number | undefined;
    return revision ?? -1;
  }

  eventRef(eventId: string): StoredEventRef | undefined {
    const ref = this.selectEventRef.get(encode(eventId)) as StoredEventRef | undefined;
    return ref === undefined ? undefined : { streamId: decode(ref.streamId), position: ref.position };
  }

  /** Inserts one event and returns its global position. */
  insert(streamId: string, revision: number, event: EventData, recordedAt: string): number {
    const info = this.insertEvent.run(
      encode(event.id),
      encode(streamId),
      encode(streamCategory(streamId)),
      revision,
      encode(event.type),
      storedVersionOf(event.type),
      JSON.stringify(event.data ?? null),
      JSON.stringify(event.metadata),
      recordedAt,
    );
    return Number(info.lastInsertRowid);
  }

  setStreamRevision(streamId: string, revision: number): void {
    this.upsertStream.run(encode(streamId), revision);
  }

  readStream(streamId: string, fromRevision: number): RecordedEvent[] {
    return (this.selectStream.all(encode(streamId), fromRevision) as EventRow[]).map(recordedEvent);
  }

  /** Events with from < position <= to matching the filter, ascending. */
  readRange(from: number, to: number, limit: number | undefined, filter: EventFilter | undefined): RecordedEvent[] {
    if (readsMerged(limit, filter)) {
      const types = filter?.types ?? [];
      const categories = filter?.categories ?? [];
      return this.inOneSnapshot(() =>
        this.readMerged(
          from,
          to,
          limit,
          types.length > 0 ? 'type' : 'category',
          types.length > 0 ? types : categories,
          types.length > 0 ? categories : [],
        ),
      );
    }
    const { sql, params } = filterSql(filter);
    const rows = this.rangeStatement(sql, EVENT_COLUMNS).all(from, to, ...params, limit ?? NO_LIMIT) as EventRow[];
    return rows.map(recordedEvent);
  }

  /** readRange's events without their ids and metadata (a filter on several values reads them whole). */
  readFoldableRange(from: number, to: number, limit: number | undefined, filter: EventFilter | undefined): FoldableEvent[] {
    if (readsMerged(limit, filter)) return this.readRange(from, to, limit, filter);
    const { sql, params } = filterSql(filter);
    const rows = this.rangeStatement(sql, FOLDABLE_COLUMNS).all(from, to, ...params, limit ?? NO_LIMIT) as RawFoldableRow[];
    return rows.map(foldableFromRaw);
  }

  /**
   * A filter on several categories or types, read a page at a time: left to itself SQLite takes the
   * (category, position) or (type, position) index for the IN list and sorts every match after
   * `from` to return the first `limit` (181 ms a page of 500 early in a log of a million events,
   * where the whole log in position order takes 3 ms a page). Instead, each value's run of the
   * index gives its first `limit` positions in order (an index-only read), the smallest `limit` of
   * them are the page, and the page's events are read by position.
   */
  private readMerged(
    from: number,
    to: number,
    limit: number,
    column: 'type' | 'category',
    values: readonly string[],
    categories: readonly string[],
  ): RecordedEvent[] {
    const next = this.nextPositions(column, categories.length);
    const positions: number[] = [];
    for (const value of new Set(values))
      positions.push(...(next.all(encode(value), from, to, ...categories.map(encode), limit) as number[]));
    if (positions.length === 0) return [];
    positions.sort((a, b) => a - b);
    return (this.eventsAt.all(JSON.stringify(positions.slice(0, limit))) as EventRow[]).map(recordedEvent);
  }

  private nextPositions(column: 'type' | 'category', categories: number): Database.Statement {
    const id = `${column}|${categories}`;
    const cached = this.positionStatements.get(id);
    if (cached) return cached;
    const also = categories === 0 ? '' : ` AND category IN (${placeholders(categories)})`;
    const statement = this.db
      .prepare(
        `SELECT position FROM events INDEXED BY events_${column}_position WHERE ${column} = ? AND position > ? AND position <= ?${also} ORDER BY position LIMIT ?`,
      )
      .pluck();
    this.positionStatements.set(id, statement);
    return statement;
  }

  headPosition(): number {
    return this.selectHead.get() as number;
  }

  /** recordedAt and the bound are both `toISOString()` text, whose order is the instants' order. */
  positionAt(instant: string): number {
    return this.selectPositionAt.get(instant) as number;
  }

  /** Changes whenever another connection (of any process) commits. */
  dataVersion(): number {
    return this.selectDataVersion.get() as number;
  }

  private rangeStatement(filterClause: string, columns: string): Database.Statement {
    const id = `${columns}|${filterClause}`;
    const cached = this.rangeStatements.get(id);
    if (cached) return cached;
    const statement = this.db
      .prepare(`SELECT ${columns} FROM events WHERE position > ? AND position <= ?${filterClause} ORDER BY position LIMIT ?`)
      .raw();
    this.rangeStatements.set(id, statement);
    return statement;
  }
}
