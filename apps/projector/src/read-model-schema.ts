import type { MikroORM } from '@mikro-orm/core';
import type { EventStore } from '#event-store/event-store.port.js';
import { CheckpointEntity, READ_MODEL_SCHEMA_VERSION, SCHEMA_VERSION_CHECKPOINT } from '#read-model/index.js';
import { rebuildReadModel } from './rebuild-read-model.js';

/**
 * The schema version a read model's rows were projected at: its row; with none, a read model that has
 * checkpoints was projected before versions were recorded (version 1), and an empty one is this release's.
 */
export const storedSchemaVersion = async (orm: MikroORM, current: number): Promise<number> => {
  const em = orm.em.fork();
  const row = await em.findOne(CheckpointEntity, { name: SCHEMA_VERSION_CHECKPOINT });
  if (row !== null) return Number(row.position);
  return (await em.count(CheckpointEntity, {})) === 0 ? current : 1;
};

export const markSchemaVersion = async (orm: MikroORM, version: number): Promise<void> => {
  const row = {
    name: SCHEMA_VERSION_CHECKPOINT,
    position: version,
    failedPosition: null,
    failedEventType: null,
    error: null,
    failedAt: null,
  };
  await orm.em.fork().upsert(CheckpointEntity, row);
};

/** A read model a later release projected: this one cannot tell what its rows mean. */
export class ReadModelTooNewError extends Error {
  override readonly name = 'ReadModelTooNewError';

  constructor(version: number, current: number) {
    super(
      `the read model was projected at schema version ${version}, newer than this release's ${current}: upgrade the projector, or rebuild the read model with this release (npm run rebuild-read-models)`,
    );
  }
}

export interface ReadModelUpgrade {
  readonly store: EventStore;
  readonly orm: MikroORM;
  /** This release's version (READ_MODEL_SCHEMA_VERSION). */
  readonly current?: number;
  readonly writerThread?: boolean;
  readonly log?: (entry: Readonly<{ event: string; [detail: string]: unknown }>) => void;
}

/**
 * At the projector's start: a read model of an older schema version is rebuilt from the whole log
 * (readers keep its old rows until the new ones are whole), one of a newer version is refused, and
 * the version is recorded. Says whether it rebuilt.
 */
export const upgradeReadModel = async ({
  store,
  orm,
  current = READ_MODEL_SCHEMA_VERSION,
  writerThread,
  log,
}: ReadModelUpgrade): Promise<boolean> => {
  const stored = await storedSchemaVersion(orm, current);
  if (stored > current) throw new ReadModelTooNewError(stored, current);
  const rebuild = stored < current;
  if (rebuild) {
    log?.({ event: 'rebuild', reason: `read model schema version ${stored}, this release projects ${current}` });
    const result = await rebuildReadModel({
      store,
      orm,
      ...(writerThread === undefined ? {} : { writerThread }),
      ...(log === undefined ? {} : { log }),
    });
    log?.({ event: 'rebuilt', position: result.position });
  }
  await markSchemaVersion(orm, current);
  return rebuild;
};
