import { Inject } from '@nestjs/common';
import { Args, Context, Float, ID, Resolver, Subscription } from '@nestjs/graphql';
import { type Caller, authorize } from '#application/caller.js';
import { EventFeed, FEED_LIMIT_MAX, parseFeedTypes } from '#application/feed/event-feed.queries.js';
import type { LiveEntries } from '#application/feed/live-entries.js';
import { followFeed, followLeaseHistory } from '#application/feed/live-follow.js';
import { LiveLog } from '#application/feed/live-log.js';
import { EVENT_CATALOGUE } from '#application/history/event-catalogue.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { HistoryQueries } from '#application/history/history.queries.js';
import { ACTIONS } from '#application/policy/policy-defaults.js';
import { invalid } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { EVENT_STORE } from '../tokens.js';
import { checkPathParameter } from '../http/route-parameters.js';
import { type GraphqlContext, callerIn } from './graphql-context.js';
import { HistoryEntryType } from './history.types.js';
import { livePayloads } from './live-entries.js';
import { SubscriptionSlots } from './subscription-slots.js';

/** A position to start after: 0 (the whole log) or a positive integer. */
const positionOf = (after: number | null | undefined): number => {
  const position = after ?? 0;
  if (!Number.isSafeInteger(position) || position < 0)
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter after (must be a log position: 0 or a positive integer)');
  return position;
};

/** Public types asked for (docs/events.md), as the feed's `types` parameter; null for every type. */
const publicTypes = (types: readonly string[] | null | undefined): ReadonlySet<string> | null =>
  types === null || types === undefined ? null : new Set(parseFeedTypes(types.join(',')).map((type) => EVENT_CATALOGUE[type].publicType));

/**
 * Live events over WebSocket (graphql-ws), fed from the log as GET /v1/events and GET
 * /v1/leases/{id}/history read it: every event after `after`, then each one as it is recorded (from
 * the process's LiveLog: nothing is read again per subscriber). Each holds a slot of its connection's
 * and of its project's while it runs.
 */
@Resolver()
export class SubscriptionResolver {
  constructor(
    @Inject(HistoryQueries) private readonly history: HistoryQueries,
    @Inject(EventFeed) private readonly feed: EventFeed,
    @Inject(LiveLog) private readonly log: LiveLog,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SubscriptionSlots) private readonly slots: SubscriptionSlots,
  ) {}

  @Subscription(() => HistoryEntryType, {
    description: "One lease's events (its history), those after `after`, then live; as reading the lease is allowed",
  })
  async leaseEvents(
    @Context() context: GraphqlContext,
    @Args('leaseId', { type: () => ID }) leaseId: string,
    @Args('types', { type: () => [String], nullable: true, description: 'Public event types (docs/events.md); every type when absent' })
    types: string[] | null,
    @Args('after', {
      type: () => Float,
      nullable: true,
      description: 'A log position: only events after it (default 0: the whole history)',
    })
    after: number | null,
  ): Promise<AsyncIterableIterator<{ leaseEvents: HistoryEntryType }>> {
    const caller = callerIn(context);
    checkPathParameter('leaseId', leaseId);
    const wanted = publicTypes(types);
    const from = positionOf(after);
    // 404 or 403 now, before anything is streamed: as GET /v1/leases/{id}/history
    return this.live(
      context,
      caller,
      (entry) => ({ leaseEvents: entry }),
      () => followLeaseHistory(this.log, this.history, this.store, caller, leaseId, wanted, from),
    );
  }

  @Subscription(() => HistoryEntryType, {
    description: "The events GET /v1/events shows the caller (a member: its own project's leases'), those after `after`, then live",
  })
  async projectLeaseEvents(
    @Context() context: GraphqlContext,
    @Args('types', { type: () => [String], nullable: true }) types: string[] | null,
    @Args('after', { type: () => Float, nullable: true }) after: number | null,
  ): Promise<AsyncIterableIterator<{ projectLeaseEvents: HistoryEntryType }>> {
    const caller = callerIn(context);
    authorize(caller, ACTIONS.eventsGet);
    const query = {
      after: positionOf(after),
      types: types === null || types === undefined ? null : parseFeedTypes(types.join(',')),
      limit: FEED_LIMIT_MAX,
    };
    return this.live(
      context,
      caller,
      (entry) => ({ projectLeaseEvents: entry }),
      () => followFeed(this.log, this.feed, caller, query),
    );
  }

  /** Takes the slot first (a refused subscription reads nothing), and gives it back if the first read is refused. */
  private async live<Payload>(
    context: GraphqlContext,
    caller: Caller,
    payload: (entry: HistoryEntry) => Payload,
    follow: () => Promise<LiveEntries>,
  ): Promise<AsyncIterableIterator<Payload>> {
    const release = this.slots.take(context.req, caller.projectId);
    try {
      return livePayloads(await follow(), payload, release);
    } catch (error) {
      release();
      throw error;
    }
  }
}
