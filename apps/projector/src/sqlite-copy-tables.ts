import type { MikroORM } from '@mikro-orm/core';
import Database from 'better-sqlite3';
import { HISTORY_ENTITIES, READ_MODEL_ENTITIES, connectReadModel } from '#read-model/index.js';
import { PROJECTOR_CACHE_MIB } from './projection-runner.js';

/** Prefix of the tables a SQLite rebuild builds in the live file, beside the tables they replace. */
export const COPY_PREFIX = 'rebuild_';

/** The live tables' indexes other than a unique one: a copy gets them at the swap, built once over all its rows. */
const LATE_INDEX = /^create\s+index\s/i;

/** How long the swap held the write lock (drops, renames, index builds), and the checkpoint after it. */
export interface SwapTimes {
  readonly lockedSeconds: number;
  readonly checkpointSeconds: number;
}

/** A SQLite rebuild's last steps: the history copies put in key order (sortHistoryCopies), then the swap. */
export interface RebuildEndTimes extends SwapTimes {
  readonly sortSeconds: number;
}

/** Prefix of a history table's copy while its rows are put in key order (sortHistoryCopies). */
const SORTED_PREFIX = `${COPY_PREFIX}sorted_`;

/**
 * Tables of past versions: only ever inserted into while the log is replayed, and never read. Their
 * copies are written without their primary key, so each batch appends to the end of the table:
 * with the key, a batch's versions (one per event; their keys begin with random lease ids) landed
 * all over its index, and every batch wrote most of that index again (a rebuild of a million events
 * wrote 3.6 GB for a 553 MB read model). sortHistoryCopies gives them their key at the end.
 */
const HISTORY_TABLES: ReadonlySet<string> = new Set(HISTORY_ENTITIES.map((entity) => entity.meta.tableName));

const PRIMARY_KEY = /,\s*primary key\s*\([^)]*\)/i;

interface SchemaEntry {
  readonly name: string;
  readonly sql: string;
}

