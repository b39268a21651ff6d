import { Body, Controller, Get, Inject, Param, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request, Response } from 'express';
import { DateTime } from 'luxon';
import { ACTIONS } from '#application/policy/policy-defaults.js';
import { RateCardUseCases } from '#application/usage/rate-card.use-cases.js';
import { UsageQueries, rateCardView } from '#application/usage/usage.queries.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { CLOCK } from '../tokens.js';
import { parseRateCard } from './rate-card-request.parser.js';
import { optionalReportDate, reportDate } from './usage-request.parser.js';

/** Usage reports and rate cards (Leasehold extensions; docs/usage.md). */
@Controller('v1')
@UseGuards(KnownParameters)
export class UsageController {
  constructor(
    @Inject(UsageQueries) private readonly usage: UsageQueries,
    @Inject(RateCardUseCases) private readonly rateCards: RateCardUseCases,
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
    this.usage.projectScope(caller, projectId ?? null);
    return this.usage.report(caller, {
      start: reportDate('start', start),
      end: reportDate('end', end),
      projectId: projectId ?? null,
      groupBy: groupBy ?? null,
      rateCard: rateCard ?? null,
      asOfPosition: asOfPosition ?? null,
      until: optionalReportDate('until', until),
      now: this.clock().toISOString(),
    });
  }

  @Get('rate-cards')
  async list(@Req() request: Request): Promise<{ rate_cards: object[] }> {
    return this.usage.rateCards(callerOf(request));
  }

  @Get('rate-cards/:rateCardName')
  async show(@Param('rateCardName') name: string, @Req() request: Request): Promise<{ rate_card: object; versions: object[] }> {
    return this.usage.rateCard(callerOf(request), name);
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
    const { rateCard, position } = await this.rateCards.publish({
      type: 'PublishRateCard',
      data: { ...terms, name },
      metadata: commandMetadata(request, now),
    });
    this.consistency.answerWrite(position, response);
    return { rate_card: rateCardView(rateCard) };
  }
}
