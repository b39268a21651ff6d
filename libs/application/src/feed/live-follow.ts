import type { EventStore } from '#event-store/event-store.port.js';
import type { Caller } from '../caller.js';
import { EVENT_CATALOGUE } from '../history/event-catalogue.js';
import { ChangeTracker } from '../history/history-changes.js';
import type { HistoryEntry } from '../history/history-entry.js';
import type { HistoryQueries } from '../history/history.queries.js';
import type { EventFeed, FeedQuery } from './event-feed.queries.js';
import { LiveEntries } from './live-entries.js';
import type { LiveLog } from './live-log.js';

/** The feed as `caller` sees it (GET /v1/events), from `query.after`, then live. */
export const followFeed = (log: LiveLog, feed: EventFeed, caller: Caller, query: FeedQuery): Promise<LiveEntries> =>
  LiveEntries.open(
    log,
    {
      subject: { kind: 'feed', caller },
      types: query.types === null ? null : new Set(query.types.map((type) => EVENT_CATALOGUE[type].publicType)),
    },
    async (after) => {
      const page = await feed.page(caller, { ...query, after });
      return { entries: page.events, next: page.next_after, atHead: page.atHead };
    },
    query.after,
  );

/**
 * One lease's history (GET /v1/leases/{id}/history) after `after`, then live. Its first read is the
 * refusal (404, 403) as the history route answers it; the history is read once, then entries come live.
 * What each change changed is stated against every entry before it, so the follower takes every type
 * from the log and keeps those asked for once it has described them.
 */
export const followLeaseHistory = (
  log: LiveLog,
  history: HistoryQueries,
  store: EventStore,
  caller: Caller,
  leaseId: string,
  types: ReadonlySet<string> | null,
  after: number,
): Promise<LiveEntries> => {
  const asked = (entry: HistoryEntry): boolean => types === null || types.has(entry.type);
  const changes = new ChangeTracker();
  // the position up to which `changes` has seen the lease's entries
  let described = 0;
  const describe = (entries: readonly HistoryEntry[]): HistoryEntry[] =>
    entries
      .filter((entry) => entry.position > described)
      .map((entry) => {
        described = entry.position;
        return changes.describe(entry);
      });
  return LiveEntries.open(
    log,
    { subject: { kind: 'lease', leaseId }, types: null },
    async (position) => {
      // the head first: whatever the history read holds, the log had reached it
      const head = await store.headPosition();
      const all = await history.lease(caller, leaseId);
      describe(all);
      const entries = all.filter((entry) => entry.position > position && asked(entry));
      return { entries, next: Math.max(position, head, all.at(-1)?.position ?? 0), atHead: true };
    },
    after,
    (fresh) => describe(fresh).filter(asked),
  );
};
