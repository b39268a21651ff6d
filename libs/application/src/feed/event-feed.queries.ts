import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { invalid } from '#domain/index.js';
import type { EventFilter, EventStore } from '#event-store/event-store.port.js';
import type { Caller } from '../caller.js';
import { EVENT_CATALOGUE, type InternalEventType } from '../history/event-catalogue.js';
import { type HistoryEntry, historyEntry, isCatalogued } from '../history/history-entry.js';
import { feedVisibility } from './feed-scope.js';
import type { LeaseOwners } from './lease-owners.js';

export const FEED_LIMIT_DEFAULT = 100;
export const FEED_LIMIT_MAX = 1000;
/** Rows one page may scan for a caller who sees few of them, so a member's request is bounded like an admin's. */
const SCAN_BUDGET = 10 * FEED_LIMIT_MAX;

export interface FeedQuery {
  /** Exclusive: the page starts after this log position. */
  readonly after: number;
  /** Stored types to keep (from the public ones asked for), or null for every type. */
  readonly types: readonly InternalEventType[] | null;
  readonly limit: number;
}

export interface FeedPage {
  readonly events: HistoryEntry[];
  /** The position to ask from next: the last one scanned, seen or not, so no page scans a row twice. */
  readonly next_after: number;
}

/** A page, and whether it ended at the log's head (nothing more to read when it was read). */
export interface ScannedPage extends FeedPage {
  readonly atHead: boolean;
}

const INTERNAL_TYPES = Object.keys(EVENT_CATALOGUE) as InternalEventType[];
const BY_PUBLIC_TYPE = new Map(INTERNAL_TYPES.map((type) => [EVENT_CATALOGUE[type].publicType, type]));

/** `types=lease.created,host.booked`: each a public type of docs/events.md; an unknown one is a 400. */
export const parseFeedTypes = (list: string): InternalEventType[] =>
  [...new Set(list.split(','))].map((name) => {
    const type = BY_PUBLIC_TYPE.get(name);
    if (type === undefined)
      throw invalid('MALFORMED_PARAMETER', `Malformed parameter types (unknown event type ${name}; docs/events.md lists them)`);
    return type;
  });

/**
 * The log in order, each event as the history routes show it. Admins see every event; anyone else
 * the events of their own project's leases that the lease policy lets them read, found through an
 * index of lease owners rather than by looking each lease up.
 */
export class EventFeed {
  constructor(
    private readonly store: EventStore,
    private readonly owners: LeaseOwners,
  ) {}

  async page(caller: Caller, query: FeedQuery): Promise<ScannedPage> {
    const visible = feedVisibility(caller, this.owners);
    const filter: EventFilter | undefined = query.types === null ? undefined : { types: query.types };
    const events: HistoryEntry[] = [];
    let cursor = query.after;
    for (let scanned = 0; scanned < SCAN_BUDGET;) {
      // read first: every row at or below it is in the batch's snapshot (positions commit in order)
      const head = await this.store.headPosition();
      const batch = await this.store.readAll({ from: cursor, limit: query.limit, filter });
      const last = batch.at(-1)?.position;
      if (last !== undefined && !caller.isAdmin) await this.owners.advanceTo(last);
      for (const event of batch) {
        cursor = event.position;
        if (isCatalogued(event.type) && visible({ ...event, type: event.type })) events.push(historyEntry({ ...event, type: event.type }));
        if (events.length === query.limit) return { events, next_after: cursor, atHead: false };
      }
      // a short batch scanned its snapshot to the end: at least up to the head read before it
      if (batch.length < query.limit) return { events, next_after: Math.max(cursor, head), atHead: true };
      scanned += batch.length;
      // reads are synchronous: a long scan lets the process's other requests in between batches
      await yieldToEventLoop();
    }
    return { events, next_after: cursor, atHead: false };
  }
}
