import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { decodeStoredText } from '#event-store/stored-text.js';
import { LeaseEntity } from './entities.js';
import type { LeaseView } from './lease-view.js';

const BATCH = 500;

/**
 * Fills the created_at and updated_at columns of lease rows an older release wrote (null there), from
 * each row's document, parsed here rather than by the database: PostgreSQL's json operators refuse a
 * document holding an escaped U+0000, which a lease name may. Once per read model; the projector
 * writes the columns of every row since. Walks the rows in id order, so that a document without a
 * creation date (its row stays null, and sorts as the empty string) is passed, not read again forever.
 * Returns how many rows it filled.
 */
export const fillLeaseSortColumns = async (orm: MikroORM): Promise<number> => {
  let filled = 0;
  let after: string | null = null;
  for (;;) {
    const em = orm.em.fork() as SqlEntityManager;
    const rows: { id: string; doc: string }[] = await em
      .getConnection()
      .execute<{ id: string; doc: string }[]>(
        `select id, cast(doc as text) as doc from lh_leases where created_at is null${after === null ? '' : ' and id > ?'} order by id limit ${BATCH}`,
        after === null ? [] : [after],
        'all',
      );
    const last = rows.at(-1);
    if (last === undefined) return filled;
    await em.transactional(async (tx) => {
      for (const row of rows) {
        const doc = JSON.parse(row.doc) as Partial<LeaseView>;
        if (typeof doc.created_at !== 'string') continue;
        await tx.nativeUpdate(
          LeaseEntity,
          { id: decodeStoredText(row.id) },
          { createdAt: doc.created_at, updatedAt: doc.updated_at ?? null },
        );
        filled += 1;
      }
    });
    after = last.id;
  }
};
