import { Controller, Get, Inject, Param, Req, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request } from '../http/exchange.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { callerOf } from '../http/request-context.js';
import { GetFloatingIpHistory, GetHostHistory, GetLeaseHistory, GetLeaseRequestHistory } from './history.handlers.js';

/** What happened to a lease, lease request, host or floating IP, read from the log itself (never stale). */
@Controller('v1')
@UseGuards(KnownParameters)
export class HistoryController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @Get('leases/:leaseId/history')
  async lease(@Param('leaseId') leaseId: string, @Req() request: Request): Promise<{ history: HistoryEntry[] }> {
    return { history: await this.queries.execute(new GetLeaseHistory(callerOf(request), leaseId)) };
  }

  @Get('lease-requests/:requestId/history')
  async leaseRequest(@Param('requestId') requestId: string, @Req() request: Request): Promise<{ history: HistoryEntry[] }> {
    return { history: await this.queries.execute(new GetLeaseRequestHistory(callerOf(request), requestId)) };
  }

  @Get('os-hosts/:hostId/history')
  async host(@Param('hostId') hostId: string, @Req() request: Request): Promise<{ history: HistoryEntry[] }> {
    return { history: await this.queries.execute(new GetHostHistory(callerOf(request), hostId)) };
  }

  @Get('floatingips/:floatingIpId/history')
  async floatingIp(@Param('floatingIpId') floatingIpId: string, @Req() request: Request): Promise<{ history: HistoryEntry[] }> {
    return { history: await this.queries.execute(new GetFloatingIpHistory(callerOf(request), floatingIpId)) };
  }
}
