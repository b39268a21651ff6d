import { BetterSqlitePlatform } from '@mikro-orm/better-sqlite';
import { type EntityKey, type EntityManager, type EntityMetadata, type EntityProperty, JsonType } from '@mikro-orm/core';
import type Database from 'better-sqlite3';

import type { Bindable } from './batch-writer.protocol.js';

/**
 * Writes a batch's rows on SQLite with statements prepared once per connection and table, on the
 * batch transaction's own connection: MikroORM's insertMany and nativeDelete build and prepare their
 * SQL again for every chunk, which costs a rebuild more than SQLite's own work. Values are converted
 * as MikroORM converts them (its custom types: stored text, JSON; booleans as 0/1), so the rows read
 * back through MikroORM exactly as if it had written them.
 */
export class SqliteRowWriter<Row extends object> {
  private upsertStatement: Database.Statement | null = null;
  private insertStatement: Database.Statement | null = null;
  private removeStatement: Database.Statement | null = null;
  private readonly convert: ((row: Row) => Bindable)[];
  private readonly values: Bindable[];
  private readonly key: (value: string) => Bindable;
  /** Column values as read back into the row's properties, in `select`'s column order. */
  private readonly hydrate: ((value: unknown) => unknown)[];
  private readonly names: string[];
  private readonly selects = new Map<number, Database.Statement>();
  private readonly selectPrefix: string;
  /** The statements' SQL, for the writer thread to prepare on its own connection. */
  readonly sql: { readonly insert: string; readonly upsert: string; readonly remove: string };

  private constructor(
    private readonly db: Database.Database,
    meta: EntityMetadata<Row>,
    platform: BetterSqlitePlatform,
  ) {
    const props = meta.props.filter((prop) => prop.persist !== false);
    const column = (prop: EntityProperty<Row>): string => `"${prop.fieldNames[0] ?? prop.name}"`;
    const columns = props.map(column);
    const keys = meta.primaryKeys.map((key) => column(meta.properties[key]));
    const others = columns.filter((name) => !keys.includes(name));
    const values = `(${columns.map(() => '?').join(', ')})`;
    const table = `"${meta.tableName}"`;
    const update = others.length === 0 ? 'nothing' : `update set ${others.map((name) => `${name} = excluded.${name}`).join(', ')}`;
    this.sql = {
      insert: `insert into ${table} (${columns.join(', ')}) values ${values}`,
      upsert: `insert into ${table} (${columns.join(', ')}) values ${values} on conflict (${keys.join(', ')}) do ${update}`,
      remove: `delete from ${table} where ${keys[0]} = ?`,
    };
    const toColumn =
      (prop: EntityProperty<Row>) =>
      (value: unknown): Bindable => {
        if (value === null || value === undefined) return null;
        // what MikroORM's JsonType stores on SQLite (Platform.convertJsonToDatabaseValue), without its calls around it
        if (prop.customType instanceof JsonType) return JSON.stringify(value);
        const stored: unknown =
          prop.customType === undefined ? value : prop.customType.convertToDatabaseValue(value, platform, { mode: 'query-data' });
        return typeof stored === 'boolean' ? (stored ? 1 : 0) : (stored as Bindable);
      };
    this.values = props.map(() => null);
    this.convert = props.map((prop) => {
      const name = prop.name as keyof Row;
      const convert = toColumn(prop);
      return (row: Row): Bindable => convert(row[name]);
    });
    this.key = toColumn(meta.properties[meta.primaryKeys[0] as EntityKey<Row>]);
    // MikroORM's hydration of a row, without building entities: custom types convert, booleans are stored as 0/1
    this.hydrate = props.map((prop) => (value: unknown): unknown => {
      if (value === null || value === undefined) return null;
      if (prop.customType !== undefined) return prop.customType.convertToJSValue(value, platform);
      return prop.runtimeType === 'boolean' ? Boolean(value) : value;
    });
    this.names = props.map((prop) => prop.name);
    this.selectPrefix = `select ${columns.join(', ')} from ${table} where ${keys[0]} in `;
  }

