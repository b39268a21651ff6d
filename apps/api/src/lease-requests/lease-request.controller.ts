import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { LEASE_REQUEST_POLICY } from '#application/lease-requests/lease-request.use-cases.js';
import type { Request, Response } from '../http/exchange.js';
import { callerOf, commandMetadata, instantOf } from '../http/request-context.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { CLOCK } from '../tokens.js';
import { parseLeaseRequest } from './lease-request-body.parser.js';
import { GetLeaseRequest, ListLeaseRequests, SubmitLeaseRequest, WithdrawLeaseRequest } from './lease-request.handlers.js';
import { type LeaseRequestDetailView, type LeaseRequestView, leaseRequestDetailView, leaseRequestView } from './lease-request.view.js';

/** Lease requests (a Leasehold extension, docs/queue.md); answered from the write side, so a caller's own writes show. */
@Controller('v1/lease-requests')
export class LeaseRequestController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  /** The caller's project's requests in submission order; an admin's, every project's. */
  @Get()
  async list(@Req() request: Request): Promise<{ lease_requests: LeaseRequestView[] }> {
    const records = await this.queries.execute(new ListLeaseRequests(callerOf(request)));
    return { lease_requests: records.map(leaseRequestView) };
  }

  /** 404 when there is no such request, then the policy on its project (403 for another project's). */
  @Get(':requestId')
  async show(@Param('requestId') requestId: string, @Req() request: Request): Promise<{ lease_request: LeaseRequestDetailView }> {
    const detail = await this.queries.execute(new GetLeaseRequest(callerOf(request), requestId, this.clock().toISOString()));
    return { lease_request: leaseRequestDetailView(detail) };
  }

  /** The policy first (403 before 400, as for a lease); admitted at once as a lease when it fits at its not_before. */
  @Post()
  @HttpCode(201)
  async submit(
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ lease_request: LeaseRequestDetailView }> {
    authorizedRequest(request, LEASE_REQUEST_POLICY.submit);
    const metadata = commandMetadata(request, this.clock());
    const data = parseLeaseRequest(body, instantOf(metadata));
    const { detail, logPosition } = await this.commands.execute(new SubmitLeaseRequest(data, metadata));
    this.consistency.answerWrite(logPosition, response);
    return { lease_request: leaseRequestDetailView(detail) };
  }

  /** Authorized by the use case against the stored request; 409 once it is admitted or withdrawn. */
  @Delete(':requestId')
  @HttpCode(204)
  async withdraw(
    @Param('requestId') requestId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const position = await this.commands.execute(new WithdrawLeaseRequest({ requestId }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(position, response);
  }
}
