import { type EntityManager, type MikroORM, wrap } from '@mikro-orm/core';
import { READ_MODEL_ENTITIES } from '#read-model/index.js';

export interface DumpOptions {
  /** Include lh_checkpoints (default true: a live read model and a rebuild at the same head agree on it too). */
  readonly includeCheckpoint?: boolean;
}

const comparePrimaryKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Every read-model table as plain objects, keyed by table name, rows sorted by primary key (in JS, so
 * the order does not depend on the database's collation). For comparing read models (tests, `leasehold
 * verify`); `em` reads it inside a transaction of the caller's (one snapshot of every table).
 */
export const dumpReadModel = async (orm: MikroORM, options: DumpOptions = {}, em: EntityManager = orm.em.fork()): Promise<Record<string, unknown[]>> => {
  const dump: Record<string, unknown[]> = {};
  for (const schema of READ_MODEL_ENTITIES) {
    const meta = orm.getMetadata().get(schema.meta.className);
    if (options.includeCheckpoint === false && meta.className === 'CheckpointRow') continue;
    const primaryKey = meta.primaryKeys[0] as string;
    const rows = (await em.find<object>(meta.className, {})).map((row) => wrap(row, true).toPOJO() as Record<string, unknown>);
    rows.sort((a, b) => comparePrimaryKeys(String(a[primaryKey]), String(b[primaryKey])));
    dump[meta.tableName] = rows;
  }
  return dump;
};
