import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { FakeNeutron } from './neutron.fake.js';
import { FakeNova } from './nova.fake.js';
import { FakePlacement } from './placement.fake.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS aggregates (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    availability_zone TEXT,
    metadata TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS aggregate_hosts (
    aggregate TEXT NOT NULL REFERENCES aggregates (name),
    host TEXT NOT NULL,
    PRIMARY KEY (aggregate, host)
  );
  CREATE INDEX IF NOT EXISTS aggregate_hosts_host ON aggregate_hosts (host);
  CREATE TABLE IF NOT EXISTS flavors (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    vcpus INTEGER NOT NULL,
    ram INTEGER NOT NULL,
    disk INTEGER NOT NULL,
    ephemeral INTEGER NOT NULL,
    is_public INTEGER NOT NULL,
    extra_specs TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS flavor_access (
    flavor_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    PRIMARY KEY (flavor_id, project_id)
  );
  CREATE TABLE IF NOT EXISTS server_groups (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    project_id TEXT NOT NULL,
    policy TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS server_groups_name ON server_groups (project_id, name);
  CREATE TABLE IF NOT EXISTS resource_providers (
    uuid TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    parent_provider_uuid TEXT
  );
  CREATE TABLE IF NOT EXISTS resource_classes (
    name TEXT PRIMARY KEY
  );
  CREATE TABLE IF NOT EXISTS inventories (
    resource_provider_uuid TEXT NOT NULL,
    resource_class TEXT NOT NULL,
    total INTEGER NOT NULL,
    reserved INTEGER NOT NULL,
    min_unit INTEGER NOT NULL,
    max_unit INTEGER NOT NULL,
    step_size INTEGER NOT NULL,
    allocation_ratio REAL NOT NULL,
    PRIMARY KEY (resource_provider_uuid, resource_class)
  );
  CREATE INDEX IF NOT EXISTS inventories_class ON inventories (resource_class);
  CREATE TABLE IF NOT EXISTS floating_ips (
    id TEXT PRIMARY KEY,
    floating_ip_address TEXT NOT NULL,
    floating_network_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    port_id TEXT,
    tags TEXT NOT NULL,
    UNIQUE (floating_network_id, floating_ip_address)
  );
  CREATE TABLE IF NOT EXISTS networks (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    project_id TEXT NOT NULL,
    network_type TEXT NOT NULL,
    physical_network TEXT,
    segment_id INTEGER,
    -- Neutron allows one network per segment: [type, physical network, id] as JSON
    segment TEXT NOT NULL UNIQUE,
    tags TEXT NOT NULL
  );
`;

/**
 * Files written before aggregates had Nova's integer ids: rebuild the table the way SQLite recommends
 * (foreign keys off meanwhile, since aggregate_hosts refers to it).
 */
const MIGRATE_AGGREGATE_IDS = `
  CREATE TABLE aggregates_with_ids (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    availability_zone TEXT,
    metadata TEXT NOT NULL
  );
  INSERT INTO aggregates_with_ids (name, availability_zone, metadata) SELECT name, availability_zone, metadata FROM aggregates ORDER BY rowid;
  DROP TABLE aggregates;
  ALTER TABLE aggregates_with_ids RENAME TO aggregates;
`;

const migrate = (db: Database.Database): void => {
  const columns = db.prepare("SELECT name FROM pragma_table_info('aggregates')").pluck().all() as string[];
  if (columns.length > 0 && !columns.includes('id')) db.exec(MIGRATE_AGGREGATE_IDS);
  db.exec(SCHEMA);
};

/**
 * FAKE of the OpenStack services Blazar's plugins drive, for the standalone mode where no OpenStack
 * runs: Nova (aggregates, flavors, flavor access, server groups), Placement (resource providers,
 * resource classes, inventories) and Neutron (floating IPs, provider networks), shaped after the real APIs and persisted
 * in one SQLite file so that several processes and restarts see the same "cloud". Every operation is
 * idempotent and reports whether it changed anything. No servers ever run here.
 */
export class StandaloneCloud {
  readonly nova: FakeNova;
  readonly placement: FakePlacement;
  readonly neutron: FakeNeutron;

  private constructor(private readonly db: Database.Database) {
    this.nova = new FakeNova(db);
    this.placement = new FakePlacement(db);
    this.neutron = new FakeNeutron(db);
  }

  static open(options: { readonly file: string }): StandaloneCloud {
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    const db = new Database(options.file, { timeout: 5000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = OFF');
    db.transaction(() => migrate(db)).immediate();
    db.pragma('foreign_keys = ON');
    return new StandaloneCloud(db);
  }

  /**
   * Runs one adapter call in one transaction: its steps (each a statement or a transaction of its own,
   * then a savepoint) commit once, not one by one: a commit costs more than most steps. The
   * adapters are async only by the port's shape: their steps run synchronously, within the call (a step
   * after an await would commit on its own, as before). A step that fails makes the call's outcome,
   * reported with the steps done before it, so those are committed too, as they were one by one.
   */
  atomically<T>(call: () => Promise<T>): Promise<T> {
    let result: Promise<T> | undefined;
    this.db
      .transaction(() => {
        result = call();
      })
      .immediate();
    return result as Promise<T>;
  }

  close(): void {
    this.db.close();
  }
}
