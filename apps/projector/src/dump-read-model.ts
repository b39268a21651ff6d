import { type EntityManager, type MikroORM, wrap } from '@mikro-orm/core';
import { READ_MODEL_ENTITIES } from '#read-model/index.js';

export interface DumpOptions {
  /** Include lh_checkpoints (default true: a live read model and a rebuild at the same head agree on it too). */
  readonly includeCheckpoint?: boolean;
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** By each primary-key column in turn (a row version is keyed by its row's id and the position it starts at). */
const comparePrimaryKeys =
  (keys: readonly string[]) =>
  (a: Record<string, unknown>, b: Record<string, unknown>): number => {
    for (const key of keys) {
      const [x, y] = [a[key], b[key]];
      const order = typeof x === 'number' && typeof y === 'number' ? x - y : byCodePoint(String(x), String(y));
      if (order !== 0) return order;
    }
    return 0;
  };

/**
 * Every read-model table as plain objects, keyed by table name, rows sorted by primary key (in JS, so
 * the order does not depend on the database's collation). For comparing read models (tests, `leasehold
 * verify`); `em` reads it inside a transaction of the caller's (one snapshot of every table).
 */
export const dumpReadModel = async (
  orm: MikroORM,
  options: DumpOptions = {},
  em: EntityManager = orm.em.fork(),
): Promise<Record<string, unknown[]>> => {
  const dump: Record<string, unknown[]> = {};
  for (const schema of READ_MODEL_ENTITIES) {
    const meta = orm.getMetadata().get(schema.meta.className);
    if (options.includeCheckpoint === false && meta.className === 'CheckpointRow') continue;
    const rows = (await em.find<object>(meta.className, {})).map((row) => wrap(row, true).toPOJO() as Record<string, unknown>);
    rows.sort(comparePrimaryKeys(meta.primaryKeys));
    dump[meta.tableName] = rows;
  }
  return dump;
};
