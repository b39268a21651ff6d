import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from '../http/exchange.js';
import type { LeaseEvent } from '#domain/index.js';
import type { LeaseView } from '#read-model/index.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import { callerOf, commandMetadata, instantOf } from '../http/request-context.js';
import { authorizedRequest } from '../policy/authorize.js';
import { LEASE_SORTING, leaseNotFound } from '#application/queries/read.queries.js';
import { type PageLink, documentPageBody, pageBody, pageRequestOf } from '../http/page-links.js';
import type { JsonText } from '../http/json-text.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { AnswersAsOf, ReadsFrom, readPositionOf } from '../read-side/read-your-writes.interceptor.js';
import { CLOCK } from '../tokens.js';
import type { LeaseWritten } from '#application/leases/lease.commands.js';
import { LEASE_POLICY } from '#application/leases/lease.use-cases.js';
import { parseCreateLease, parseUpdateLease } from './lease-request.parser.js';
import { CreateLease, DeleteLease, GetLease, ListLeaseDocuments, ListLeases, UpdateLease } from './lease.handlers.js';

/** The same fold the projector runs, applied to the events just written: the response needs no wait. */
const viewOf = (events: readonly LeaseEvent[]): LeaseView | null => events.reduce<LeaseView | null>(evolveLeaseView, null);

@Controller('v1/leases')
export class LeaseController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  private written(result: LeaseWritten, response: Response): { lease: LeaseView } {
    this.consistency.answerWrite(result.position, response);
    const lease = viewOf(result.events);
    if (lease === null) throw leaseNotFound(result.leaseId);
    return { lease };
  }

  /** Upstream: admins (the policy's `admin` rule) see every project's leases, others their project's. */
  @Get()
  @ReadsFrom('leases')
  @AnswersAsOf()
  async list(
    @Req() request: Request,
    @Query('as_of') asOf?: string,
    @Query('status') status?: string,
    @Query('project_id') projectId?: string,
    @Query('limit') limit?: string,
    @Query('marker') marker?: string,
    @Query('sort_key') sortKey?: string,
    @Query('sort_dir') sortDir?: string,
  ): Promise<{ leases: readonly LeaseView[]; leases_links?: PageLink[] } | JsonText> {
    const page = pageRequestOf({ limit, marker, sort_key: sortKey, sort_dir: sortDir }, LEASE_SORTING);
    const filter = { status: status ?? null, projectId: projectId ?? null };
    // the live list: the stored documents, filtered and paged by the database, not parsed and serialised again
    if (asOf === undefined)
      return documentPageBody(request, 'leases', await this.queries.execute(new ListLeaseDocuments(callerOf(request), filter, page)));
    return pageBody(
      request,
      'leases',
      await this.queries.execute(new ListLeases(callerOf(request), filter, page, readPositionOf(request, asOf))),
    );
  }

  /** 404 when there is no such lease, then the policy on the stored lease's project: 403 for another project's. */
  @Get(':leaseId')
  @ReadsFrom('leases')
  @AnswersAsOf()
  async show(@Param('leaseId') leaseId: string, @Req() request: Request, @Query('as_of') asOf?: string): Promise<{ lease: LeaseView }> {
    return { lease: await this.queries.execute(new GetLease(callerOf(request), leaseId, readPositionOf(request, asOf))) };
  }

  /** The lease belongs to the caller's project and user; the policy is asked before the body (upstream answers 403 before 400). */
  @Post()
  @HttpCode(201)
  async create(
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ lease: LeaseView }> {
    authorizedRequest(request, LEASE_POLICY.create);
    const metadata = commandMetadata(request, this.clock());
    const data = parseCreateLease(body, instantOf(metadata));
    return this.written(await this.commands.execute(new CreateLease(data, metadata)), response);
  }

  /** Authorized by the use case against the stored lease (blazar:leases:put), inside its consistency boundary. */
  @Put(':leaseId')
  async update(
    @Param('leaseId') leaseId: string,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ lease: LeaseView }> {
    const metadata = commandMetadata(request, this.clock());
    const changes = parseUpdateLease(body, instantOf(metadata));
    return this.written(await this.commands.execute(new UpdateLease({ leaseId, changes }, metadata)), response);
  }

  /** Authorized by the use case against the stored lease (blazar:leases:delete). */
  @Delete(':leaseId')
  @HttpCode(204)
  async remove(@Param('leaseId') leaseId: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    const result = await this.commands.execute(new DeleteLease({ leaseId }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(result.position, response);
  }
}
