import type { HistoryEntry } from '#application/history/history-entry.js';
import type { LogHead } from '#application/feed/log-head.js';
import { graphqlError } from './graphql-errors.js';

/** Reads the entries after a position: those it found, and the position to read after next time. */
export type ReadAfter = (
  after: number,
) => Promise<{ readonly entries: readonly HistoryEntry[]; readonly next: number; readonly atHead: boolean }>;

/**
 * A subscription's events: every entry after `after` (catch-up), then each new one as the log grows
 * (live), until the client completes it or leaves: `return` wakes a waiting read at once, so the
 * process's hold on the log head is let go without waiting for the next event.
 */
export const liveEntries = <Payload>(
  head: LogHead,
  after: number,
  read: ReadAfter,
  payload: (entry: HistoryEntry) => Payload,
): AsyncIterableIterator<Payload> => {
  const stop = new AbortController();
  const generate = async function* (): AsyncGenerator<Payload> {
    head.hold();
    try {
      let position = after;
      while (!stop.signal.aborted) {
        const page = await read(position);
        for (const entry of page.entries) yield payload(entry);
        position = page.next;
        if (page.atHead) await head.waitPast(position, stop.signal);
      }
    } catch (error) {
      throw graphqlError(error);
    } finally {
      await head.release();
    }
  };
  const entries = generate();
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () => entries.next(),
    return: async () => {
      stop.abort();
      return entries.return(undefined);
    },
  };
};
