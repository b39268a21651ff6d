import { Body, Controller, Get, Inject, Param, Put, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request, Response } from '../http/exchange.js';
import { ACTIONS } from '#application/policy/policy-defaults.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { CLOCK } from '../tokens.js';
import { parseQuotaChanges } from './quota-request.parser.js';
import { quotaView } from './quota-view.js';
import { GetQuota, SetQuota } from './quota.handlers.js';

/** Per-project quotas (a Leasehold extension; Blazar has none): members read their own, admins set them. */
@Controller('v1')
@UseGuards(KnownParameters)
export class QuotaController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  @Get('quotas/:projectId')
  async show(@Param('projectId') projectId: string, @Req() request: Request): Promise<{ quota: object }> {
    return { quota: quotaView(await this.queries.execute(new GetQuota(callerOf(request), projectId, this.clock().toISOString()))) };
  }

  /** The policy before the body, as for every admin write. */
  @Put('quotas/:projectId')
  async set(
    @Param('projectId') projectId: string,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ quota: object }> {
    authorizedRequest(request, ACTIONS.quotaUpdate);
    const changes = parseQuotaChanges(body);
    const { quota, position } = await this.commands.execute(new SetQuota({ projectId, changes }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(position, response);
    return { quota: quotaView(quota) };
  }
}
