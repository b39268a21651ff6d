import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request, Response } from '../http/exchange.js';
import { ACTIONS } from '#application/policy/policy-defaults.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { CLOCK } from '../tokens.js';
import { parseShares } from './fair-share-request.parser.js';
import { GetFairShare, ListFairShare, ResetFairShare, SetFairShare } from './fair-share.handlers.js';

/** Fair-share shares and factors (a Leasehold extension; docs/fair-share.md): members read their own, admins set them. */
@Controller('v1')
@UseGuards(KnownParameters)
export class FairShareController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  @Get('fair-share')
  list(@Req() request: Request): Promise<{ fair_share: object }> {
    return this.queries.execute(new ListFairShare(callerOf(request), this.clock().toISOString()));
  }

  @Get('fair-share/:projectId')
  show(@Param('projectId') projectId: string, @Req() request: Request): Promise<{ fair_share: object }> {
    return this.queries.execute(new GetFairShare(callerOf(request), projectId, this.clock().toISOString()));
  }

  /** The policy before the body, as for every admin write; answers the project's standing with its new shares. */
  @Put('fair-share/:projectId')
  async set(
    @Param('projectId') projectId: string,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ fair_share: object }> {
    authorizedRequest(request, ACTIONS.fairShareSet);
    const shares = parseShares(body);
    const now = this.clock();
    const { position } = await this.commands.execute(new SetFairShare({ projectId, shares }, commandMetadata(request, now)));
    this.consistency.answerWrite(position, response);
    return this.queries.execute(new GetFairShare(callerOf(request), projectId, now.toISOString()));
  }

  @Delete('fair-share/:projectId')
  @HttpCode(204)
  async reset(
    @Param('projectId') projectId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const { position } = await this.commands.execute(new ResetFairShare({ projectId }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(position, response);
  }
}
