import type { EntityManager, EntitySchema, FilterQuery } from '@mikro-orm/core';
import { SqliteRowWriter } from './sqlite-row-writer.js';

/**
 * A batch folded here and written by another thread (SqlitePipeline's PipelinedBatch): reads go
 * through what the batches in flight wrote, writes become statements for the writer.
 */
export interface PipelinedBatch {
  reader<Row extends object>(className: string): SqliteRowWriter<Row>;
  /** The row as this batch or one in flight left it; undefined: the database has it as it is. */
  known<Row extends object>(className: string, key: string): Row | null | undefined;
  remember(className: string, key: string, row: object | null): void;
  delete(className: string, keys: readonly string[]): void;
  put<Row extends object>(className: string, rows: readonly Row[]): void;
  add<Row extends object>(className: string, rows: readonly Row[]): void;
}

/** Rows per statement: far below SQLite's and PostgreSQL's limits on bound values. */
const CHUNK = 200;

const chunks = <T>(items: readonly T[]): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
};

/**
 * The rows of one table as a batch sees them: read once (in bulk), changed in memory, and written
 * once when the batch ends (the touched rows deleted, their final versions inserted), so that a
 * batch of thousands of events costs a few statements per table instead of some per event.
 */
export class TableRows<Row extends object> {
  /** null: the row does not exist (or no longer does, in this batch). */
  private readonly rows = new Map<string, Row | null>();
  private readonly touched = new Set<string>();
  /** Keys read from the database and not found there: removing them again needs no statement. */
  private readonly absent = new Set<string>();
  private readonly key: keyof Row & string;
  private readonly columns: readonly (keyof Row & string)[];

  constructor(
    private readonly em: EntityManager,
    private readonly entity: EntitySchema<Row>,
    /** Set when the batch is folded here and written by the writer thread (see sqlite-pipeline.ts). */
    private readonly pipelined: PipelinedBatch | null = null,
  ) {
    const meta = em.getMetadata().get<Row>(entity.meta.className);
    this.key = meta.primaryKeys[0] as keyof Row & string;
    this.columns = meta.props.filter((prop) => prop.persist !== false).map((prop) => prop.name as keyof Row & string);
  }

  /** Reads the rows of these keys that the batch does not know yet, in as few queries as it takes. */
  async load(keys: Iterable<string>): Promise<void> {
    let missing = [...new Set(keys)].filter((key) => !this.rows.has(key));
    if (this.pipelined !== null) missing = this.fromPipeline(this.pipelined, missing);
    if (missing.length === 0) return;
    const sqlite =
      this.pipelined?.reader<Row>(this.entity.meta.className) ?? (await SqliteRowWriter.of<Row>(this.em, this.entity.meta.className));
    for (const part of chunks(missing)) {
      for (const key of part) {
        this.rows.set(key, null);
        this.absent.add(key);
      }
      for (const row of sqlite === null ? await this.find(part) : sqlite.find(part)) {
        const key = this.keyOf(row);
        this.rows.set(key, row);
        this.absent.delete(key);
      }
    }
  }

  /**
   * Takes the rows the batches still being written know (as they left them), and returns the keys they
   * do not know: those are read from the database, where no batch in flight has changed them.
   */
  private fromPipeline(pipelined: PipelinedBatch, keys: readonly string[]): string[] {
    const unknown: string[] = [];
    for (const key of keys) {
      const known = pipelined.known<Row>(this.entity.meta.className, key);
      if (known === undefined) {
        unknown.push(key);
        continue;
      }
      this.rows.set(key, known);
      if (known === null) this.absent.add(key);
    }
    return unknown;
  }

  /** Through MikroORM (PostgreSQL): plain copies of the entities, which the batch then changes freely. */
  private async find(keys: readonly string[]): Promise<Row[]> {
    const reader = this.em.fork({ clear: true, keepTransactionContext: true });
    return (await reader.find(this.entity, { [this.key]: { $in: keys } } as FilterQuery<Row>)).map((row) => this.plain(row));
  }

  /** The row as the batch left it so far; null if it does not exist or was removed earlier in the batch. */
  async get(key: string): Promise<Row | null> {
    if (!this.rows.has(key)) await this.load([key]);
    return this.rows.get(key) ?? null;
  }

