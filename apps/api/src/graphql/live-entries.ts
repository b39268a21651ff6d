import type { LiveEntries } from '#application/feed/live-entries.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { graphqlError } from './graphql-errors.js';

/**
 * A subscription's events, one payload per entry, until the client completes it or leaves: `return`
 * ends a wait for the log at once.
 */
export const livePayloads = <Payload>(entries: LiveEntries, payload: (entry: HistoryEntry) => Payload): AsyncIterableIterator<Payload> => {
  const generate = async function* (): AsyncGenerator<Payload> {
    try {
      for await (const batch of entries) for (const entry of batch) yield payload(entry);
    } catch (error) {
      throw graphqlError(error);
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
      return payloads.return(undefined);
    },
  };
};
