import { IsolationLevel, type MikroORM } from '@mikro-orm/core';
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ReadModelDifference, type ReadModelDump, dumpReadModel, verifyReadModel } from '#projector/index.js';
import { type ReadModelDatabase, connectReadModel, openReadModel, readModelDatabaseFromEnv } from '#read-model/index.js';
import { type CliContext, UsageError, writeOut } from '../cli-context.js';
import { progressBar } from '../progress-bar.js';

const VALUE_CHARS = 200;

const dumpOf = async (db: ReadModelDatabase): Promise<ReadModelDump> => {
  const orm = await connectReadModel(db);
  try {
    // PostgreSQL: every table from one snapshot, in a transaction that cannot write
    const options = db.kind === 'postgresql' ? { readOnly: true, isolationLevel: IsolationLevel.REPEATABLE_READ } : {};
    return await orm.em.fork().transactional((tx) => dumpReadModel(orm, {}, tx), options);
  } finally {
    await orm.close();
  }
};

/** The live read model in one consistent snapshot; a SQLite file is first copied (backup API) from a read-only connection. */
const liveDump = async (db: ReadModelDatabase, scratchDir: string): Promise<ReadModelDump> => {
  if (db.kind === 'postgresql') return dumpOf(db);
  if (!existsSync(db.file))
    throw new UsageError(`no read model at ${db.file} (set --data-dir, LEASEHOLD_DATA_DIR or LEASEHOLD_READ_MODEL_URL)`);
  const copy = join(scratchDir, 'live-read-model.sqlite');
  const source = new Database(db.file, { readonly: true, fileMustExist: true });
  try {
    await source.backup(copy);
  } finally {
    source.close();
  }
  return dumpOf({ kind: 'sqlite', file: copy });
};

/** An empty read model in the scratch folder; it is thrown away, so it need not survive a crash. */
const scratchReadModel = async (scratchDir: string): Promise<MikroORM> => {
  const orm = await openReadModel({ kind: 'sqlite', file: join(scratchDir, 'replayed-read-model.sqlite') });
  await orm.em.getConnection().execute('pragma synchronous = off');
  return orm;
};

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}...` : text;
};

const describe = (d: ReadModelDifference): string => {
  if (d.live === undefined) return `${d.table} ${d.key}: missing from the live read model`;
  if (d.replayed === undefined) return `${d.table} ${d.key}: in the live read model, but the log does not produce it`;
  return `${d.table} ${d.key} ${d.column ?? ''}: live ${shown(d.live)}, log ${shown(d.replayed)}`;
};

const report = async (context: CliContext, differences: readonly ReadModelDifference[], limit: number): Promise<void> => {
  const lines = differences.slice(0, limit).map(describe);
  if (differences.length > limit) lines.push(`... and ${differences.length - limit} more`);
  await writeOut(context.stdout, lines.map((line) => `${line}\n`).join(''));
};

/** The work of `leasehold verify`, loaded only for it: MikroORM and the projections take most of a second to load. */
export const runVerify = async (context: CliContext, maxDifferences: number): Promise<void> => {
  const store = await context.openStore();
  const scratchDir = mkdtempSync(join(tmpdir(), 'leasehold-verify-'));
  const progress = progressBar(context, 'replay');
  try {
    const live = await liveDump(readModelDatabaseFromEnv(context.dataDir(), context.env), scratchDir);
    const scratch = await scratchReadModel(scratchDir);
    const outcome = await verifyReadModel({ store, live, scratch, onProgress: ({ done, total }) => progress.update(done, total) }).finally(
      () => scratch.close(),
    );
    progress.finish();
    await report(context, outcome.differences, maxDifferences);
    const where = `at position ${outcome.position} (the log's head: ${outcome.head})`;
    if (outcome.differences.length === 0) {
      await writeOut(context.stdout, `ok: the live read model matches the log replayed ${where}, ${outcome.rows} rows\n`);
    } else {
      await writeOut(
        context.stdout,
        `${outcome.differences.length} difference(s) between the live read model and the log replayed ${where}\n`,
      );
      context.exitCode = 1;
    }
  } finally {
    progress.finish();
    await store.close();
    rmSync(scratchDir, { recursive: true, force: true });
  }
};
