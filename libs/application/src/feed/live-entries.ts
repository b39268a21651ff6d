import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { HistoryEntry } from '../history/history-entry.js';
import { BEHIND, type LiveInterest, type LiveLog, type LiveReader } from './live-log.js';

/** Entries read from the log after a position, the position to read after next, and whether that is the log's head. */
export interface ReadPage {
  readonly entries: readonly HistoryEntry[];
  readonly next: number;
  readonly atHead: boolean;
}

export type ReadAfter = (after: number) => Promise<ReadPage>;

/** What a reader shows of the entries the LiveLog hands it (in log order, each once): all of them, unless it says otherwise. */
export type ShowLive = (entries: readonly HistoryEntry[]) => readonly HistoryEntry[];

const showAll: ShowLive = (entries) => entries;

/**
 * A live reader's entries, batch by batch: those after `after` read from the log (catch-up, page by
 * page until the head), then those the LiveLog hands over as they are appended (live), in log order,
 * none missed or repeated. It listens before it reads, so nothing appended meanwhile is lost; what the
 * catch-up already read is dropped by position. A reader that falls behind reads what it missed again
 * from the log, then listens on. `return` ends it at once, even while it waits for the log to grow.
 */
export class LiveEntries implements AsyncIterableIterator<readonly HistoryEntry[]> {
  private readonly stop = new AbortController();
  private readonly batches: AsyncGenerator<readonly HistoryEntry[]>;

  /** The position read up to: an entry at or before it was delivered, or left out by the catch-up's filter. */
  private position: number;

  private constructor(
    private readonly log: LiveLog,
    private readonly interest: LiveInterest,
    private readonly read: ReadAfter,
    private reader: LiveReader,
    first: ReadPage,
    after: number,
    private readonly show: ShowLive,
  ) {
    this.position = after;
    this.batches = this.generate(first);
  }

  /** Reads the first page before it resolves: a refusal or a storage error is the answer to the request, not an end of the stream. */
  static async open(log: LiveLog, interest: LiveInterest, read: ReadAfter, after: number, show: ShowLive = showAll): Promise<LiveEntries> {
    const reader = await log.join(interest);
    try {
      return new LiveEntries(log, interest, read, reader, await read(after), after, show);
    } catch (error) {
      await reader.leave();
      throw error;
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<readonly HistoryEntry[]>> {
    return this.batches.next();
  }

  async return(): Promise<IteratorResult<readonly HistoryEntry[]>> {
    this.stop.abort();
    const result = await this.batches.return(undefined);
    // a generator never started has no `finally` to run
    await this.reader.leave();
    return result;
  }

  private async *generate(first: ReadPage): AsyncGenerator<readonly HistoryEntry[]> {
    let page = first;
    try {
      for (;;) {
        yield* this.catchUp(page);
        if (this.stop.signal.aborted || !(yield* this.live())) return;
        // it fell behind: listening again, it reads what it missed
        await this.reader.leave();
        this.reader = await this.log.join(this.interest);
        page = await this.read(this.position);
      }
    } finally {
      await this.reader.leave();
    }
  }

  private async *catchUp(first: ReadPage): AsyncGenerator<readonly HistoryEntry[]> {
    for (let page = first; ; page = await this.read(this.position)) {
      if (page.entries.length > 0) yield page.entries;
      this.position = Math.max(this.position, page.next);
      if (page.atHead || this.stop.signal.aborted) return;
      // catching up, the next page waits for the process's other requests
      await yieldToEventLoop();
    }
  }

  /** Entries as they are appended, until the stream stops, or until the reader falls behind (true). */
  private async *live(): AsyncGenerator<readonly HistoryEntry[], boolean> {
    for (;;) {
      const batch = await this.reader.next(this.stop.signal);
      if (this.stop.signal.aborted) return false;
      if (batch === BEHIND) return true;
      const fresh = batch.filter((entry) => entry.position > this.position);
      const last = fresh.at(-1);
      if (last === undefined) continue;
      this.position = last.position;
      const shown = this.show(fresh);
      if (shown.length > 0) yield shown;
    }
  }
}
