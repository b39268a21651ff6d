import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { backupLog } from '#event-store/sqlite/sqlite-backup.js';
import { type CliContext, UsageError, writeOut } from '../cli-context.js';
import { refuseExternalLog } from '../postgresql-backup.js';

/** The work of `leasehold backup`, loaded only for it. */
export const runBackup = async (context: CliContext, file: string, force: boolean): Promise<void> => {
  refuseExternalLog(context.env, 'backup', file);
  if (existsSync(file) && !force) throw new UsageError(`${file} exists already (--force replaces it)`);
  const source = join(context.dataDir(), 'events.sqlite');
  if (!existsSync(source)) throw new UsageError(`no event store at ${source} (set --data-dir or LEASEHOLD_DATA_DIR)`);
  const { position, events } = await backupLog(source, file);
  await writeOut(context.stdout, `backed up ${events} events, up to position ${position}, to ${file}\n`);
};
