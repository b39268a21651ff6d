import Database from 'better-sqlite3';
import type { AppendRequest } from '../event-store.port.js';
import { EventRows } from '../sqlite/event-rows.js';
import { openDatabase } from '../sqlite/schema.js';

/**
 * Another process's connection to a store file, writing synchronously: what it appends is committed
 * before the call returns, so a test can commit it between two statements of a read (see
 * commitBeforeIndexRun), where no asynchronous append could run.
 */
export class OtherConnection {
  private readonly db: Database.Database;
  private readonly rows: EventRows;

  constructor(file: string) {
    this.db = openDatabase(file);
    this.rows = new EventRows(this.db);
  }

  /** The requests in one transaction, each at its stream's next revisions (their expected revisions are not checked). */
  append(requests: readonly AppendRequest[]): void {
    const recordedAt = new Date().toISOString();
    this.db
      .transaction(() => {
        for (const { streamId, events } of requests) {
          let revision = this.rows.streamRevision(streamId);
          for (const event of events) this.rows.insert(streamId, ++revision, event, recordedAt);
          this.rows.setStreamRevision(streamId, revision);
        }
      })
      .immediate();
  }

  close(): void {
    this.db.close();
  }
}

/** A page filtered on several categories or types is read one index run per value (EventRows.readMerged): this value's run. */
const isIndexRunOf = (statement: Database.Statement, params: readonly unknown[], value: string): boolean =>
  /INDEXED BY events_(category|type)_position/.test(statement.source) && params[0] === value;

/**
 * Runs `commit` once, just before the index run of `value` (a category or a type) of a merged page is
 * read, whichever connection reads it: the interleaving of a reader and another process's commit that
 * timing alone rarely gives. Returns the function that takes the hook out.
 */
export const commitBeforeIndexRun = (value: string, commit: () => void): (() => void) => {
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { all: (...params: unknown[]) => unknown };
  probe.close();
  const all = statement.all;
  let armed = true;
  statement.all = function (this: Database.Statement, ...params: unknown[]) {
    if (armed && isIndexRunOf(this, params, value)) {
      armed = false;
      commit();
    }
    return all.apply(this, params);
  };
  return () => {
    statement.all = all;
  };
};
