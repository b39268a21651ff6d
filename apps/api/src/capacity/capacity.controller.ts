import { Controller, Get, Inject, Query, Req, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { KnownParameters } from '../http/known-parameters.guard.js';
import type { Request } from '../http/exchange.js';
import { ACTIONS } from '#application/policy/policy-defaults.js';
import { callerOf } from '../http/request-context.js';
import { authorizedRequest } from '../policy/authorize.js';
import { parseCapacityQuery } from './capacity-request.parser.js';
import { reportBody } from './capacity-body.js';
import { GetCapacityReport } from './capacity.handlers.js';

/** The operators' capacity table (a Leasehold extension; docs/availability.md). */
@Controller('v1')
@UseGuards(KnownParameters)
export class CapacityController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @Get('capacity')
  async report(
    @Req() request: Request,
    @Query('start') start?: string,
    @Query('end') end?: string,
    @Query('step') step?: string,
    @Query('duration') duration?: string,
    @Query('failure_domain') failureDomain?: string,
  ) {
    // the policy first: a member learns nothing, not even which parameter was wrong
    authorizedRequest(request, ACTIONS.capacityGet);
    const parsed = parseCapacityQuery({ start, end, step, duration, failure_domain: failureDomain });
    return reportBody(await this.queries.execute(new GetCapacityReport(callerOf(request), parsed)));
  }
}
