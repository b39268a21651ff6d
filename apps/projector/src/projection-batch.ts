import { BetterSqlitePlatform } from '@mikro-orm/better-sqlite';
import { type Connection, type EntityManager, LockMode, type MikroORM } from '@mikro-orm/core';
import type { FoldableEvent } from '#event-store/event-store.port.js';
import {
  CheckpointEntity,
  type CheckpointRow,
  HISTORY_FROM_CHECKPOINT,
  LEGACY_READ_MODEL_CHECKPOINT,
  READ_MODELS,
} from '#read-model/index.js';
import { BatchRows } from './batch-rows.js';
import type { Projection } from './projection.js';
import { describeError } from '#domain/index.js';

/** The event a projection could not project, and why. */
export interface ProjectionFault {
  readonly position: number;
  readonly eventType: string;
  readonly error: unknown;
}

/** Where one projection stands after a batch: its checkpoint, and the fault that stopped it there, if any. */
export interface ProjectionOutcome {
  readonly position: number;
  readonly fault: ProjectionFault | null;
}

/** The stored checkpoint rows of these projections (a projection without one is at 0). */
const checkpointRows = async (em: EntityManager, names: readonly string[], lock = false): Promise<Map<string, CheckpointRow>> => {
  const rows = await em.find(CheckpointEntity, { name: { $in: [...names] } }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  return new Map(rows.map((row) => [row.name, row]));
};

/** Each projection's checkpoint: the position of the last event it projected (0 if none). */
export const readCheckpoints = async (em: EntityManager, names: readonly string[]): Promise<Map<string, number>> => {
  const rows = await checkpointRows(em.fork(), names);
  return new Map(names.map((name) => [name, Number(rows.get(name)?.position ?? 0)]));
};

/** The read model as a whole has reached the lowest of its projections' checkpoints. */
export const readCheckpoint = async (em: EntityManager, names: readonly string[] = READ_MODELS): Promise<number> =>
  Math.min(...(await readCheckpoints(em, names)).values());

/**
 * Earlier releases kept one checkpoint for every table; an upgrade starts each projection there
 * instead of replaying the log onto rows that already hold it.
 */
export const migrateLegacyCheckpoint = async (orm: MikroORM, names: readonly string[]): Promise<void> => {
  await orm.em.fork().transactional(async (tx) => {
    const legacy = await tx.findOne(CheckpointEntity, { name: LEGACY_READ_MODEL_CHECKPOINT });
    if (legacy === null) return;
    const rows = await checkpointRows(tx, names);
    for (const name of names) {
      if (!rows.has(name)) {
        await tx.insert(CheckpointEntity, {
          name,
          position: Number(legacy.position),
          failedPosition: null,
          failedEventType: null,
          error: null,
          failedAt: null,
        });
      }
    }
    await tx.nativeDelete(CheckpointEntity, { name: LEGACY_READ_MODEL_CHECKPOINT });
  });
};

/**
 * Past versions of rows are kept from the first start of a projector that keeps them: a read model
 * projected by an earlier release has none before its checkpoints then, and says so (see
 * HISTORY_FROM_CHECKPOINT); a new one has them all. Two projectors starting at once agree.
 */
export const markHistoryStart = async (orm: MikroORM, names: readonly string[]): Promise<void> => {
  const em = orm.em.fork();
  if ((await em.findOne(CheckpointEntity, { name: HISTORY_FROM_CHECKPOINT })) !== null) return;
  const from = Math.max(0, ...(await readCheckpoints(em, names)).values());
  const row = { name: HISTORY_FROM_CHECKPOINT, position: from, failedPosition: null, failedEventType: null, error: null, failedAt: null };
  await em.upsert(CheckpointEntity, row, { onConflictAction: 'ignore' });
};

let savepoints = 0;

/** Folds the events of `events` that `projection` handles into `rows` (read in bulk, changed in memory). */
export const foldEvents = async (rows: BatchRows, projection: Projection, events: readonly FoldableEvent[]): Promise<void> => {
  const wanted = events.filter((event) => projection.canHandle.includes(event.type));
  if (wanted.length === 0) return;
  await projection.preload?.(rows, wanted);
  for (const event of wanted) {
    const applying = projection.apply(rows, event);
    if (applying !== undefined) await applying;
  }
};

/** foldEvents, then writes the rows in the batch's transaction. */
const foldInto = async (rows: BatchRows, projection: Projection, events: readonly FoldableEvent[]): Promise<void> => {
  await foldEvents(rows, projection, events);
  await rows.write();
};

/**
 * Applies `events` for one projection inside a savepoint of the batch transaction: the rows they
 * touch are read in bulk, folded in memory and written once (see BatchRows). A failure rolls back
 * this projection's part only.
 */
const applyInSavepoint = async (tx: EntityManager, projection: Projection, events: readonly FoldableEvent[]): Promise<void> => {
  const connection: Connection = tx.getConnection();
  const ctx: unknown = tx.getTransactionContext();
  const name = `projection_${++savepoints}`;
  await connection.execute(`savepoint ${name}`, [], 'run', ctx);
  try {
    await foldInto(new BatchRows(tx), projection, events);
    await connection.execute(`release savepoint ${name}`, [], 'run', ctx);
  } catch (error) {
    await connection.execute(`rollback to savepoint ${name}`, [], 'run', ctx);
    throw error;
  }
};

/**
 * Projects the events after `from` for one projection. When the whole run fails, the events are
 * applied one at a time, so that everything before the faulty event is kept and the fault names the
 * exact event; the projection never skips it.
 */
const advance = async (
  tx: EntityManager,
  projection: Projection,
  from: number,
  events: readonly FoldableEvent[],
): Promise<ProjectionOutcome> => {
  // the checkpoint is behind the batch (a rebuild swapped in an older copy): the caller catches up first
  if ((events[0]?.position ?? 0) > from + 1) return { position: from, fault: null };
  const pending = events.filter((event) => event.position > from);
  const last = pending.at(-1);
  if (last === undefined) return { position: from, fault: null };
  if (!pending.some((event) => projection.canHandle.includes(event.type))) return { position: last.position, fault: null };
  try {
    await applyInSavepoint(tx, projection, pending);
    return { position: last.position, fault: null };
  } catch (error) {
    if (pending.length === 1) return { position: from, fault: { position: last.position, eventType: last.type, error } };
  }
  let position = from;
  for (const event of pending) {
    try {
      await applyInSavepoint(tx, projection, [event]);
      position = event.position;
    } catch (error) {
      return { position, fault: { position: event.position, eventType: event.type, error } };
    }
  }
  return { position, fault: null };
};

const checkpointRow = (name: string, outcome: ProjectionOutcome, previous: CheckpointRow | undefined, now: string): CheckpointRow => {
  const { fault } = outcome;
  const samePlace = fault !== null && previous?.failedPosition !== null && Number(previous?.failedPosition) === fault.position;
  return {
    name,
    position: outcome.position,
    failedPosition: fault?.position ?? null,
    failedEventType: fault?.eventType ?? null,
    error: fault === null ? null : describeError(fault.error),
    failedAt: fault === null ? null : samePlace ? (previous?.failedAt ?? now) : now,
  };
};

/**
 * On SQLite the batch takes the write lock before it reads anything: a transaction that reads first
 * fails at its first write, at once and without waiting for the lock (SQLITE_BUSY_SNAPSHOT), when
 * another connection wrote in between (an operator, a rebuild swapping its copy in). On PostgreSQL
 * the checkpoint rows are locked instead (FOR UPDATE).
 */
const takeWriteLock = async (tx: EntityManager): Promise<void> => {
  if (!(tx.getPlatform() instanceof BetterSqlitePlatform)) return;
  await tx
    .getConnection()
    .execute(`update ${CheckpointEntity.meta.tableName} set position = position where 0`, [], 'run', tx.getTransactionContext());
};

/**
 * Projects one batch in one transaction: each projection in its own savepoint, its rows and its
 * checkpoint committed together, so a projection that cannot project an event stops right before it
 * (recording why) while the others go on. Events at or below a projection's stored checkpoint are
 * skipped, so a redelivered batch is a no-op. The checkpoint rows are locked (FOR UPDATE on
 * PostgreSQL; SQLite serialises writers anyway): a second projector on the same read model waits, then
 * skips what this one committed.
 */
export const projectBatch = async (
  orm: MikroORM,
  projections: readonly Projection[],
  events: readonly FoldableEvent[],
  now: () => string = () => new Date().toISOString(),
): Promise<Map<string, ProjectionOutcome>> => {
  const names = projections.map((projection) => projection.name);
  return orm.em.fork().transactional(async (tx) => {
    await takeWriteLock(tx);
    const stored = await checkpointRows(tx, names, true);
    const outcomes = new Map<string, ProjectionOutcome>();
    for (const projection of projections) {
      const previous = stored.get(projection.name);
      const from = Number(previous?.position ?? 0);
      const outcome = await advance(tx, projection, from, events);
      outcomes.set(projection.name, outcome);
      const unchanged = outcome.position === from && outcome.fault === null && (previous === undefined || previous.failedPosition === null);
      if (unchanged && previous !== undefined) continue;
      const row = checkpointRow(projection.name, outcome, previous, now());
      if (previous === undefined) await tx.insert(CheckpointEntity, row);
      else await tx.nativeUpdate(CheckpointEntity, { name: projection.name }, row);
    }
    return outcomes;
  });
};
