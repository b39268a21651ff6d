import type Database from 'better-sqlite3';
import { withBusyRetry } from './busy-retry.js';

/** Most writes in one transaction: a commit, and so the wait of everyone in it, stays bounded. */
const MAX_GROUP = 256;

interface Waiting<Request, Result> {
  readonly request: Request;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome<Result> = { readonly written: true; readonly result: Result } | { readonly written: false; readonly error: unknown };

/**
 * Once the code that runs now and every promise job it leads to are done, and before the event loop
 * takes its next event: a write waits for no other I/O. Waiting for the loop's next turn (setImmediate)
 * instead cost the API a fifth to three fifths of its admissions per second, its command handler appending
 * one decision at a time (docs/performance.md).
 */
const endOfTick = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));

/**
 * Group commit: the writes asked for in one tick (and those asked for while the group before them
 * waits for another process's lock) share one transaction, so one commit (and, with
 * synchronous=FULL, one fsync) serves them all. Each write runs in a savepoint of its own: one that
 * throws (a wrong expected revision) is rolled back and fails alone, as it would have on its own, and
 * the others still see the database as if they had been written one after the other. Every caller is
 * told only once the transaction holding its write committed; should the transaction itself fail,
 * everyone in it hears that error.
 */
export class GroupCommit<Request, Result> {
  private readonly waiting: Waiting<Request, Result>[] = [];
  private readonly transaction: Database.Transaction<(requests: readonly Request[]) => Outcome<Result>[]>;
  private flushing: Promise<void> | null = null;
  private committed = 0;

  constructor(
    private readonly db: Database.Database,
    write: (request: Request) => Result,
  ) {
    // nested in the group's transaction, better-sqlite3 runs each write as a SAVEPOINT
    const writeOne = db.transaction(write);
    this.transaction = db.transaction((requests: readonly Request[]) => requests.map((request) => this.attempt(writeOne, request)));
  }

  submit(request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Transactions committed so far (for metrics, and to see that writes shared one). */
  commits(): number {
    return this.committed;
  }

  /** Resolves once every write asked for so far has been committed or failed. */
  async drained(): Promise<void> {
    while (this.flushing !== null) await this.flushing;
  }

  private async flush(): Promise<void> {
    await endOfTick();
    try {
      while (this.waiting.length > 0) await this.commitNext();
    } finally {
      this.flushing = null;
    }
  }

  /** Each attempt takes whoever waits by then: those who came while another process held the lock join in. */
  private async commitNext(): Promise<void> {
    let group: Waiting<Request, Result>[] = [];
    let outcomes: Outcome<Result>[];
    try {
      outcomes = await withBusyRetry(() => {
        group = this.waiting.slice(0, MAX_GROUP);
        return this.transaction.immediate(group.map((waiting) => waiting.request));
      });
    } catch (error) {
      this.waiting.splice(0, group.length);
      for (const waiting of group) waiting.reject(error);
      return;
    }
    this.waiting.splice(0, group.length);
    this.committed += 1;
    group.forEach((waiting, index) => {
      const outcome = outcomes[index];
      if (outcome?.written === true) waiting.resolve(outcome.result);
      else waiting.reject(outcome?.error);
    });
  }

  /** A write's own failure is its caller's; one that ended the whole transaction (SQLite rolled it back) is everyone's. */
  private attempt(writeOne: (request: Request) => Result, request: Request): Outcome<Result> {
    try {
      return { written: true, result: writeOne(request) };
    } catch (error) {
      if (!this.db.inTransaction) throw error;
      return { written: false, error };
    }
  }
}
