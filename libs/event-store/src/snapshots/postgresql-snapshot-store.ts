import pg from 'pg';
import { assertSchemaName, runDdlOnce, schemaLock } from '../postgresql/postgresql-schema.js';
import type { Snapshot, SnapshotStore } from './snapshot-store.port.js';

const tableSql = (schema: string): string => `
  CREATE SCHEMA IF NOT EXISTS ${schema};
  CREATE TABLE IF NOT EXISTS ${schema}.snapshots (
    kind TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    position BIGINT NOT NULL,
    payload TEXT NOT NULL,
    written_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (kind, schema_version)
  );
`;

/** Snapshots in the event store's schema, shared by every process on that store. */
export class PostgresSnapshotStore implements SnapshotStore {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}

  /** `url` as the event store's: postgres://...?schema=name (default `leasehold`). */
  static async open(url: string): Promise<PostgresSnapshotStore> {
    const parsed = new URL(url);
    const schema = assertSchemaName(parsed.searchParams.get('schema') ?? 'leasehold');
    parsed.searchParams.delete('schema');
    const pool = new pg.Pool({ connectionString: parsed.toString(), max: 1 });
    pool.on('error', () => undefined);
    try {
      // under the event store's schema lock: both create the schema, and their processes start together
      await runDdlOnce(pool, schemaLock(schema), tableSql(schema));
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresSnapshotStore(pool, schema);
  }

  async load(kind: string, schemaVersion: number): Promise<Snapshot | null> {
    const { rows } = await this.pool.query<{ position: string; payload: string }>(
      `SELECT position, payload FROM ${this.schema}.snapshots WHERE kind = $1 AND schema_version = $2`,
      [kind, schemaVersion],
    );
    const row = rows[0];
    return row === undefined ? null : { kind, schemaVersion, position: Number(row.position), payload: row.payload };
  }

  async save(snapshot: Snapshot): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.schema}.snapshots (kind, schema_version, position, payload) VALUES ($1, $2, $3, $4)
       ON CONFLICT (kind, schema_version) DO UPDATE SET position = excluded.position, payload = excluded.payload, written_at = now()
       WHERE excluded.position >= ${this.schema}.snapshots.position`,
      [snapshot.kind, snapshot.schemaVersion, snapshot.position, snapshot.payload],
    );
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
