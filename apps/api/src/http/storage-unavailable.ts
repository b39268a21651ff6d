import { ConnectionException } from '@mikro-orm/core';

/** What a client is told when the log or a read model cannot be written or read right now. */
export const STORAGE_UNAVAILABLE_MESSAGE = 'Storage unavailable, nothing was changed; try again';

/** Seconds a client is asked to wait before trying again (`Retry-After`). */
export const STORAGE_RETRY_AFTER_SECONDS = 1;

/**
 * SQLite result codes (better-sqlite3's SqliteError, copied onto MikroORM's wrapped errors) that say
 * the database cannot be used at the moment, not that the statement was wrong: the disk is full, an
 * I/O error, the file is locked by another process beyond the busy timeout, read-only, or gone.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(FULL|IOERR|BUSY|LOCKED|READONLY|CANTOPEN)(_|$)/;

/**
 * True when `error` means the storage (the event log or a read model) is unavailable: the request
 * changed nothing (every write is one transaction) and may succeed if tried again.
 */
export const isStorageUnavailable = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null) return false;
  if (error instanceof ConnectionException) return true;
  return 'code' in error && typeof error.code === 'string' && SQLITE_UNAVAILABLE.test(error.code);
};
