import { Inject } from '@nestjs/common';
import { Args, Context, ID, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { HOST_VIEW_KEYS, type FloatingIpView, type HostView } from '#read-model/index.js';
import { checkPathParameter } from '../http/route-parameters.js';
import type { GraphqlContext } from './graphql-context.js';
import { allocationOf } from './allocations.js';
import { CapabilityType, FloatingIpType, HostFilterInput, HostType } from './host.types.js';
import { AllocationType } from './lease.types.js';
import { RequestReads } from './request-reads.js';

const OWN_KEYS = new Set(HOST_VIEW_KEYS);

/** The extra capabilities REST merges into the host as top-level keys. */
const capabilitiesOf = (host: HostView): CapabilityType[] =>
  Object.entries(host).flatMap(([key, value]) => (OWN_KEYS.has(key) ? [] : [{ key, value: String(value) }]));

const matches = (host: HostView, filter: HostFilterInput | null): boolean => {
  if (filter === null) return true;
  if (filter.reservable !== undefined && filter.reservable !== null && host.reservable !== filter.reservable) return false;
  return (filter.capabilities ?? []).every(
    ({ key, value }) => !OWN_KEYS.has(key) && host[key] !== undefined && String(host[key]) === value,
  );
};

/** Hosts as GET /v1/os-hosts gives them (admins, by the same policy), and floating IPs as GET /v1/floatingips. */
@Resolver(() => HostType)
export class HostResolver {
  constructor(@Inject(RequestReads) private readonly reads: RequestReads) {}

  @Query(() => [HostType], { description: 'Hosts, in registration order, optionally only those with given extra capabilities' })
  async hosts(
    @Context() context: GraphqlContext,
    @Args('filter', { type: () => HostFilterInput, nullable: true }) filter: HostFilterInput | null,
  ): Promise<HostView[]> {
    const reads = this.reads.of(context);
    await reads.fresh('hosts');
    return (await reads.hosts()).filter((host) => matches(host, filter ?? null));
  }

  @Query(() => HostType)
  async host(@Context() context: GraphqlContext, @Args('id', { type: () => ID }) id: string): Promise<HostView> {
    const reads = this.reads.of(context);
    checkPathParameter('hostId', id);
    await reads.fresh('hosts');
    return reads.host(id);
  }

  @Query(() => [FloatingIpType])
  async floatingIps(@Context() context: GraphqlContext): Promise<FloatingIpView[]> {
    const reads = this.reads.of(context);
    await reads.fresh('floatingips');
    return reads.floatingIps();
  }

  @ResolveField('capabilities', () => [CapabilityType])
  capabilities(@Parent() host: HostView): CapabilityType[] {
    return capabilitiesOf(host);
  }

  @ResolveField('allocations', () => [AllocationType])
  async allocations(@Parent() host: HostView, @Context() context: GraphqlContext): Promise<AllocationType[]> {
    return (await this.reads.of(context).bookingsOn('host', host.id)).map(allocationOf);
  }
}
