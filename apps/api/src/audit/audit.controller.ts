import { Controller, Get, Inject, Query, Req, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request } from '../http/exchange.js';
import { DateTime } from 'luxon';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { ACTIONS } from '#application/policy/policy-defaults.js';
import { authorizedRequest } from '../policy/authorize.js';
import { CLOCK } from '../tokens.js';
import { parseAuditQuery } from './audit-request.parser.js';
import { ListRefusals } from './audit.handlers.js';

@Controller('v1/audit')
@UseGuards(KnownParameters)
export class AuditController {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  /**
   * The policy first (an admin resource, as upstream's hosts); `outcome` is checked by its parameter rule: refusals are all the audit log
   * records.
   */
  @Get()
  async list(
    @Req() request: Request,
    @Query('start') start?: string,
    @Query('end') end?: string,
    @Query('project_id') projectId?: string,
    @Query('outcome') _outcome?: string,
  ): Promise<{ audit: HistoryEntry[] }> {
    const { caller } = authorizedRequest(request, ACTIONS.auditGet);
    const filter = parseAuditQuery({ start, end, projectId }, DateTime.fromJSDate(this.clock(), { zone: 'utc' }));
    return { audit: await this.queries.execute(new ListRefusals(caller, filter)) };
  }
}
