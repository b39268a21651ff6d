import type { LiveEntries } from '#application/feed/live-entries.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { graphqlError } from './graphql-errors.js';

/**
 * A subscription's events, one payload per entry, until the client completes it or leaves: `return`
 * ends a wait for the log at once, and `release` (its slot) is called once whichever way it ends.
 */
export const livePayloads = <Payload>(
  entries: LiveEntries,
  payload: (entry: HistoryEntry) => Payload,
  release: () => void,
): AsyncIterableIterator<Payload> => {
  const generate = async function* (): AsyncGenerator<Payload> {
    try {
      for await (const batch of entries) for (const entry of batch) yield payload(entry);
    } catch (error) {
      throw graphqlError(error);
    } finally {
      release();
    }
  };
  const payloads = generate();
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () => payloads.next(),
    return: async () => {
      await entries.return();
      release();
      return payloads.return(undefined);
    },
  };
};