const liveTables = (): string[] => READ_MODEL_ENTITIES.map((entity) => entity.meta.tableName);

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** `create table|index <name> ... on <table>` with both names given `prefix` (the copy's by default). */
const renamed = (sql: string, name: string, table: string, prefix = COPY_PREFIX): string =>
  sql
    .replace(new RegExp(`^(create\\s+(?:unique\\s+)?(?:table|index)\\s+)[\`"]?${name}[\`"]?`, 'i'), `$1${quoted(`${prefix}${name}`)}`)
    .replace(new RegExp(`(\\son\\s+)[\`"]?${table}[\`"]?(\\s*\\()`, 'i'), `$1${quoted(`${prefix}${table}`)}$2`);

const tableSql = (db: Database.Database, table: string): string => {
  const sql = db.prepare<[string], string>(`select sql from sqlite_master where type = 'table' and name = ?`).pluck().get(table);
  if (sql === undefined) throw new Error(`the read model has no table ${table}: open it (openReadModel) before rebuilding it`);
  return sql;
};

const indexesOf = (db: Database.Database, table: string): SchemaEntry[] =>
  db
    .prepare<[string], SchemaEntry>(
      `select name, sql from sqlite_master where type = 'index' and tbl_name = ? and sql is not null order by name`,
    )
    .all(table);

const copiesIn = (db: Database.Database): string[] =>
  db
    .prepare<[], string>(
      `select name from sqlite_master where type = 'table' and substr(name, 1, ${COPY_PREFIX.length}) = '${COPY_PREFIX}'`,
    )
    .pluck()
    .all();

/**
 * How long a rebuild waits for the live file's write lock: the live projector holds it for a whole
 * batch, and one catching up a backlog writes up to 20,000 events in a batch (a second or more).
 */
const LOCK_WAIT_MS = 30_000;

const open = (file: string): Database.Database => {
  const db = new Database(file, { fileMustExist: true });
  db.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
  return db;
};

/** Drops whatever copy tables a rebuild left behind (one killed mid-way, say). */
export const dropCopyTables = (file: string): void => {
  const db = open(file);
  try {
    db.transaction(() => {
      for (const table of copiesIn(db)) db.exec(`drop table ${quoted(table)}`);
    }).immediate();
    db.pragma('wal_checkpoint(passive)');
  } finally {
    db.close();
  }
};

/**
 * Creates empty copies of the live tables in the live file (`rebuild_<table>`: same columns, keys and
 * unique indexes, their other indexes left for the swap) and a MikroORM instance whose entities map
 * to them, for the runner to replay the log into. The copies are written in the live file's
 * write-ahead log like any write: a crash loses none of the live tables.
 */
export const openCopyTables = async (file: string): Promise<MikroORM> => {
  dropCopyTables(file);
  const db = open(file);
  try {
    db.transaction(() => {
      for (const table of liveTables()) {
        const create = renamed(tableSql(db, table), table, table);
        if (HISTORY_TABLES.has(table)) {
          if (!PRIMARY_KEY.test(create) || indexesOf(db, table).some((entry) => !LATE_INDEX.test(entry.sql)))
            throw new Error(`history table ${table} has a key sortHistoryCopies cannot restore`);
          db.exec(create.replace(PRIMARY_KEY, ''));
          continue;
        }
        db.exec(create);
        for (const index of indexesOf(db, table).filter((entry) => !LATE_INDEX.test(entry.sql)))
          db.exec(renamed(index.sql, index.name, table));
      }
    }).immediate();
  } finally {
    db.close();
  }
  const orm = await connectReadModel({ kind: 'sqlite', file }, { tablePrefix: COPY_PREFIX });
  const connection = orm.em.getConnection();
  await connection.execute(`pragma busy_timeout = ${LOCK_WAIT_MS}`);
  // the copy is worth nothing until it is swapped in: no wait for the disk at each batch (WAL keeps the file consistent)
  await connection.execute('pragma synchronous = normal');
  await connection.execute(`pragma cache_size = -${PROJECTOR_CACHE_MIB * 1024}`);
  await connection.execute('pragma wal_autocheckpoint = 0');
  return orm;
};

/**
 * Gives each history table's copy (written without its primary key) its key: a table made as the live
 * one is, filled in key order (SQLite then appends to its index), in place of the copy. Before the
 * swap, in a transaction of its own; returns its seconds. A crash here leaves copy tables, which the
 * next rebuild drops.
 */
export const sortHistoryCopies = (file: string): number => {
  const db = open(file);
  try {
    const started = performance.now();
    db.transaction(() => {
      for (const table of HISTORY_TABLES) {
        const copy = `${COPY_PREFIX}${table}`;
        const sorted = `${SORTED_PREFIX}${table}`;
        const key = db
          .prepare<[string], { name: string; pk: number }>('select name, pk from pragma_table_info(?) where pk > 0 order by pk')
          .all(table)
          .map((column) => quoted(column.name));
        db.exec(renamed(tableSql(db, table), table, table, SORTED_PREFIX));
        db.exec(`insert into ${quoted(sorted)} select * from ${quoted(copy)} order by ${key.join(', ')}`);
        db.exec(`drop table ${quoted(copy)}`);
        db.exec(`alter table ${quoted(sorted)} rename to ${quoted(copy)}`);
      }
    }).immediate();
    return (performance.now() - started) / 1000;
  } finally {
    db.close();
  }
};

/**
 * Puts the copies in place of the live tables in one transaction, without copying a row: each live
 * table is dropped, its copy renamed to its name and given its indexes. A reader (another connection,
 * another process) sees the old tables or the new ones, never a mix: its snapshot began before the
 * commit or after it. Statements prepared on the old tables are prepared again by SQLite on their
 * next run.
 */
export const swapInCopyTables = (file: string): SwapTimes => {
  const db = open(file);
  // the commit would checkpoint the whole copy itself; done below, once the write lock is released, and timed apart
  db.pragma('wal_autocheckpoint = 0');
  try {
    const started = performance.now();
    db.transaction(() => {
      for (const table of liveTables()) {
        const indexes = indexesOf(db, table);
        const copyIndexes = indexesOf(db, `${COPY_PREFIX}${table}`);
        db.exec(`drop table ${quoted(table)}`);
        for (const index of copyIndexes) db.exec(`drop index ${quoted(index.name)}`);
        db.exec(`alter table ${quoted(`${COPY_PREFIX}${table}`)} rename to ${quoted(table)}`);
        for (const index of indexes) db.exec(index.sql);
      }
    }).immediate();
    const committed = performance.now();
    // the copy's pages go from the write-ahead log into the file now, not in the commit of the next projector batch
    db.pragma('wal_checkpoint(passive)');
    return { lockedSeconds: (committed - started) / 1000, checkpointSeconds: (performance.now() - committed) / 1000 };
  } finally {
    db.close();
  }
};
