import type { MikroORM } from '@mikro-orm/core';
import type { EventStore } from '#event-store/event-store.port.js';
import { CheckpointEntity, HISTORY_FROM_CHECKPOINT, READ_MODEL_ENTITIES, SCHEMA_VERSION_CHECKPOINT } from '#read-model/index.js';
import { dumpReadModel } from './dump-read-model.js';
import { markHistoryStart, projectBatch } from './projection-batch.js';
import type { Projection } from './projection.js';
import { READ_MODEL_PROJECTIONS } from './projections/index.js';
import { markSchemaVersion } from './read-model-schema.js';

/** Every read-model table's rows, keyed by table name (what dumpReadModel returns). */
export type ReadModelDump = Readonly<Record<string, readonly unknown[]>>;

/**
 * One way the live read model differs from the log's replay: a row only one of them has (`column`
 * null, the other side undefined), or a column whose values differ.
 */
export interface ReadModelDifference {
  readonly table: string;
  readonly key: string;
  readonly column: string | null;
  readonly live: unknown;
  readonly replayed: unknown;
}

export interface ReplayProgress {
  /** Events replayed so far (summed over the passes when projections stopped at different positions). */
  readonly done: number;
  readonly total: number;
}

export interface VerifyOptions {
  readonly store: EventStore;
  /** The live read model, read in one snapshot, checkpoints included. */
  readonly live: ReadModelDump;
  /** An empty read model to replay into (a scratch file): never the live one. */
  readonly scratch: MikroORM;
  readonly batchSize?: number;
  readonly projections?: readonly Projection[];
  readonly onProgress?: (progress: ReplayProgress) => void;
}

export interface VerifyOutcome {
  /** The lowest live checkpoint: the log was replayed this far (each projection to its own checkpoint). */
  readonly position: number;
  readonly head: number;
  readonly rows: number;
  readonly differences: readonly ReadModelDifference[];
}

const DEFAULT_REPLAY_BATCH = 2_000;
const CHECKPOINTS = CheckpointEntity.meta.tableName;

type Row = Readonly<Record<string, unknown>>;

/** JSON with object keys sorted: a jsonb column hands keys back in its own order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Row).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );

const liveCheckpoints = (live: ReadModelDump): Map<string, number> =>
  new Map((live[CHECKPOINTS] ?? []).map((row) => [String((row as Row)['name']), Number((row as Row)['position'])]));

/** Projections grouped by the position they must be replayed to, lowest first. */
const passes = (projections: readonly Projection[], targets: ReadonlyMap<string, number>): [number, Projection[]][] => {
  const groups = new Map<number, Projection[]>();
  for (const projection of projections) {
    const target = targets.get(projection.name) ?? 0;
    if (target > 0) groups.set(target, [...(groups.get(target) ?? []), projection]);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b);
};

/**
 * Replays the log into `orm` with the projector's own batch code, each projection up to its target
 * and not one event further, so the result is what the live projector wrote at those checkpoints.
 */
export const replayToCheckpoints = async (
  store: EventStore,
  orm: MikroORM,
  targets: ReadonlyMap<string, number>,
  options: Pick<VerifyOptions, 'batchSize' | 'projections' | 'onProgress'> = {},
): Promise<void> => {
  const groups = passes(options.projections ?? READ_MODEL_PROJECTIONS, targets);
  const total = groups.reduce((sum, [target]) => sum + target, 0);
  let done = 0;
  for (const [target, projections] of groups) {
    for (let from = 0; from < target;) {
      const events = (await store.readAll({ from, limit: options.batchSize ?? DEFAULT_REPLAY_BATCH })).filter(
        (event) => event.position <= target,
      );
      const last = events.at(-1);
      if (last === undefined) break;
      await projectBatch(orm, projections, events);
      done += last.position - from;
      from = last.position;
      options.onProgress?.({ done, total });
    }
  }
};

/** Each table's key columns: a table of past versions is keyed by two (id, position), which together name one row. */
const primaryKeys = (orm: MikroORM): Map<string, readonly string[]> =>
  new Map(
    READ_MODEL_ENTITIES.map((entity) => {
      const meta = orm.getMetadata().get(entity.meta.className);
      return [meta.tableName, meta.primaryKeys];
    }),
  );

const rowDifferences = (table: string, key: string, live: Row, replayed: Row): ReadModelDifference[] =>
  [...new Set([...Object.keys(replayed), ...Object.keys(live)])]
    .filter((column) => canonical(live[column]) !== canonical(replayed[column]))
    .map((column) => ({ table, key, column, live: live[column], replayed: replayed[column] }));

const tableDifferences = (
  table: string,
  primaryKey: readonly string[],
  live: readonly unknown[],
  replayed: readonly unknown[],
): ReadModelDifference[] => {
  const keyOf = (row: Row): string => primaryKey.map((column) => String(row[column])).join(' ');
  const byKey = (rows: readonly unknown[]) => new Map(rows.map((row) => [keyOf(row as Row), row as Row]));
  const [liveRows, replayedRows] = [byKey(live), byKey(replayed)];
  const keys = [...new Set([...replayedRows.keys(), ...liveRows.keys()])].sort();
  return keys.flatMap((key) => {
    const [l, r] = [liveRows.get(key), replayedRows.get(key)];
    if (l === undefined || r === undefined) return [{ table, key, column: null, live: l, replayed: r }];
    return rowDifferences(table, key, l, r);
  });
};

/** Every difference between two dumps, table by table (in READ_MODEL_ENTITIES order), row by primary key. */
export const diffReadModels = (orm: MikroORM, live: ReadModelDump, replayed: ReadModelDump): ReadModelDifference[] =>
  [...primaryKeys(orm)].flatMap(([table, primaryKey]) => tableDifferences(table, primaryKey, live[table] ?? [], replayed[table] ?? []));

/**
 * Replays the whole log into `scratch` up to the live read model's checkpoints and compares every
 * table, checkpoints included: a live projection stopped on an event shows as its failure columns, a
 * checkpoint beyond the log's head (a read model built from another log) as its position.
 */
export const verifyReadModel = async (options: VerifyOptions): Promise<VerifyOutcome> => {
  const head = await options.store.headPosition();
  const checkpoints = liveCheckpoints(options.live);
  const targets = new Map([...checkpoints].map(([name, position]) => [name, Math.min(position, head)]));
  const projections = options.projections ?? READ_MODEL_PROJECTIONS;
  // a projector started on an empty read model keeps every past version from position 0: so does the replay
  if (checkpoints.has(HISTORY_FROM_CHECKPOINT))
    await markHistoryStart(
      options.scratch,
      projections.map((projection) => projection.name),
    );
  // not the log's: the version the live rows were projected at
  const schemaVersion = checkpoints.get(SCHEMA_VERSION_CHECKPOINT);
  if (schemaVersion !== undefined) await markSchemaVersion(options.scratch, schemaVersion);
  await replayToCheckpoints(options.store, options.scratch, targets, options);
  const replayed = await dumpReadModel(options.scratch);
  const differences = diffReadModels(options.scratch, options.live, replayed);
  const rows = Object.values(replayed).reduce((sum, table) => sum + table.length, 0);
  return { position: Math.min(...projections.map((projection) => targets.get(projection.name) ?? 0)), head, rows, differences };
};
