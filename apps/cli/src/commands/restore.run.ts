import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LogBackupError, restoreLog } from '#event-store/sqlite/sqlite-backup.js';
import { rebuildReadModel } from '#projector/index.js';
import { openReadModel, readModelDatabaseFromEnv } from '#read-model/index.js';
import { type CliContext, UsageError, writeOut } from '../cli-context.js';
import { refuseExternalLog } from '../postgresql-backup.js';
import { SHOWN_DIFFERENCES } from './verify.command.js';
import { runVerify } from './verify.run.js';

/** Anything in the folder (a log, a read model, a webhook queue) belongs to another ledger than the one restored. */
const refuseUnlessEmpty = (dataDir: string): void => {
  const present = existsSync(dataDir) ? readdirSync(dataDir) : [];
  if (present.length > 0) {
    throw new UsageError(`${dataDir} is not empty (${present.sort().join(', ')}): restore only into an empty data folder`);
  }
};

const restoredLog = (backup: string, target: string, toPosition: number | null): ReturnType<typeof restoreLog> => {
  try {
    return restoreLog(backup, target, toPosition);
  } catch (error) {
    throw error instanceof LogBackupError ? new UsageError(error.message) : error;
  }
};

/** The read model is derived: built from the restored log, never carried over from the ledger backed up. */
const buildReadModel = async (context: CliContext): Promise<number> => {
  const store = await context.openStore();
  try {
    const orm = await openReadModel(readModelDatabaseFromEnv(context.dataDir(), context.env));
    try {
      return (await rebuildReadModel({ store, orm })).position;
    } finally {
      await orm.close();
    }
  } finally {
    await store.close();
  }
};

/** The work of `leasehold restore`, loaded only for it. */
export const runRestore = async (context: CliContext, file: string, toPosition: number | null): Promise<void> => {
  refuseExternalLog(context.env, 'restore', file);
  const dataDir = context.dataDir();
  refuseUnlessEmpty(dataDir);
  const target = join(dataDir, 'events.sqlite');
  const { position, events } = restoredLog(file, target, toPosition);
  await writeOut(context.stdout, `restored ${events} events, up to position ${position}, into ${target}\n`);
  await writeOut(context.stdout, `read model built from the restored log, at position ${await buildReadModel(context)}\n`);
  await runVerify(context, SHOWN_DIFFERENCES);
};
