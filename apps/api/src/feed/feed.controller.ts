import { Controller, Get, Inject, Query, Req, Res, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request, Response } from '../http/exchange.js';
import { ACTIONS } from '#application/policy/policy-defaults.js';
import { authorizedRequest } from '../policy/authorize.js';
import { parseFeedRequest } from './feed-request.parser.js';
import { FeedStreams } from './feed-streams.js';
import { preferredType } from '../http/accept.js';
import { GetEventPage } from './feed.handlers.js';

/** A client asking for Server-Sent Events (an EventSource says so in `Accept`); anything else gets JSON pages. */
const wantsStream = (request: Request): boolean => preferredType(request.headers.accept, ['application/json', 'text/event-stream']) === 1;

/** The log, replayable from any position: JSON pages, or the same events streamed live. */
@Controller('v1/events')
@UseGuards(KnownParameters)
export class FeedController {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(FeedStreams) private readonly streams: FeedStreams,
  ) {}

  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query('after') after?: string,
    @Query('types') types?: string,
    @Query('limit') limit?: string,
  ): Promise<void> {
    const { caller } = authorizedRequest(request, ACTIONS.eventsGet);
    const query = parseFeedRequest({ after, types, limit, lastEventId: request.headers['last-event-id'] });
    if (wantsStream(request)) return this.streams.serve(response, caller, query);
    const { events, next_after } = await this.queries.execute(new GetEventPage(caller, query));
    await response.send({ events, next_after });
  }
}
