import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#application/caller.js';
import { EventFeed, type FeedQuery, type ScannedPage } from '#application/feed/event-feed.queries.js';

/** One page of the log as the caller may see it (the live stream follows the log itself: feed-streams.ts). */
export class GetEventPage extends Query<ScannedPage> {
  constructor(
    readonly caller: Caller,
    readonly query: FeedQuery,
  ) {
    super();
  }
}

@QueryHandler(GetEventPage)
export class GetEventPageHandler implements IQueryHandler<GetEventPage> {
  constructor(@Inject(EventFeed) private readonly feed: EventFeed) {}

  execute({ caller, query }: GetEventPage): Promise<ScannedPage> {
    return this.feed.page(caller, query);
  }
}

export const FEED_HANDLERS = [GetEventPageHandler];
