import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from '../http/exchange.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { NETWORK_POLICY } from '#application/networks/network.use-cases.js';
import type { NetworkAllocationView, ResourceDocument } from '#read-model/index.js';
import { toBlazarDate } from '#read-model/index.js';
import type { NetworkSegmentEvent } from '#plugins/network/network-segment.events.js';
import { networkSegments } from '#plugins/network/network.kind.js';
import { networkNotFound } from '#plugins/network/network-segment.rules.js';
import { type NetworkView, evolveNetworkView } from '#plugins/network/network-segment.view.js';
import { PropertyPrivacyDto } from '../hosts/host.dto.js';
import { KnownParameters } from '../http/known-parameters.guard.js';
import { callerOf, commandMetadata } from '../http/request-context.js';
import { validateBody } from '../http/validate-body.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { AnswersAsOf, ReadsFrom, asOfOf, markStale, readPositionOf } from '../read-side/read-your-writes.interceptor.js';
import { CLOCK } from '../tokens.js';
import { parseRegisterNetwork, parseUpdateNetwork } from './network-request.parser.js';
import {
  GetNetwork,
  GetNetworkAllocation,
  GetNetworkHistory,
  GetNetworkProperty,
  ListNetworkAllocations,
  ListNetworkProperties,
  ListNetworks,
  RegisterNetwork,
  SetNetworkPropertyPrivacy,
  UnregisterNetwork,
  UpdateNetwork,
} from './network.handlers.js';

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
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: () => Date,
  ) {}

  @Get()
  @ReadsFrom('networks')
  @AnswersAsOf()
  async list(@Req() request: Request, @Query('as_of') asOf?: string): Promise<{ networks: readonly ResourceDocument[] }> {
    return { networks: await this.queries.execute(new ListNetworks(callerOf(request), readPositionOf(request, asOf))) };
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
    const result = await this.commands.execute(new RegisterNetwork({ network }, commandMetadata(request, this.clock())));
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
    return {
      allocations: await this.queries.execute(new ListNetworkAllocations(callerOf(request), filter, now, readPositionOf(request, asOf))),
    };
  }

  @Get('properties')
  @ReadsFrom('networks')
  async properties(@Req() request: Request, @Query('detail') detail?: string, @Query('all') all?: string) {
    const options = { detail: flag(detail), all: flag(all) };
    return { resource_properties: await this.queries.execute(new ListNetworkProperties(callerOf(request), options)) };
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
    const { position } = await this.commands.execute(new SetNetworkPropertyPrivacy(data, metadata));
    this.consistency.answerWrite(position, response);
    const stale = await this.consistency.waitFor(['networks']);
    const row = await this.queries.execute(new GetNetworkProperty(name));
    const answer = {
      resource_property: {
        created_at: toBlazarDate(row.createdAt),
        updated_at: row.updatedAt === null ? null : toBlazarDate(row.updatedAt),
        id: row.id,
        resource_type: networkSegments.kind,
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
    return { network: await this.queries.execute(new GetNetwork(callerOf(request), networkId, readPositionOf(request, asOf))) };
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
    const result = await this.commands.execute(new UpdateNetwork({ networkId, ...changes }, metadata));
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
    const { position } = await this.commands.execute(new UnregisterNetwork({ networkId }, metadata));
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
    const now = this.clock().toISOString();
    return { allocation: await this.queries.execute(new GetNetworkAllocation(callerOf(request), networkId, filter, now)) };
  }

  /** A Leasehold extension, read from the log itself (never stale): the segment's events and its registry entries. */
  @Get(':networkId/history')
  @UseGuards(KnownParameters)
  async history(@Param('networkId') networkId: string, @Req() request: Request): Promise<{ history: HistoryEntry[] }> {
    return { history: await this.queries.execute(new GetNetworkHistory(callerOf(request), networkId)) };
  }
}
