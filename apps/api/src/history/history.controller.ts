import { Controller, Get, Inject, Param, Req, UseGuards } from '@nestjs/common';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request } from 'express';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { HistoryQueries } from '#application/history/history.queries.js';
import { callerOf } from '../http/request-context.js';

/** What happened to a lease, host or floating IP, read from the log itself (never stale). */
@Controller('v1')
@UseGuards(KnownParameters)
export class HistoryController {
  constructor(@Inject(HistoryQueries) private readonly history: HistoryQueries) {}

  @Get('leases/:leaseId/history')
  async lease(@Param('leaseId') leaseId: string, @Req() request: Request): Promise<{ history: HistoryEntry[] }> {
    return { history: await this.history.lease(callerOf(request), leaseId) };
  }

  @Get('os-hosts/:hostId/history')
  async host(@Param('hostId') hostId: string, @Req() request: Request): Promise<{ history: HistoryEntry[] }> {
    return { history: await this.history.host(callerOf(request), hostId) };
  }

  @Get('floatingips/:floatingIpId/history')
  async floatingIp(@Param('floatingIpId') floatingIpId: string, @Req() request: Request): Promise<{ history: HistoryEntry[] }> {
    return { history: await this.history.floatingIp(callerOf(request), floatingIpId) };
  }
}
