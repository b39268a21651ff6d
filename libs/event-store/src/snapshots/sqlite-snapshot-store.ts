import Database from 'better-sqlite3';
import { withBusyRetry, withBusyRetrySync } from '../sqlite/busy-retry.js';
import { openDatabase } from '../sqlite/schema.js';
import type { Snapshot, SnapshotStore } from './snapshot-store.port.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS snapshots (
    kind TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    position INTEGER NOT NULL,
    payload TEXT NOT NULL,
    written_at TEXT NOT NULL,
    PRIMARY KEY (kind, schema_version)
  );
`;

const UPSERT = `
  INSERT INTO snapshots (kind, schema_version, position, payload, written_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (kind, schema_version) DO UPDATE SET position = excluded.position, payload = excluded.payload, written_at = excluded.written_at
  WHERE excluded.position >= snapshots.position
`;

interface Row {
  readonly position: number;
  readonly payload: string;
}

/** Snapshots in a table of the event store's own SQLite file (its own connection: a write never waits on the log's). */
export class SqliteSnapshotStore implements SnapshotStore {
  private constructor(private readonly db: Database.Database) {}

  static open(file: string): SqliteSnapshotStore {
    const db = openDatabase(file);
    try {
      withBusyRetrySync(() => db.exec(SCHEMA));
    } catch (error) {
      db.close();
      throw error;
    }
    return new SqliteSnapshotStore(db);
  }

  load(kind: string, schemaVersion: number): Promise<Snapshot | null> {
    const row = this.db
      .prepare('SELECT position, payload FROM snapshots WHERE kind = ? AND schema_version = ?')
      .get(kind, schemaVersion) as Row | undefined;
    return Promise.resolve(row === undefined ? null : { kind, schemaVersion, position: row.position, payload: row.payload });
  }

  async save(snapshot: Snapshot): Promise<void> {
    const { kind, schemaVersion, position, payload } = snapshot;
    // waits for another writer's lock between attempts, not inside SQLite: admissions go on meanwhile
    await withBusyRetry(() => this.db.prepare(UPSERT).run(kind, schemaVersion, position, payload, new Date().toISOString()));
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}
