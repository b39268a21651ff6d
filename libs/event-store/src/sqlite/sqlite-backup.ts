import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, openReadOnlyDatabase } from './schema.js';

/** What a backup or a restore holds: its last position and how many events lead up to it. */
export interface LogSummary {
  readonly position: number;
  readonly events: number;
}

/** The file given is not a Leasehold event log, or cannot be restored as asked: nothing was written. */
export class LogBackupError extends Error {
  override readonly name = 'LogBackupError';
}

/** Every column of `events`, copied as stored: positions, ids and timestamps stay exactly what they were. */
const EVENT_COLUMNS = [
  'position',
  'event_id',
  'stream_id',
  'category',
  'revision',
  'type',
  'schema_version',
  'data',
  'metadata',
  'recorded_at',
];

const summaryOf = (db: Database.Database, upTo: number): LogSummary => {
  const row = db.prepare('SELECT COALESCE(MAX(position), 0) AS position, COUNT(*) AS events FROM events WHERE position <= ?').get(upTo);
  return row as LogSummary;
};

/** A rename is durable only once the folder that holds the name is synced. */
const syncFolderOf = (file: string): void => {
  const folder = openSync(dirname(file), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
};

const partialOf = (file: string): string => `${file}.partial`;

const removeDatabase = (file: string): void => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
};

/**
 * A consistent copy of the log at `source` while other processes append to it (WAL: the copy holds a read
 * snapshot, writers go on). Written to `<target>.partial` and renamed when complete, so that a copy cut short
 * (kill -9, a full disk) never stands under the name of a backup; a partial left by such a run is replaced.
 */
export const backupLog = async (source: string, target: string): Promise<LogSummary> => {
  const partial = partialOf(target);
  removeDatabase(partial);
  const db = openReadOnlyDatabase(source);
  try {
    // after the first step the rest is copied in one: a step between which another process appends starts the copy over
    await db.backup(partial, { progress: ({ totalPages }) => totalPages });
  } catch (error) {
    removeDatabase(partial);
    throw error;
  } finally {
    db.close();
  }
  const copy = new Database(partial, { fileMustExist: true });
  let summary: LogSummary;
  try {
    // one self-contained file: a reader of the backup then leaves no -wal or -shm file beside it
    copy.pragma('journal_mode = DELETE');
    summary = summaryOf(copy, Number.MAX_SAFE_INTEGER);
  } finally {
    copy.close();
  }
  renameSync(partial, target);
  syncFolderOf(target);
  return summary;
};

const openBackup = (file: string): Database.Database => {
  if (!existsSync(file)) throw new LogBackupError(`no backup at ${file}`);
  let db: Database.Database;
  try {
    db = openReadOnlyDatabase(file);
  } catch (error) {
    throw new LogBackupError(`${file} is not a Leasehold event log backup (${error instanceof Error ? error.message : String(error)})`);
  }
  const columns = (db.prepare("SELECT name FROM pragma_table_info('events')").pluck().all() as string[]).sort();
  if (EVENT_COLUMNS.some((column) => !columns.includes(column))) {
    db.close();
    throw new LogBackupError(`${file} is not a Leasehold event log backup: its events table has the columns ${columns.join(', ')}`);
  }
  return db;
};

interface AppendRow {
  readonly position: number;
  readonly recorded_at: string;
  readonly metadata: string;
}

const correlationOf = (row: AppendRow): unknown => (JSON.parse(row.metadata) as { correlationId?: unknown }).correlationId;

/** Positions written by one append share their time and correlation; a cut between two of them would restore half a decision. */
const sameAppend = (a: AppendRow, b: AppendRow): boolean =>
  a.recorded_at === b.recorded_at && correlationOf(a) !== undefined && correlationOf(a) === correlationOf(b);

/** The last row of the run that `rows` starts with, all of one append. */
const lastOfAppend = (rows: Iterable<AppendRow>): AppendRow | undefined => {
  let last: AppendRow | undefined;
  for (const row of rows) {
    if (last !== undefined && !sameAppend(last, row)) break;
    last = row;
  }
  return last;
};

const checkCut = (db: Database.Database, file: string, toPosition: number): void => {
  const head = summaryOf(db, Number.MAX_SAFE_INTEGER).position;
  if (toPosition > head) throw new LogBackupError(`--to-position ${toPosition} is past the end of ${file} (its last position: ${head})`);
  const columns = 'position, recorded_at, metadata';
  const backwards = db.prepare(`SELECT ${columns} FROM events WHERE position <= ? ORDER BY position DESC`).iterate(toPosition);
  const forwards = db.prepare(`SELECT ${columns} FROM events WHERE position >= ? ORDER BY position`);
  const first = lastOfAppend(backwards as Iterable<AppendRow>);
  const last = first === undefined ? undefined : lastOfAppend(forwards.iterate(first.position) as Iterable<AppendRow>);
  if (first !== undefined && last !== undefined && last.position > toPosition) {
    throw new LogBackupError(
      `position ${toPosition} falls inside one append (positions ${first.position} to ${last.position} were written together): ` +
        `restore to ${last.position}, or to ${first.position - 1}`,
    );
  }
};

const copyEvents = (from: Database.Database, to: Database.Database, toPosition: number): void => {
  const columns = EVENT_COLUMNS.join(', ');
  const read = from.prepare(`SELECT ${columns} FROM events WHERE position <= ? ORDER BY position`).raw();
  const write = to.prepare(`INSERT INTO events (${columns}) VALUES (${EVENT_COLUMNS.map(() => '?').join(', ')})`);
  to.transaction(() => {
    for (const row of read.iterate(toPosition)) write.run(...(row as unknown[]));
    to.exec('INSERT INTO streams (stream_id, revision) SELECT stream_id, MAX(revision) FROM events GROUP BY stream_id');
  })();
};

/**
 * A new event log at `target` (which must not exist) holding the backup's events up to and including
 * `toPosition` (all when null), with their positions, ids and timestamps; the next append follows the last
 * one restored. Snapshots are left behind: one of a longer log would look valid again once the restored
 * log grows past its position, and each process folds its state from the log when it finds none.
 */
export const restoreLog = (backup: string, target: string, toPosition: number | null): LogSummary => {
  if (existsSync(target)) throw new LogBackupError(`${target} exists already`);
  const from = openBackup(backup);
  const partial = partialOf(target);
  try {
    const upTo = toPosition ?? Number.MAX_SAFE_INTEGER;
    if (toPosition !== null) checkCut(from, backup, toPosition);
    removeDatabase(partial);
    const to = openDatabase(partial, 'FULL');
    try {
      copyEvents(from, to, upTo);
    } catch (error) {
      to.close();
      removeDatabase(partial);
      throw error;
    }
    to.close();
    const summary = summaryOf(from, upTo);
    renameSync(partial, target);
    syncFolderOf(target);
    return summary;
  } finally {
    from.close();
  }
};