  /** The writer of this entity on the SQLite connection of `em`'s transaction; null on another database. */
  static async of<Row extends object>(em: EntityManager, className: string): Promise<SqliteRowWriter<Row> | null> {
    const platform = em.getPlatform();
    const ctx = em.getTransactionContext<{ client: { acquireConnection(): Promise<Database.Database> } }>();
    if (!(platform instanceof BetterSqlitePlatform) || ctx === undefined) return null;
    return SqliteRowWriter.on<Row>(await ctx.client.acquireConnection(), em.getMetadata().get<Row>(className), platform);
  }

  /** The writer of this entity on this connection (made once per connection and entity). */
  static on<Row extends object>(db: Database.Database, meta: EntityMetadata<Row>, platform: BetterSqlitePlatform): SqliteRowWriter<Row> {
    let writers = WRITERS.get(db);
    if (writers === undefined) WRITERS.set(db, (writers = new Map<string, SqliteRowWriter<object>>()));
    let writer = writers.get(meta.className) as SqliteRowWriter<Row> | undefined;
    if (writer === undefined) {
      writer = new SqliteRowWriter(db, meta, platform);
      writers.set(meta.className, writer as unknown as SqliteRowWriter<object>);
    }
    return writer;
  }

  /** Appends the rows' column values to `values`, row after row in the statements' order: for another thread to bind. */
  boundInto(values: Bindable[], rows: Iterable<Row>): void {
    for (const row of rows) for (const convert of this.convert) values.push(convert(row));
  }

  /** Values per row in the insert and upsert statements. */
  get width(): number {
    return this.convert.length;
  }

  /** A primary key as the statements bind it. */
  boundKey(key: string): Bindable {
    return this.key(key);
  }

  /** Creates or replaces each row (by primary key). */
  put(rows: Iterable<Row>): void {
    const upsert = (this.upsertStatement ??= this.db.prepare(this.sql.upsert));
    for (const row of rows) upsert.run(this.bind(row));
  }

  /**
   * Inserts each row. Statements are prepared when first used: a rebuild's copy of a history table
   * has no primary key while it is written (sqlite-copy-tables.ts), so no upsert of it can be prepared.
   */
  add(rows: Iterable<Row>): void {
    const insert = (this.insertStatement ??= this.db.prepare(this.sql.insert));
    for (const row of rows) insert.run(this.bind(row));
  }

  /**
   * The row's column values in one array kept for the writer: a statement binds them before `run` returns, so none is allocated per row.
   */
  private bind(row: Row): Bindable[] {
    const values = this.values;
    for (let i = 0; i < values.length; i++) values[i] = (this.convert[i] as (row: Row) => Bindable)(row);
    return values;
  }

  /** The stored rows of these single-column primary keys (any order; a key without a row is left out). */
  find(keys: readonly string[]): Row[] {
    if (keys.length === 0) return [];
    let select = this.selects.get(keys.length);
    if (select === undefined) {
      select = this.db.prepare(`${this.selectPrefix}(${keys.map(() => '?').join(', ')})`).raw(true);
      this.selects.set(keys.length, select);
    }
    return (select.all(keys.map((key) => this.key(key))) as unknown[][]).map((values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < values.length; i++) row[this.names[i] ?? ''] = this.hydrate[i]?.(values[i]);
      return row as Row;
    });
  }

  /** Deletes by a single-column primary key. */
  delete(keys: Iterable<string>): void {
    const remove = (this.removeStatement ??= this.db.prepare(this.sql.remove));
    for (const key of keys) remove.run(this.key(key));
  }
}

/** Per connection: a statement belongs to the connection that prepared it. */
const WRITERS = new WeakMap<Database.Database, Map<string, SqliteRowWriter<object>>>();
