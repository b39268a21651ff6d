import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { DateTime } from 'luxon';
import type { LeaseEvent } from '../../../../libs/domain/src/index.js';
import { type LeaseView, evolveLeaseView } from '../../../../libs/read-model/src/index.js';
import { leaseNotFound } from '../http/not-found.js';
import { requestContext } from '../http/request-context.js';
import { allowed, authorize, leaseTarget } from '../policy/authorize.js';
import { ACTIONS } from '../../../../libs/application/src/policy/policy-defaults.js';
import { ReadModelQueries } from '../read-side/read-model.queries.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { ReadsFrom } from '../read-side/read-your-writes.interceptor.js';
import { CLOCK } from '../tokens.js';
import type { LeaseWriteResult } from '../write-side/lease-writer.js';
import { CreateLeaseCommand, DeleteLeaseCommand, UpdateLeaseCommand } from './lease.commands.js';
import { parseCreateLease, parseUpdateLease } from './lease-request.parser.js';

/** The same fold the projector runs, applied to the events just written: the response needs no wait. */
const viewOf = (events: readonly LeaseEvent[]): LeaseView | null => events.reduce<LeaseView | null>(evolveLeaseView, null);

@Controller('v1/leases')
export class LeaseController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(ReadModelQueries) private readonly queries: ReadModelQueries,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  private now(): DateTime {
    return DateTime.fromJSDate(this.clock(), { zone: 'utc' });
  }

  private written(result: LeaseWriteResult, response: Response): { lease: LeaseView } {
    this.consistency.answerWrite(result.position, response);
    const lease = viewOf(result.events);
    if (lease === null) throw leaseNotFound(result.leaseId);
    return { lease };
  }

  /** Upstream: admins (the policy's `admin` rule) see every project's leases, others their project's. */
  @Get()
  @ReadsFrom('leases')
  async list(@Req() request: Request): Promise<{ leases: LeaseView[] }> {
    const context = requestContext(request);
    authorize(context, ACTIONS.leaseGet);
    return { leases: await this.queries.leases(allowed(context, 'admin', {}) ? null : context.actor.projectId) };
  }

  /** 404 when there is no such lease, then the policy on the stored lease's project: 403 for another project's. */
  @Get(':leaseId')
  @ReadsFrom('leases')
  async show(@Param('leaseId') leaseId: string, @Req() request: Request): Promise<{ lease: LeaseView }> {
    const context = requestContext(request);
    const lease = await this.queries.lease(leaseId);
    if (lease === null) throw leaseNotFound(leaseId);
    authorize(context, ACTIONS.leaseGet, leaseTarget({ projectId: lease.project_id, userId: lease.user_id }));
    return { lease };
  }

  /** The lease belongs to the caller's project and user (the authenticated ones). */
  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<{ lease: LeaseView }> {
    const context = requestContext(request);
    authorize(context, ACTIONS.leasePost);
    const command = new CreateLeaseCommand(parseCreateLease(body, this.now()), context);
    return this.written(await this.commands.execute(command), response);
  }

  /** Authorized by the writer against the stored lease (blazar:leases:put), inside its consistency boundary. */
  @Put(':leaseId')
  async update(
    @Param('leaseId') leaseId: string,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ lease: LeaseView }> {
    const command = new UpdateLeaseCommand(leaseId, parseUpdateLease(body, this.now()), requestContext(request));
    return this.written(await this.commands.execute(command), response);
  }

  /** Authorized by the writer against the stored lease (blazar:leases:delete). */
  @Delete(':leaseId')
  @HttpCode(204)
  async remove(@Param('leaseId') leaseId: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    const result = await this.commands.execute(new DeleteLeaseCommand(leaseId, requestContext(request)));
    this.consistency.answerWrite(result.position, response);
  }
}
