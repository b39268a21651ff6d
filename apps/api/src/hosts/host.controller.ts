import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { HostEvent } from '#domain/index.js';
import { type HostRecord, type HostView, evolveHostView, toBlazarDate } from '#read-model/index.js';
import { authorizedRequest } from '../policy/authorize.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { validateBody } from '../http/validate-body.js';
import type { HostAllocationView } from '#read-model/read-model.queries.js';
import { HOST_ALLOCATION_SORTING, HOST_SORTING, ReadQueries } from '#application/queries/read.queries.js';
import { type PageLink, pageBody, pageRequestOf } from '../http/page-links.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { AnswersAsOf, ReadsFrom, asOfOf, markStale, queriesAt } from '../read-side/read-your-writes.interceptor.js';
import { CLOCK, CLOUD_CONFIG } from '../tokens.js';
import { hostNotFound } from '#application/hosts/host.errors.js';
import { HOST_POLICY, HostUseCases } from '#application/hosts/host.use-cases.js';
import type { CloudConfig } from '#plugins/cloud-config.js';
import { HOST_PROPERTY_RESOURCE_TYPE } from '#plugins/physical-host/host-properties.js';
import { PropertyPrivacyDto } from './host.dto.js';
import { parseHostRegistration, parseUpdateHost } from './host-request.parser.js';

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
    @Inject(HostUseCases) private readonly hosts: HostUseCases,
    @Inject(ReadQueries) private readonly queries: ReadQueries,
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
    return pageBody(request, 'hosts', await queriesAt(this.queries, request, asOf).hostPage(callerOf(request), page));
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
    const result = await this.hosts.register({ type: 'RegisterHost', data: { host }, metadata: commandMetadata(request, this.clock()) });
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
      await queriesAt(this.queries, request, asOf).hostAllocationPage(callerOf(request), filter, now, page),
    );
  }

  @Get('properties')
  @ReadsFrom('properties', 'hosts')
  async properties(@Req() request: Request, @Query('detail') detail?: string, @Query('all') all?: string) {
    return { resource_properties: await this.queries.properties(callerOf(request), { detail: flag(detail), all: flag(all) }) };
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
    const { position } = await this.hosts.setPropertyPrivacy({
      type: 'SetPropertyPrivacy',
      data: { propertyName: name, private: dto.private },
      metadata,
    });
    this.consistency.answerWrite(position, response);
    const stale = await this.consistency.waitFor(['properties']);
    const row = await this.queries.property(name);
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
    return { host: await queriesAt(this.queries, request, asOf).host(callerOf(request), hostId) };
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
    const result = await this.hosts.update({
      type: 'UpdateHost',
      data: { hostId, changes },
      metadata: commandMetadata(request, this.clock()),
    });
    this.consistency.answerWrite(result.position, response);
    return { host: hostView(hostId, result.events) };
  }

  @Delete(':hostId')
  @HttpCode(204)
  async remove(@Param('hostId') hostId: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    const { position } = await this.hosts.unregister({
      type: 'UnregisterHost',
      data: { hostId },
      metadata: commandMetadata(request, this.clock()),
    });
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
    return { allocation: await this.queries.hostAllocation(callerOf(request), hostId, filter, this.clock().toISOString()) };
  }
}
