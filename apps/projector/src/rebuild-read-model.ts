import type { MikroORM } from '@mikro-orm/core';
import type { EventStore } from '../../../libs/event-store/src/event-store.port.js';
import type { Projection } from './projection.js';
import { ProjectionRunner, type RunnerLogEntry } from './projection-runner.js';

export interface RebuildOptions {
  readonly store: EventStore;
  /** The read model to rebuild; its tables are dropped and recreated. */
  readonly orm: MikroORM;
  readonly projections?: readonly Projection[];
  readonly batchSize?: number;
  readonly log?: (entry: RunnerLogEntry) => void;
}

export interface RebuildResult {
  readonly rebuilt: true;
  /** Checkpoint after the rebuild (the store's head when it started). */
  readonly position: number;
  /** Events replayed. */
  readonly events: number;
}

/**
 * Drops and recreates the read-model schema, then replays the whole log from position 0 with the
 * same runner and projections as the live projector (same batches, same transactions).
 *
 * No projector may run against the same read model meanwhile: it would keep writing into the tables
 * being dropped and its in-memory checkpoint would no longer match the stored one. Stop it first
 * (or rebuild into another target and swap), then restart it; it resumes from the rebuilt checkpoint.
 */
export const rebuildReadModel = async (options: RebuildOptions): Promise<RebuildResult> => {
  await options.orm.schema.refreshDatabase();
  const runner = new ProjectionRunner({
    store: options.store,
    orm: options.orm,
    ...(options.projections === undefined ? {} : { projections: options.projections }),
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    ...(options.log === undefined ? {} : { log: options.log }),
    retryDelayMs: null,
  });
  await runner.start();
  try {
    await runner.caughtUp;
  } finally {
    await runner.stop();
  }
  return { rebuilt: true, position: runner.position(), events: runner.eventsProjected() };
};
