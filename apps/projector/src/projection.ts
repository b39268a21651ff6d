import type { EntityManager, EntitySchema, FilterQuery } from '@mikro-orm/core';
import type { RecordedEvent } from '#event-store/event-store.port.js';

/**
 * One read-model projection.
 *
 * `apply` runs inside the runner's per-batch transaction, with that transaction's EntityManager in
 * FlushMode.COMMIT: every change of the whole batch stays in one unit of work and is flushed once,
 * right before the checkpoint is written in the same transaction. Hence, within a batch:
 *  - look rows up by primary key with `findRow` (identity-map hits, and removed rows read as absent);
 *    a query on other columns would not see the batch's own unflushed changes;
 *  - create with `em.create`, change with `em.assign` (or plain assignment), delete with `em.remove`.
 * A projection must derive everything from the event (never the wall clock or random ids) so that a
 * rebuild from the log is byte-identical to the live read model.
 */
export interface Projection {
  readonly name: string;
  /** Event types this projection wants; the runner never calls `apply` with another type. */
  readonly canHandle: readonly string[];
  apply(em: EntityManager, event: RecordedEvent): Promise<void>;
}

/** A row by primary key as the batch left it so far: null if it does not exist or was removed earlier in the batch. */
export const findRow = async <Row extends object>(
  em: EntityManager,
  entity: EntitySchema<Row>,
  primaryKey: FilterQuery<Row>,
): Promise<Row | null> => {
  const row = await em.findOne(entity, primaryKey);
  return row !== null && em.getUnitOfWork().getRemoveStack().has(row) ? null : (row);
};
