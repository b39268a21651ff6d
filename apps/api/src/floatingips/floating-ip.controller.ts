import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from '../http/exchange.js';
import type { FloatingIpEvent } from '#domain/index.js';
import { type FloatingIpView, evolveFloatingIpView } from '#read-model/index.js';
import { floatingIpNotFound } from '#application/floating-ips/floating-ip.errors.js';
import { FLOATING_IP_POLICY } from '#application/floating-ips/floating-ip.use-cases.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { authorizedRequest } from '../policy/authorize.js';
import type { FloatingIpAllocationView } from '#read-model/read-model.queries.js';
import { FLOATING_IP_SORTING } from '#application/queries/read.queries.js';
import { type PageLink, pageBody, pageRequestOf } from '../http/page-links.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { AnswersAsOf, ReadsFrom, asOfOf, readPositionOf } from '../read-side/read-your-writes.interceptor.js';
import { CLOCK } from '../tokens.js';
import { parseRegisterFloatingIp } from './floating-ip-request.parser.js';
import {
  GetFloatingIp,
  GetFloatingIpAllocation,
  ListFloatingIpAllocations,
  ListFloatingIps,
  RegisterFloatingIp,
  UnregisterFloatingIp,
} from './floating-ip.handlers.js';

const floatingIpView = (floatingIpId: string, events: readonly FloatingIpEvent[]): FloatingIpView => {
  const view = events.reduce<FloatingIpView | null>(evolveFloatingIpView, null);
  if (view === null) throw floatingIpNotFound(floatingIpId);
  return view;
};

@Controller('v1/floatingips')
export class FloatingIpController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  @Get()
  @ReadsFrom('floatingips')
  @AnswersAsOf()
  async list(
    @Req() request: Request,
    @Query('as_of') asOf?: string,
    @Query('limit') limit?: string,
    @Query('marker') marker?: string,
    @Query('sort_key') sortKey?: string,
    @Query('sort_dir') sortDir?: string,
  ): Promise<{ floatingips: readonly FloatingIpView[]; floatingips_links?: PageLink[] }> {
    const page = pageRequestOf({ limit, marker, sort_key: sortKey, sort_dir: sortDir }, FLOATING_IP_SORTING);
    return pageBody(
      request,
      'floatingips',
      await this.queries.execute(new ListFloatingIps(callerOf(request), page, readPositionOf(request, asOf))),
    );
  }

  @Post()
  @HttpCode(201)
  async create(
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ floatingip: FloatingIpView }> {
    authorizedRequest(request, FLOATING_IP_POLICY.register);
    const floatingIp = parseRegisterFloatingIp(body);
    const result = await this.commands.execute(new RegisterFloatingIp({ floatingIp }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(result.position, response);
    return { floatingip: floatingIpView(result.floatingIpId, result.events) };
  }

  @Get('allocations')
  @ReadsFrom('floatingips', 'floatingip-allocations')
  @AnswersAsOf()
  async allocations(
    @Req() request: Request,
    @Query('lease_id') leaseId?: string,
    @Query('reservation_id') reservationId?: string,
    @Query('as_of') asOf?: string,
  ): Promise<{ allocations: FloatingIpAllocationView[] }> {
    const filter = { leaseId: leaseId ?? null, reservationId: reservationId ?? null };
    // upstream's "not yet ended" is judged at the instant asked for
    const now = asOfOf(request)?.instant ?? this.clock().toISOString();
    return {
      allocations: await this.queries.execute(new ListFloatingIpAllocations(callerOf(request), filter, now, readPositionOf(request, asOf))),
    };
  }

  @Get(':floatingIpId')
  @ReadsFrom('floatingips')
  @AnswersAsOf()
  async show(
    @Param('floatingIpId') floatingIpId: string,
    @Req() request: Request,
    @Query('as_of') asOf?: string,
  ): Promise<{ floatingip: FloatingIpView }> {
    return { floatingip: await this.queries.execute(new GetFloatingIp(callerOf(request), floatingIpId, readPositionOf(request, asOf))) };
  }

  @Delete(':floatingIpId')
  @HttpCode(204)
  async remove(
    @Param('floatingIpId') floatingIpId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const metadata = commandMetadata(request, this.clock());
    const { position } = await this.commands.execute(new UnregisterFloatingIp({ floatingIpId }, metadata));
    this.consistency.answerWrite(position, response);
  }

  @Get(':floatingIpId/allocation')
  @ReadsFrom('floatingips', 'floatingip-allocations')
  async allocation(
    @Param('floatingIpId') floatingIpId: string,
    @Req() request: Request,
    @Query('lease_id') leaseId?: string,
    @Query('reservation_id') reservationId?: string,
  ): Promise<{ allocation: FloatingIpAllocationView }> {
    const filter = { leaseId: leaseId ?? null, reservationId: reservationId ?? null };
    return {
      allocation: await this.queries.execute(
        new GetFloatingIpAllocation(callerOf(request), floatingIpId, filter, this.clock().toISOString()),
      ),
    };
  }
}
