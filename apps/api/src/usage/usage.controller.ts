import { Body, Controller, Get, Inject, Param, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request, Response } from '../http/exchange.js';
import { DateTime } from 'luxon';
import { ACTIONS } from '#application/policy/policy-defaults.js';
import { rateCardView } from '#application/usage/usage.queries.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { CLOCK } from '../tokens.js';
import { parseRateCard } from './rate-card-request.parser.js';
import { optionalReportDate, reportDate } from './usage-request.parser.js';
import { GetRateCard, GetUsageReport, GetUsageScope, ListRateCards, PublishRateCard } from './usage.handlers.js';

/** Usage reports and rate cards (Leasehold extensions; docs/usage.md). */
@Controller('v1')
@UseGuards(KnownParameters)
export class UsageController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  @Get('usage')
  async report(
    @Req() request: Request,
    @Query('start') start?: string,
    @Query('end') end?: string,
    @Query('project_id') projectId?: string,
    @Query('group_by') groupBy?: string,
    @Query('rate_card') rateCard?: string,
    @Query('as_of_position') asOfPosition?: string,
    @Query('until') until?: string,
  ): Promise<{ usage: object }> {
    const caller = callerOf(request);
    await this.queries.execute(new GetUsageScope(caller, projectId ?? null));
    return this.queries.execute(
      new GetUsageReport(caller, {
        start: reportDate('start', start),
        end: reportDate('end', end),
        projectId: projectId ?? null,
        groupBy: groupBy ?? null,
        rateCard: rateCard ?? null,
        asOfPosition: asOfPosition ?? null,
        until: optionalReportDate('until', until),
        now: this.clock().toISOString(),
      }),
    );
  }

  @Get('rate-cards')
  async list(@Req() request: Request): Promise<{ rate_cards: object[] }> {
    return this.queries.execute(new ListRateCards(callerOf(request)));
  }

  @Get('rate-cards/:rateCardName')
  async show(@Param('rateCardName') name: string, @Req() request: Request): Promise<{ rate_card: object; versions: object[] }> {
    return this.queries.execute(new GetRateCard(callerOf(request), name));
  }

  /** Each PUT publishes a new version; the policy first, as for every admin write. */
  @Put('rate-cards/:rateCardName')
  async publish(
    @Param('rateCardName') name: string,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ rate_card: object }> {
    authorizedRequest(request, ACTIONS.rateCardPut);
    const now = this.clock();
    const terms = parseRateCard(body, DateTime.fromJSDate(now, { zone: 'utc' }));
    const { rateCard, position } = await this.commands.execute(new PublishRateCard({ ...terms, name }, commandMetadata(request, now)));
    this.consistency.answerWrite(position, response);
    return { rate_card: rateCardView(rateCard) };
  }
}
