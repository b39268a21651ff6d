import { Inject } from '@nestjs/common';
import { Args, Context, ID, Mutation, Resolver } from '@nestjs/graphql';
import type { HostEvent, LeaseEvent } from '#domain/index.js';
import { type HostRecord, type HostView, type LeaseView, evolveHostView } from '#read-model/index.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import { hostNotFound } from '#application/hosts/host.errors.js';
import { HOST_POLICY, HostUseCases } from '#application/hosts/host.use-cases.js';
import { LEASE_POLICY, LeaseUseCases } from '#application/leases/lease.use-cases.js';
import { leaseNotFound } from '#application/queries/read.queries.js';
import type { CloudConfig } from '#plugins/cloud-config.js';
import { parseHostRegistration, parseUpdateHost } from '../hosts/host-request.parser.js';
import { commandMetadata, instantOf } from '../http/request-context.js';
import { checkPathParameter } from '../http/route-parameters.js';
import { parseCreateLease, parseUpdateLease } from '../leases/lease-request.parser.js';
import { authorizedRequest } from '../policy/authorize.js';
import { ReadYourWrites } from '../read-side/read-your-writes.js';
import { CLOCK, CLOUD_CONFIG } from '../tokens.js';
import { type GraphqlContext, callerIn } from './graphql-context.js';
import { type CapabilityInput, CreateHostInput, HostType, UpdateHostInput } from './host.types.js';
import { CreateLeaseInput, UpdateLeaseInput, restBody } from './lease-input.types.js';
import { LeaseType } from './lease.types.js';
import { RequestReads } from './request-reads.js';

/** REST takes extra capabilities as top-level keys of the body. */
const withCapabilities = (fields: object, capabilities: readonly CapabilityInput[] | null | undefined): Record<string, unknown> => ({
  ...restBody(fields),
  ...Object.fromEntries((capabilities ?? []).map(({ key, value }) => [key, value])),
});

/**
 * The writes of REST, through the same request parsers (same checks, same messages), the same use
 * cases (same policy and rules) and the same request ids and actor in the events' metadata; each
 * answers with the position it wrote (X-Leasehold-Position) and later reads wait for it.
 */
@Resolver()
export class MutationResolver {
  constructor(
    @Inject(LeaseUseCases) private readonly leases: LeaseUseCases,
    @Inject(HostUseCases) private readonly hosts: HostUseCases,
    @Inject(ReadYourWrites) private readonly consistency: ReadYourWrites,
    @Inject(RequestReads) private readonly reads: RequestReads,
    @Inject(CLOCK) private readonly clock: () => Date,
    @Inject(CLOUD_CONFIG) private readonly cloud: CloudConfig,
  ) {}

  @Mutation(() => LeaseType, { description: 'POST /v1/leases' })
  async createLease(
    @Context() context: GraphqlContext,
    @Args('input', { type: () => CreateLeaseInput }) input: CreateLeaseInput,
  ): Promise<LeaseView> {
    const metadata = this.metadata(context);
    authorizedRequest(context.req, LEASE_POLICY.create);
    const data = parseCreateLease(restBody(input), instantOf(metadata));
    const result = await this.leases.create({ type: 'CreateLease', data, metadata });
    this.wrote(context, result.position);
    return this.leaseOf(result.leaseId, result.events);
  }

  @Mutation(() => LeaseType, { description: 'PUT /v1/leases/{id}' })
  async updateLease(
    @Context() context: GraphqlContext,
    @Args('id', { type: () => ID }) id: string,
    @Args('input', { type: () => UpdateLeaseInput }) input: UpdateLeaseInput,
  ): Promise<LeaseView> {
    const metadata = this.metadata(context);
    checkPathParameter('leaseId', id);
    const changes = parseUpdateLease(restBody(input), instantOf(metadata));
    const result = await this.leases.update({ type: 'UpdateLease', data: { leaseId: id, changes }, metadata });
    this.wrote(context, result.position);
    return this.leaseOf(result.leaseId, result.events);
  }

  @Mutation(() => ID, { description: "DELETE /v1/leases/{id}: the deleted lease's id" })
  async deleteLease(@Context() context: GraphqlContext, @Args('id', { type: () => ID }) id: string): Promise<string> {
    const metadata = this.metadata(context);
    checkPathParameter('leaseId', id);
    const result = await this.leases.delete({ type: 'DeleteLease', data: { leaseId: id }, metadata });
    this.wrote(context, result.position);
    return id;
  }

  @Mutation(() => HostType, { description: 'POST /v1/os-hosts' })
  async createHost(
    @Context() context: GraphqlContext,
    @Args('input', { type: () => CreateHostInput }) input: CreateHostInput,
  ): Promise<HostView> {
    const metadata = this.metadata(context);
    authorizedRequest(context.req, HOST_POLICY.register);
    const { capabilities, ...fields } = input;
    const host = parseHostRegistration(this.cloud.kind, withCapabilities(fields, capabilities));
    const result = await this.hosts.register({ type: 'RegisterHost', data: { host }, metadata });
    this.wrote(context, result.position);
    return this.hostOf(result.hostId, result.events);
  }

  @Mutation(() => HostType, { description: 'PUT /v1/os-hosts/{id}' })
  async updateHost(
    @Context() context: GraphqlContext,
    @Args('id', { type: () => ID }) id: string,
    @Args('input', { type: () => UpdateHostInput }) input: UpdateHostInput,
  ): Promise<HostView> {
    const metadata = this.metadata(context);
    checkPathParameter('hostId', id);
    authorizedRequest(context.req, HOST_POLICY.update);
    const { capabilities, ...fields } = input;
    const changes = parseUpdateHost(withCapabilities(fields, capabilities));
    const result = await this.hosts.update({ type: 'UpdateHost', data: { hostId: id, changes }, metadata });
    this.wrote(context, result.position);
    return this.hostOf(id, result.events);
  }

  @Mutation(() => ID, { description: "DELETE /v1/os-hosts/{id}: the unregistered host's id" })
  async deleteHost(@Context() context: GraphqlContext, @Args('id', { type: () => ID }) id: string): Promise<string> {
    const metadata = this.metadata(context);
    checkPathParameter('hostId', id);
    const { position } = await this.hosts.unregister({ type: 'UnregisterHost', data: { hostId: id }, metadata });
    this.wrote(context, position);
    return id;
  }

  /** Authenticated first (a GET carries no token): then the command's metadata, as REST makes it. */
  private metadata(context: GraphqlContext) {
    callerIn(context);
    return commandMetadata(context.req, this.clock());
  }

  private wrote(context: GraphqlContext, position: number): void {
    if (context.res !== undefined) this.consistency.answerWrite(position, context.res);
    else this.consistency.noteWrite(position);
    this.reads.of(context).wrote();
  }

  /** The same fold the projector runs, applied to the events just written: the answer needs no wait. */
  private leaseOf(leaseId: string, events: readonly LeaseEvent[]): LeaseView {
    const lease = events.reduce<LeaseView | null>(evolveLeaseView, null);
    if (lease === null) throw leaseNotFound(leaseId);
    return lease;
  }

  private hostOf(hostId: string, events: readonly HostEvent[]): HostView {
    const record = events.reduce<HostRecord | null>(evolveHostView, null);
    if (record === null) throw hostNotFound(hostId);
    return record.view;
  }
}
