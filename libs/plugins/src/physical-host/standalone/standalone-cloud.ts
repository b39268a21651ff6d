import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** Nova's aggregate that holds reservable hosts while no reservation uses them ([nova]aggregate_freepool_name). */
export const FREEPOOL = 'freepool';

export interface Aggregate {
  readonly name: string;
  readonly availabilityZone: string | null;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface AggregateSpec {
  readonly availabilityZone: string | null;
  readonly metadata: Readonly<Record<string, string>>;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS aggregates (
    name TEXT PRIMARY KEY,
    availability_zone TEXT,
    metadata TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS aggregate_hosts (
    aggregate TEXT NOT NULL REFERENCES aggregates (name),
    host TEXT NOT NULL,
    PRIMARY KEY (aggregate, host)
  );
  CREATE INDEX IF NOT EXISTS aggregate_hosts_host ON aggregate_hosts (host);
`;

interface AggregateRow {
  readonly name: string;
  readonly availability_zone: string | null;
  readonly metadata: string;
}

export class AggregateNotFoundError extends Error {
  constructor(readonly aggregate: string) {
    super(`Aggregate ${aggregate} could not be found`);
    this.name = 'AggregateNotFoundError';
  }
}

/**
 * FAKE of Nova's host aggregates for the standalone mode, where no OpenStack runs: the few aggregate
 * operations Blazar's physical host plugin needs, persisted in SQLite so that several processes and
 * restarts see the same "cloud". Every operation is idempotent and reports whether it changed anything.
 * Like Nova it refuses to delete an aggregate that still has hosts.
 */
export class StandaloneCloud {
  private constructor(private readonly db: Database.Database) {}

  static open(options: { readonly file: string }): StandaloneCloud {
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    const db = new Database(options.file, { timeout: 5000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.transaction(() => db.exec(SCHEMA)).immediate();
    return new StandaloneCloud(db);
  }

  /** Creates the aggregate unless it exists; true when created. An existing aggregate is left as it is. */
  ensureAggregate(name: string, spec: AggregateSpec): boolean {
    const result = this.db
      .prepare('INSERT INTO aggregates (name, availability_zone, metadata) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING')
      .run(name, spec.availabilityZone, JSON.stringify(spec.metadata));
    return result.changes > 0;
  }

  /** Deletes an empty aggregate; false when it does not exist. */
  deleteAggregate(name: string): boolean {
    return this.db
      .transaction(() => {
        if (this.membersOf(name).length > 0) throw new Error(`Cannot delete aggregate ${name}: it still has hosts`);
        return this.db.prepare('DELETE FROM aggregates WHERE name = ?').run(name).changes > 0;
      })
      .immediate();
  }

  getAggregate(name: string): Aggregate | null {
    const row = this.db.prepare('SELECT name, availability_zone, metadata FROM aggregates WHERE name = ?').get(name) as AggregateRow | undefined;
    if (row === undefined) return null;
    return { name: row.name, availabilityZone: row.availability_zone, metadata: JSON.parse(row.metadata) as Record<string, string> };
  }

  /** Adds the host; true when added. The freepool is created on first use; other aggregates must exist. */
  addHost(aggregate: string, host: string): boolean {
    return this.db
      .transaction(() => {
        if (aggregate === FREEPOOL) this.ensureAggregate(FREEPOOL, { availabilityZone: null, metadata: {} });
        else if (this.getAggregate(aggregate) === null) throw new AggregateNotFoundError(aggregate);
        const sql = 'INSERT INTO aggregate_hosts (aggregate, host) VALUES (?, ?) ON CONFLICT DO NOTHING';
        return this.db.prepare(sql).run(aggregate, host).changes > 0;
      })
      .immediate();
  }

  /** Removes the host; false when it was not a member. */
  removeHost(aggregate: string, host: string): boolean {
    return this.db.prepare('DELETE FROM aggregate_hosts WHERE aggregate = ? AND host = ?').run(aggregate, host).changes > 0;
  }

  membersOf(aggregate: string): string[] {
    return this.db.prepare('SELECT host FROM aggregate_hosts WHERE aggregate = ? ORDER BY host').pluck().all(aggregate) as string[];
  }

  aggregatesOf(host: string): string[] {
    return this.db.prepare('SELECT aggregate FROM aggregate_hosts WHERE host = ? ORDER BY aggregate').pluck().all(host) as string[];
  }

  /** Hosts in no aggregate count as free: standalone mode has no registration step that would add them. */
  inFreepool(host: string): boolean {
    const aggregates = this.aggregatesOf(host);
    return aggregates.length === 0 || aggregates.includes(FREEPOOL);
  }

  close(): void {
    this.db.close();
  }
}
