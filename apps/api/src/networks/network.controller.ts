import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { NetworkQueries } from '#application/networks/network.queries.js';
import { NETWORK_POLICY, NetworkUseCases } from '#application/networks/network.use-cases.js';
import type { NetworkAllocationView, ResourceDocument } from '#read-model/index.js';
import { toBlazarDate } from '#read-model/index.js';
import type { NetworkSegmentEvent } from '#plugins/network/network-segment.events.js';
import { networkNotFound } from '#plugins/network/network-segment.rules.js';
import { type NetworkView, evolveNetworkView } from '#plugins/network/network-segment.view.js';
import { PropertyPrivacyDto } from '../hosts/host.dto.js';
import { KnownParameters } from '../http/known-parameters.guard.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { validateBody } from '../http/validate-body.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { AnswersAsOf, ReadsFrom, asOfOf, markStale } from '../read-side/read-your-writes.interceptor.js';
import { CLOCK } from '../tokens.js';
import { parseRegisterNetwork, parseUpdateNetwork } from './network-request.parser.js';

const networkView = (networkId: string, events: readonly NetworkSegmentEvent[]): NetworkView => {
  const view = events.reduce<NetworkView | null>(evolveNetworkView, null);
  if (view === null) throw networkNotFound(networkId);
  return view;
};

/** Upstream treats any non-empty value as true (even "False"); we read booleans as booleans, as for hosts. */
const flag = (value: string | undefined): boolean =>
  value !== undefined && value !== '' && !['false', '0', 'no', 'off'].includes(value.toLowerCase());

/** Chameleon's network segments (`openstack reservation network ...`): admin only by default, as hosts. */
@Controller('v1/networks')
export class NetworkController {
  constructor(
    @Inject(NetworkUseCases) private readonly networks: NetworkUseCases,
    @Inject(NetworkQueries) private readonly queries: NetworkQueries,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  /** Live without `as_of`, else as of the position the interceptor resolved it to. */
  private at(request: Request, asOf: string | undefined): NetworkQueries {
    const resolved = asOf === undefined ? null : asOfOf(request);
    if (asOf !== undefined && resolved === null) throw new Error(`${request.method} ${request.path}: as_of given but not resolved`);
    return resolved === null ? this.queries : this.queries.asOf(resolved.position);
  }

  @Get()
  @ReadsFrom('networks')
  @AnswersAsOf()
  async list(@Req() request: Request, @Query('as_of') asOf?: string): Promise<{ networks: readonly ResourceDocument[] }> {
    return { networks: await this.at(request, asOf).networks(callerOf(request)) };
  }

  @Post()
  @HttpCode(201)
  async create(
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ network: NetworkView }> {
    authorizedRequest(request, NETWORK_POLICY.register);
    const network = parseRegisterNetwork(body);
    const result = await this.networks.register({
      type: 'RegisterNetwork',
      data: { network },
      metadata: commandMetadata(request, this.clock()),
    });
    this.consistency.answerWrite(result.position, response);
    return { network: networkView(result.networkId, result.events) };
  }

  @Get('allocations')
  @ReadsFrom('networks', 'network-allocations')
  @AnswersAsOf()
  async allocations(
    @Req() request: Request,
    @Query('lease_id') leaseId?: string,
    @Query('reservation_id') reservationId?: string,
    @Query('as_of') asOf?: string,
  ): Promise<{ allocations: NetworkAllocationView[] }> {
    const filter = { leaseId: leaseId ?? null, reservationId: reservationId ?? null };
    // Chameleon's "not yet ended" is judged at the instant asked for
    const now = asOfOf(request)?.instant ?? this.clock().toISOString();
    return { allocations: await this.at(request, asOf).allocations(callerOf(request), filter, now) };
  }

  @Get('properties')
  @ReadsFrom('networks')
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
    authorizedRequest(request, NETWORK_POLICY.setPropertyPrivacy);
    const dto = validateBody(PropertyPrivacyDto, body);
    const metadata = commandMetadata(request, this.clock());
    const data = { propertyName: name, private: dto.private };
    const { position } = await this.networks.setPropertyPrivacy({ type: 'SetNetworkPropertyPrivacy', data, metadata });
    this.consistency.answerWrite(position, response);
    const stale = await this.consistency.waitFor(['networks']);
    const row = await this.queries.property(name);
    const answer = {
      resource_property: {
        created_at: toBlazarDate(row.createdAt),
        updated_at: row.updatedAt === null ? null : toBlazarDate(row.updatedAt),
        id: row.id,
        resource_type: 'network',
        property_name: row.name,
        private: row.private,
      },
    };
    return stale === null ? answer : markStale(response, answer, stale);
  }

  @Get(':networkId')
  @ReadsFrom('networks')
  @AnswersAsOf()
  async show(
    @Param('networkId') networkId: string,
    @Req() request: Request,
    @Query('as_of') asOf?: string,
  ): Promise<{ network: ResourceDocument }> {
    return { network: await this.at(request, asOf).network(callerOf(request), networkId) };
  }

  @Put(':networkId')
  async update(
    @Param('networkId') networkId: string,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ network: NetworkView }> {
    authorizedRequest(request, NETWORK_POLICY.update);
    const changes = parseUpdateNetwork(body);
    const metadata = commandMetadata(request, this.clock());
    const result = await this.networks.update({ type: 'UpdateNetwork', data: { networkId, ...changes }, metadata });
    this.consistency.answerWrite(result.position, response);
    return { network: networkView(networkId, result.events) };
  }

  @Delete(':networkId')
  @HttpCode(204)
  async remove(
    @Param('networkId') networkId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const metadata = commandMetadata(request, this.clock());
    const { position } = await this.networks.unregister({ type: 'UnregisterNetwork', data: { networkId }, metadata });
    this.consistency.answerWrite(position, response);
  }

  @Get(':networkId/allocation')
  @ReadsFrom('networks', 'network-allocations')
  async allocation(
    @Param('networkId') networkId: string,
    @Req() request: Request,
    @Query('lease_id') leaseId?: string,
    @Query('reservation_id') reservationId?: string,
  ): Promise<{ allocation: NetworkAllocationView }> {
    const filter = { leaseId: leaseId ?? null, reservationId: reservationId ?? null };
    return { allocation: await this.queries.allocation(callerOf(request), networkId, filter, this.clock().toISOString()) };
  }

  /** A Leasehold extension, read from the log itself (never stale): the segment's events and its registry entries. */
  @Get(':networkId/history')
  @UseGuards(KnownParameters)
  async history(@Param('networkId') networkId: string, @Req() request: Request): Promise<{ history: HistoryEntry[] }> {
    return { history: await this.queries.networkHistory(callerOf(request), networkId) };
  }
}
