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
  CREATE TABLE IF NOT EXISTS streams (
    stream_id TEXT PRIMARY KEY,
    revision INTEGER NOT NULL
  );
`;

function configure(db: Database.Database): void {
  db.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.transaction(() => db.exec(SCHEMA)).immediate();
}

/** Opens (creating if needed) an event-store database, WAL mode, schema in place. */
export function openDatabase(file: string): Database.Database {
  if (file !== IN_MEMORY) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { timeout: LOCK_WAIT_MS });
  try {
    // Several processes may open a fresh file at once; switching to WAL and creating the schema can collide.
    withBusyRetrySync(() => configure(db));
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