  /**
   * `get` of a key the batch has read already (`load`, in a projection's `preload`), without waiting:
   * a fold of preloaded rows creates no promise per event. A key not read is a projection's bug.
   */
  loaded(key: string): Row | null {
    const row = this.rows.get(key);
    if (row === undefined)
      throw new Error(
        `${this.entity.meta.className} ${key} was not loaded before the fold read it (a projection's preload must load every row its apply reads)`,
      );
    return row;
  }

  /** Creates or replaces the row of `row`'s key. */
  put(row: Row): void {
    const key = this.keyOf(row);
    this.rows.set(key, row);
    this.touched.add(key);
  }

  remove(key: string): void {
    this.rows.set(key, null);
    this.touched.add(key);
  }

  /** Deletes first: a row inserted by the batch may take a unique value (a host name) that a deleted one held. */
  async write(): Promise<void> {
    const keys = [...this.touched];
    const gone = keys.filter((key) => this.rows.get(key) == null && !this.absent.has(key));
    const rows = keys.map((key) => this.rows.get(key)).filter((row): row is Row => row != null);
    this.touched.clear();
    if (this.pipelined !== null) {
      const className = this.entity.meta.className;
      this.pipelined.delete(className, gone);
      this.pipelined.put(className, rows);
      for (const key of keys) this.pipelined.remember(className, key, this.rows.get(key) ?? null);
      return;
    }
    const sqlite = await SqliteRowWriter.of<Row>(this.em, this.entity.meta.className);
    if (sqlite !== null) {
      sqlite.delete(gone);
      sqlite.put(rows);
    } else {
      const stale = keys.filter((key) => !this.absent.has(key));
      for (const part of chunks(stale)) await this.em.nativeDelete(this.entity, { [this.key]: { $in: part } } as FilterQuery<Row>);
      for (const part of chunks(rows))
        await this.em.insertMany(
          this.entity,
          part.map((row) => this.plain(row)),
        );
    }
    for (const key of keys) if (this.rows.get(key) != null) this.absent.delete(key);
  }

  /** Every read-model table the projections keep rows of is keyed by one text column. */
  private keyOf(row: Row): string {
    return row[this.key] as string;
  }

  private plain(row: Row): Row {
    const copy: Partial<Row> = {};
    for (const column of this.columns) copy[column] = row[column];
    return copy as Row;
  }
}

/** Rows only ever added (past versions), inserted when the batch ends. */
export class AddedRows<Row extends object> {
  private readonly rows: Row[] = [];

  constructor(
    private readonly em: EntityManager,
    private readonly entity: EntitySchema<Row>,
    private readonly pipelined: PipelinedBatch | null = null,
  ) {}

  add(row: Row): void {
    this.rows.push(row);
  }

  async write(): Promise<void> {
    const rows = this.rows.splice(0);
    if (this.pipelined !== null) {
      this.pipelined.add(this.entity.meta.className, rows);
      return;
    }
    const sqlite = await SqliteRowWriter.of<Row>(this.em, this.entity.meta.className);
    if (sqlite !== null) sqlite.add(rows);
    else for (const part of chunks(rows)) await this.em.insertMany(this.entity, part);
  }
}

interface Pending {
  write(): Promise<void>;
}

/** Every table one projection touches in one batch, written together at its end (in the batch's transaction). */
export class BatchRows {
  private readonly tables = new Map<unknown, Pending>();

  constructor(
    readonly em: EntityManager,
    /** The batch is folded for the writer thread (sqlite-pipeline.ts) rather than written in `em`'s transaction. */
    private readonly pipelined: PipelinedBatch | null = null,
  ) {}

  table<Row extends object>(entity: EntitySchema<Row>): TableRows<Row> {
    return this.lookup(entity, () => new TableRows(this.em, entity, this.pipelined));
  }

  added<Row extends object>(entity: EntitySchema<Row>): AddedRows<Row> {
    return this.lookup(entity, () => new AddedRows(this.em, entity, this.pipelined));
  }

  async write(): Promise<void> {
    for (const table of this.tables.values()) await table.write();
  }

  /** One holder per entity: the caller asks with the same entity, hence the same row type. */
  private lookup<Holder extends Pending>(entity: unknown, make: () => Holder): Holder {
    const known = this.tables.get(entity);
    if (known !== undefined) return known as Holder;
    const made = make();
    this.tables.set(entity, made);
    return made;
  }
}
