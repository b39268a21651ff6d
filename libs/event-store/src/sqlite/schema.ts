import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { LOCK_WAIT_MS, withBusyRetrySync } from './busy-retry.js';

export const IN_MEMORY = ':memory:';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL UNIQUE,
    stream_id TEXT NOT NULL,
    category TEXT NOT NULL,
    revision INTEGER NOT NULL,
    type TEXT NOT NULL,
    schema_version INTEGER NOT NULL DEFAULT 1,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    UNIQUE (stream_id, revision)
  );
  CREATE INDEX IF NOT EXISTS events_category_position ON events (category, position);
  CREATE INDEX IF NOT EXISTS events_type_position ON events (type, position);
  CREATE INDEX IF NOT EXISTS events_recorded_at ON events (recorded_at);
  CREATE TABLE IF NOT EXISTS streams (
    stream_id TEXT PRIMARY KEY,
    revision INTEGER NOT NULL
  );
`;

/** The tables and indexes SCHEMA creates. */
const SCHEMA_OBJECTS = [...SCHEMA.matchAll(/CREATE (?:TABLE|INDEX) IF NOT EXISTS (\w+)/g)].flatMap((match) => match.slice(1));

const hasSchema = (db: Database.Database): boolean => {
  const present = db.prepare('SELECT name FROM sqlite_master').pluck().all() as string[];
  return SCHEMA_OBJECTS.every((name) => present.includes(name));
};

/**
 * How a commit reaches the disk in WAL mode. NORMAL: the WAL is synced only at checkpoints, so a commit
 * survives a crash of the process but not of the machine (power loss, kernel panic). FULL: the WAL is
 * synced at every commit, so an append is on disk when its caller is told; group commit shares that sync
 * among the appends of a group (docs/performance.md has the figures).
 */
export type Synchronous = 'NORMAL' | 'FULL';

export const DEFAULT_SYNCHRONOUS: Synchronous = 'NORMAL';

/**
 * Only a new store is written to at open: a process starting while another one holds the write lock
 * (longer than the busy timeout) must start, not exit.
 */
function configure(db: Database.Database, synchronous: Synchronous): void {
  db.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  if (!hasSchema(db)) db.transaction(() => db.exec(SCHEMA)).immediate();
}

/** Opens (creating if needed) an event-store database, WAL mode, schema in place. */
export function openDatabase(file: string, synchronous: Synchronous = DEFAULT_SYNCHRONOUS): Database.Database {
  if (file !== IN_MEMORY) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { timeout: LOCK_WAIT_MS });
  try {
    // Several processes may open a fresh file at once; switching to WAL and creating the schema can collide.
    withBusyRetrySync(() => configure(db, synchronous));
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens an existing store for reading only (SQLITE_OPEN_READONLY): nothing through this connection can
 * change the file, and it reads while the service writes (WAL). Throws if the file does not exist.
 */
export function openReadOnlyDatabase(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: LOCK_WAIT_MS });
  try {
    if (!hasSchema(db)) throw new Error(`${file} is not a Leasehold event store`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
