import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from '../http/exchange.js';
import type { HostEvent } from '#domain/index.js';
import { type HostRecord, type HostView, evolveHostView, toBlazarDate } from '#read-model/index.js';
import { authorizedRequest } from '../policy/authorize.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { validateBody } from '../http/validate-body.js';
import type { HostAllocationView } from '#read-model/read-model.queries.js';
import { HOST_ALLOCATION_SORTING, HOST_SORTING } from '#application/queries/read.queries.js';
import { type PageLink, pageBody, pageRequestOf } from '../http/page-links.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { AnswersAsOf, ReadsFrom, asOfOf, markStale, readPositionOf } from '../read-side/read-your-writes.interceptor.js';
import { CLOCK, CLOUD_CONFIG } from '../tokens.js';
import { hostNotFound } from '#application/hosts/host.errors.js';
import { HOST_POLICY } from '#application/hosts/host.use-cases.js';
import type { CloudConfig } from '#plugins/cloud-config.js';
import { HOST_PROPERTY_RESOURCE_TYPE } from '#plugins/physical-host/host-properties.js';
import { PropertyPrivacyDto } from './host.dto.js';
import { parseHostRegistration, parseUpdateHost } from './host-request.parser.js';
import {
  GetHost,
  GetHostAllocation,
  GetProperty,
  ListHostAllocations,
  ListHosts,
  ListProperties,
  RegisterHost,
  SetPropertyPrivacy,
  UnregisterHost,
  UpdateHost,
} from './host.handlers.js';

const hostView = (hostId: string, events: readonly HostEvent[]): HostView => {
  const record = events.reduce<HostRecord | null>(evolveHostView, null);
  if (record === null) throw hostNotFound(hostId);
  return record.view;
};

/** Upstream treats any non-empty value as true (even "False"); we read booleans as booleans. */
const flag = (value: string | undefined): boolean =>
  value !== undefined && value !== '' && !['false', '0', 'no', 'off'].includes(value.toLowerCase());

@Controller('v1/os-hosts')
export class HostController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
    @Inject(CLOUD_CONFIG) private readonly cloud: CloudConfig,
  ) {}

  @Get()
  @ReadsFrom('hosts')
  @AnswersAsOf()
  async list(
    @Req() request: Request,
    @Query('as_of') asOf?: string,
    @Query('limit') limit?: string,
    @Query('marker') marker?: string,
    @Query('sort_key') sortKey?: string,
    @Query('sort_dir') sortDir?: string,
  ): Promise<{ hosts: readonly HostView[]; hosts_links?: PageLink[] }> {
    const page = pageRequestOf({ limit, marker, sort_key: sortKey, sort_dir: sortDir }, HOST_SORTING);
    return pageBody(request, 'hosts', await this.queries.execute(new ListHosts(callerOf(request), page, readPositionOf(request, asOf))));
  }

  @Post()
  @HttpCode(201)
  async create(
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ host: HostView }> {
    authorizedRequest(request, HOST_POLICY.register);
    const host = parseHostRegistration(this.cloud.kind, body);
    const result = await this.commands.execute(new RegisterHost({ host }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(result.position, response);
    return { host: hostView(result.hostId, result.events) };
  }

  @Get('allocations')
  @ReadsFrom('hosts', 'allocations')
  @AnswersAsOf()
  async allocations(
    @Req() request: Request,
    @Query('lease_id') leaseId?: string,
    @Query('reservation_id') reservationId?: string,
    @Query('as_of') asOf?: string,
    @Query('limit') limit?: string,
    @Query('marker') marker?: string,
    @Query('sort_key') sortKey?: string,
    @Query('sort_dir') sortDir?: string,
  ): Promise<{ allocations: readonly HostAllocationView[]; allocations_links?: PageLink[] }> {
    const page = pageRequestOf({ limit, marker, sort_key: sortKey, sort_dir: sortDir }, HOST_ALLOCATION_SORTING);
    const filter = { leaseId: leaseId ?? null, reservationId: reservationId ?? null };
    // upstream's "not yet ended" is judged at the instant asked for
    const now = asOfOf(request)?.instant ?? this.clock().toISOString();
    return pageBody(
      request,
      'allocations',
      await this.queries.execute(new ListHostAllocations(callerOf(request), filter, now, page, readPositionOf(request, asOf))),
    );
  }

  @Get('properties')
  @ReadsFrom('properties', 'hosts')
  async properties(@Req() request: Request, @Query('detail') detail?: string, @Query('all') all?: string) {
    return {
      resource_properties: await this.queries.execute(new ListProperties(callerOf(request), { detail: flag(detail), all: flag(all) })),
    };
  }

  @Patch('properties/:name')
  async setProperty(
    @Param('name') name: string,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    authorizedRequest(request, HOST_POLICY.setPropertyPrivacy);
    const dto = validateBody(PropertyPrivacyDto, body);
    const metadata = commandMetadata(request, this.clock());
    const { position } = await this.commands.execute(new SetPropertyPrivacy({ propertyName: name, private: dto.private }, metadata));
    this.consistency.answerWrite(position, response);
    const stale = await this.consistency.waitFor(['properties']);
    const row = await this.queries.execute(new GetProperty(name));
    const answer = {
      resource_property: {
        created_at: toBlazarDate(row.createdAt),
        updated_at: row.updatedAt === null ? null : toBlazarDate(row.updatedAt),
        id: row.id,
        resource_type: HOST_PROPERTY_RESOURCE_TYPE,
        property_name: row.name,
        private: row.private,
      },
    };
    return stale === null ? answer : markStale(response, answer, stale);
  }

  @Get(':hostId')
  @ReadsFrom('hosts')
  @AnswersAsOf()
  async show(@Param('hostId') hostId: string, @Req() request: Request, @Query('as_of') asOf?: string): Promise<{ host: HostView }> {
    return { host: await this.queries.execute(new GetHost(callerOf(request), hostId, readPositionOf(request, asOf))) };
  }

  @Put(':hostId')
  async update(
    @Param('hostId') hostId: string,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    authorizedRequest(request, HOST_POLICY.update);
    const changes = parseUpdateHost(body);
    const result = await this.commands.execute(new UpdateHost({ hostId, changes }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(result.position, response);
    return { host: hostView(hostId, result.events) };
  }

  @Delete(':hostId')
  @HttpCode(204)
  async remove(@Param('hostId') hostId: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    const { position } = await this.commands.execute(new UnregisterHost({ hostId }, commandMetadata(request, this.clock())));
    this.consistency.answerWrite(position, response);
  }

  @Get(':hostId/allocation')
  @ReadsFrom('hosts', 'allocations')
  async allocation(
    @Param('hostId') hostId: string,
    @Req() request: Request,
    @Query('lease_id') leaseId?: string,
    @Query('reservation_id') reservationId?: string,
  ) {
    const filter = { leaseId: leaseId ?? null, reservationId: reservationId ?? null };
    return { allocation: await this.queries.execute(new GetHostAllocation(callerOf(request), hostId, filter, this.clock().toISOString())) };
  }
}
