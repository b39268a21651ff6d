import { MikroORM, type Options } from '@mikro-orm/core';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { BindingBetterSqliteDriver, BindingPostgreSqlDriver } from './bound-drivers.js';
import { readModelEntities } from './entities.js';
import { fillLeaseSortColumns } from './lease-sort-columns.js';

export type ReadModelDatabase =
  | { readonly kind: 'sqlite'; readonly file: string }
  /** `schema`: the PostgreSQL schema holding the tables (default: the connection's, usually public). */
  | { readonly kind: 'postgresql'; readonly url: string; readonly schema?: string };

/** Reads LEASEHOLD_READ_MODEL_URL (postgres://...) or defaults to SQLite under the data folder. */
export const readModelDatabaseFromEnv = (dataDir: string, env: NodeJS.ProcessEnv = process.env): ReadModelDatabase => {
  const url = env.LEASEHOLD_READ_MODEL_URL;
  if (url !== undefined && url !== '') return { kind: 'postgresql', url };
  return { kind: 'sqlite', file: `${dataDir}/read-model.sqlite` };
};

/** How a process uses its read-model connection. */
export interface ReadModelSettings {
  /** Print every SQL statement to stdout (`[query] ...`): for operators looking at what a request reads. */
  readonly logQueries?: boolean;
  /**
   * Maps every entity to `<prefix><table>`: a rebuild's copy of the tables beside the live ones (see apps/projector's sqlite-copy-
   * tables.ts).
   */
  readonly tablePrefix?: string;
  /** SQLite: pages the connection keeps in memory (default SQLite's 2 MiB): the projector writes all over big tables and their indexes. */
  readonly cacheMiB?: number;
}

/** Fresh entity definitions for the database `kind`, their tables renamed with `prefix`. */
const entitiesWithPrefix = (prefix: string, kind: ReadModelDatabase['kind']): ReturnType<typeof readModelEntities> => {
  const entities = readModelEntities(kind);
  if (prefix === '') return entities;
  for (const entity of entities) {
    const table = `${prefix}${entity.meta.tableName}`;
    entity.meta.tableName = table;
    entity.meta.collection = table;
  }
  return entities;
};

const options = (db: ReadModelDatabase, settings: ReadModelSettings = {}): Options => {
  const debug: Options['debug'] = settings.logQueries === true ? ['query'] : false;
  const common = {
    entities: entitiesWithPrefix(settings.tablePrefix ?? '', db.kind),
    allowGlobalContext: false,
    debug,
    colors: false,
    discovery: { warnWhenNoEntities: true },
  };
  if (db.kind === 'postgresql')
    return { ...common, driver: BindingPostgreSqlDriver, clientUrl: db.url, ...(db.schema === undefined ? {} : { schema: db.schema }) };
  if (db.file !== ':memory:') mkdirSync(dirname(db.file), { recursive: true });
  return { ...common, driver: BindingBetterSqliteDriver, dbName: db.file };
};

/**
 * Opens the read-model database and makes sure its tables exist. The API and the projector both do
 * this at start; on an empty database one of them loses the race to create a table and tries again.
 */
export const openReadModel = async (db: ReadModelDatabase, attempts = 5, settings: ReadModelSettings = {}): Promise<MikroORM> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await openOnce(db, settings);
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
};

/**
 * Connects to an existing read model as it is, creating and altering nothing (for tools that only read
 * it: a reader that updated the schema of an older release's read model would change it).
 */
export const connectReadModel = (db: ReadModelDatabase, settings: ReadModelSettings = {}): Promise<MikroORM> =>
  MikroORM.init(options(db, settings));

/**
 * Tells PostgreSQL's planner that md5(project_id) and project_id go together: a project's page filters
 * on both (see leaseOrderIndexes) and, taking them for independent, the planner would expect a
 * project's leases to be a few and sort them rather than walk its order index. Not an index, so
 * MikroORM's schema update does not manage it.
 */
const createLeaseStatistics = async (orm: MikroORM, schema: string | undefined): Promise<void> => {
  const prefix = schema === undefined ? '' : `"${schema.replaceAll('"', '""')}".`;
  await orm.em
    .getConnection()
    .execute(
      `create statistics if not exists ${prefix}lh_leases_project_md5 (dependencies) on project_id, md5(project_id) from ${prefix}lh_leases`,
    );
};

const openOnce = async (db: ReadModelDatabase, settings: ReadModelSettings): Promise<MikroORM> => {
  const orm = await MikroORM.init(options(db, settings));
  if (db.kind === 'sqlite') {
    const connection = orm.em.getConnection();
    await connection.execute('pragma journal_mode = wal');
    await connection.execute('pragma busy_timeout = 5000');
    // in WAL mode a commit then waits for no disk flush; a power cut may take the last batches back, rows and
    // checkpoints together (the file stays consistent), and the projector projects them again from the log
    await connection.execute('pragma synchronous = normal');
    if (settings.cacheMiB !== undefined) await connection.execute(`pragma cache_size = -${Math.round(settings.cacheMiB * 1024)}`);
  }
  try {
    // never drops a table: another read model (a rebuild's copy) may live in the same database
    await orm.schema.updateSchema({
      dropTables: false,
      ...(db.kind === 'postgresql' && db.schema !== undefined ? { schema: db.schema } : {}),
    });
    if (db.kind === 'postgresql') await createLeaseStatistics(orm, db.schema);
    await fillLeaseSortColumns(orm);
  } catch (error) {
    await orm.close();
    throw error;
  }
  return orm;
};
