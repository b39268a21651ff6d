import type { EffectRecord, Leftover } from '#domain/index.js';
import { type EffectContext, EffectFailedError, type ReservationEffects, done } from '../../effects.port.js';
import { type FreepoolAggregate, type FreepoolLayout, freepoolFor } from '../../openstack/enrollment/freepool.js';
import { type Aggregate, type NovaClient, zoneOfComputeHost } from '../../openstack/nova.client.js';
import { ignoreNotFound } from '../../openstack/openstack.errors.js';
import { requestIdFor } from '../../openstack/openstack.session.js';
import type { PlacementClient } from '../../openstack/placement.client.js';
import {
  FREEPOOL_TRAIT,
  type OpenStackClients,
  type ServerDeletion,
  clientsFor,
  deleteServers,
  ensureAggregate,
  hostnameOf,
  ignoreConflict,
  includesAll,
  recording,
  requireHypervisor,
  reservationAggregateName,
  reservationCustomName,
} from '../../openstack/effects/openstack-effects.support.js';
import {
  type PreemptibleOptions,
  closePreemptible,
  openPreemptible,
  reapPreemptibles,
} from '../../openstack/effects/preemptible.openstack-effects.js';
import type { HostReservation } from '../host.reservation.js';
import { BLAZAR_OWNER_KEY, blazarAggregateOf } from '../../openstack/effects/blazar-aggregates.js';
import { aggregatesOf, heldAggregateOf, ownAggregateOf } from './host-aggregates.js';

export interface OpenStackHostEffectsOptions {
  /** Upstream's [nova]aggregate_freepool_name. */
  readonly freepoolName: string;
  /** One freepool per availability zone (enrollment/freepool.ts); default false. */
  readonly freepoolPerZone?: boolean;
  /** Upstream's [physical:host]before_end: what a reservation's 'default' before-end action means. */
  readonly defaultBeforeEnd?: 'snapshot' | '';
  readonly serverDeletion?: ServerDeletion;
  /** LEASEHOLD_PREEMPTIBLE=true: free hosts take preemptible servers, reaped at a reservation's start; null or absent: off. */
  readonly preemptible?: PreemptibleOptions | null;
}

/**
 * A reserved host by its two Nova names: the hypervisor's (= its Placement root provider) and the compute service's (aggregates, servers).
 */
interface ReservedHost {
  readonly hostId: string;
  readonly hypervisor: string;
  readonly service: string;
}

/**
 * Upstream's physical host plugin on a real Nova and Placement, isolated with Nova's own features
 * (docs/openstack.md, "Scheduler isolation"): at start each host's root provider gets the trait
 * CUSTOM_RESERVATION_<id>, and the host joins the aggregate `reservation-<id>` (which requires that
 * trait and admits only the lease's project) before it leaves the freepool. Tenants boot on it with an
 * image whose property `trait:CUSTOM_RESERVATION_<id>=required`, or with a flavor carrying that extra spec.
 * At end the servers on the hosts are deleted and everything is undone, hosts back in the freepool first.
 * A reservation imported from Blazar that Blazar started keeps Blazar's aggregate (named by its id) with its hosts
 * where they are; its end releases that one (docs/migrating-from-blazar.md, "Adopting Blazar's Nova state").
 */
export class OpenStackHostEffects implements ReservationEffects<HostReservation> {
  private readonly freepool: FreepoolLayout;
  private readonly defaultBeforeEnd: 'snapshot' | '';
  private readonly serverDeletion: ServerDeletion;
  private readonly preemptible: PreemptibleOptions | null;

  constructor(
    private readonly clients: OpenStackClients,
    options: OpenStackHostEffectsOptions,
  ) {
    this.freepool = { name: options.freepoolName, perZone: options.freepoolPerZone ?? false };
    this.defaultBeforeEnd = options.defaultBeforeEnd ?? '';
    this.serverDeletion = options.serverDeletion ?? { timeoutMs: 120_000, pollMs: 1_000 };
    this.preemptible = options.preemptible ?? null;
  }

  async onStart(context: EffectContext, reservation: HostReservation): Promise<readonly EffectRecord[]> {
    const { nova, placement } = clientsFor(this.clients, context);
    return recording(async (effects) => {
      const hosts = await this.resolve(nova, context, reservation);
      const freepoolOf = await this.freepoolsOf(
        nova,
        placement,
        hosts.map((host) => host.service),
        effects,
      );
      const aggregates = await nova.listAggregates();
      const earlier = heldAggregateOf(aggregates, reservation.id);
      // checked before any change: a host someone else holds fails the start with nothing to undo
      const stray = hosts.find(
        (host) => !freepoolOf(host.service).hosts.includes(host.service) && !(earlier?.hosts.includes(host.service) ?? false),
      );
      if (stray !== undefined)
        throw new EffectFailedError(`Host ${stray.hypervisor} is not in the freepool ${freepoolOf(stray.service).name}`, effects);
      const trait = reservationCustomName(reservation.id);
      effects.push(done({ operation: 'trait.create', trait }, await placement.ensureTrait(trait)));
      for (const host of hosts) effects.push(await this.addRootTrait(placement, host, trait));
      const aggregate = await this.ensureReservationAggregate(nova, context, reservation, aggregates, effects);
      // into the reservation's aggregate first: in both at once, the host is closed to every request
      for (const host of hosts) {
        const added = aggregate.hosts.includes(host.service)
          ? false
          : await ignoreConflict(nova.addAggregateHost(aggregate.id, host.service));
        effects.push(done({ operation: 'aggregate.add_host', aggregate: aggregate.name, host: host.service }, added));
      }
      // closed to every request now, so no preemptible server can land while they are reaped
      if (this.preemptible !== null) effects.push(...(await this.reap(nova, placement, context, hosts, this.preemptible)));
      for (const host of hosts) {
        const freepool = freepoolOf(host.service);
        const removed =
          freepool.hosts.includes(host.service) && (await ignoreNotFound(nova.removeAggregateHost(freepool.id, host.service)));
        effects.push(done({ operation: 'aggregate.remove_host', aggregate: freepool.name, host: host.service }, removed));
      }
    });
  }

  /** `snapshot`: one Glance image per server on the reserved hosts, named after it, made once (the upload is not awaited). */
  async beforeEnd(context: EffectContext, reservation: HostReservation): Promise<readonly EffectRecord[]> {
    const action = reservation.beforeEnd === 'default' ? this.defaultBeforeEnd : reservation.beforeEnd;
    if (action !== 'snapshot') return [];
    const clients = clientsFor(this.clients, context);
    const glance = this.clients.session.withRequestId(requestIdFor(context.idempotencyKey));
    return recording(async (effects) => {
      const aggregate = heldAggregateOf(await clients.nova.listAggregates(), reservation.id);
      for (const host of await this.resolve(clients.nova, context, reservation)) {
        if (aggregate?.hosts.includes(host.service) !== true) continue;
        const imageIds: string[] = [];
        let made = 0;
        for (const server of await clients.nova.listServers({ host: host.service })) {
          const imageName = `reservation-${reservation.id}-${server.id}`;
          const found = (await glance.request<{ images: { id: string }[] }>('image', 'GET', '/v2/images', { query: { name: imageName } }))
            .body.images[0];
          if (found !== undefined) imageIds.push(found.id);
          else {
            imageIds.push(
              await clients.nova.createServerImage(server.id, imageName, {
                'blazar:reservation': reservation.id,
                'blazar:server': server.id,
              }),
            );
            made++;
          }
        }
        effects.push(
          done(
            { operation: 'servers.snapshot', host: host.service, servers: imageIds.length, image_ids: imageIds },
            made > 0 || imageIds.length === 0,
          ),
        );
      }
    });
  }

  /**
   * Converging a started reservation is its start once more (every step found done is marked
   * `already`; anything else is drift put back, which the reconciler records), then members of its
   * aggregate it no longer holds (a failed host healing replaced) lose their servers (Nova deletes
   * them locally when the compute is down), their trait, and go back to the freepool.
   */
  async onUpdate(context: EffectContext, reservation: HostReservation): Promise<readonly EffectRecord[]> {
    const converged = await this.onStart(context, reservation);
    const { nova, placement } = clientsFor(this.clients, context);
    return recording(async (effects) => {
      effects.push(...converged);
      const held = new Set((await this.resolve(nova, context, reservation)).map((host) => host.service));
      const aggregate = heldAggregateOf(await nova.listAggregates(), reservation.id);
      const released = aggregate?.hosts.filter((member) => !held.has(member)) ?? [];
      if (aggregate === null || released.length === 0) return;
      await this.releaseMembers(nova, placement, { ...aggregate, hosts: released }, effects);
      const hypervisors = await nova.listHypervisors();
      const trait = reservationCustomName(reservation.id);
      for (const service of released) {
        const hypervisor = hypervisors.find((h) => h.service.host === service);
        if (hypervisor === undefined) continue;
        effects.push(await this.removeRootTrait(placement, { hypervisor: hypervisor.hypervisor_hostname }, trait));
        if (this.preemptible !== null) effects.push(await openPreemptible(placement, hypervisor.hypervisor_hostname));
      }
    });
  }

  /**
   * The reservation's aggregates (Leasehold's, Blazar's) and, while they stand, the servers on their members (hosts back
   * in the freepool may carry others' servers).
   */
  async leftovers(context: EffectContext, reservation: HostReservation): Promise<readonly Leftover[]> {
    const { nova } = clientsFor(this.clients, context);
    const leftovers: Leftover[] = [];
    for (const aggregate of aggregatesOf(await nova.listAggregates(), reservation.id)) {
      const servers = (await Promise.all(aggregate.hosts.map((host) => nova.listServers({ host })))).flat();
      leftovers.push(
        { reservationId: reservation.id, kind: 'aggregate', id: aggregate.name },
        ...servers.map((server) => ({ reservationId: reservation.id, kind: 'server' as const, id: server.id })),
      );
    }
    return leftovers;
  }

  /** An imported reservation's end releases Blazar's aggregate as Leasehold's: servers deleted, hosts back in the freepool, deleted. */
  async onEnd(context: EffectContext, reservation: HostReservation): Promise<readonly EffectRecord[]> {
    const { nova, placement } = clientsFor(this.clients, context);
    return recording(async (effects) => {
      const aggregates = await nova.listAggregates();
      const own = ownAggregateOf(aggregates, reservation.id);
      const blazar = blazarAggregateOf(aggregates, reservation.id);
      for (const aggregate of [own, blazar]) if (aggregate !== null) await this.releaseMembers(nova, placement, aggregate, effects);
      const trait = reservationCustomName(reservation.id);
      for (const host of await this.resolve(nova, context, reservation)) {
        effects.push(await this.removeRootTrait(placement, host, trait));
        // back in the freepool (releaseMembers): free for preemptible servers again
        if (this.preemptible !== null) effects.push(await openPreemptible(placement, host.hypervisor));
      }
      effects.push(await this.deleteAggregate(nova, reservationAggregateName(reservation.id), own));
      if (blazar !== null) effects.push(await this.deleteAggregate(nova, blazar.name, blazar));
      effects.push(done({ operation: 'trait.delete', trait }, await ignoreNotFound(placement.deleteTrait(trait))));
    });
  }

  /** Gone counts as done: a retry after a crash finds nothing to delete. */
  private async deleteAggregate(nova: NovaClient, name: string, aggregate: Aggregate | null): Promise<EffectRecord> {
    const deleted = aggregate !== null && (await ignoreNotFound(nova.deleteAggregate(aggregate.id)));
    return done({ operation: 'aggregate.delete', aggregate: name, aggregate_id: aggregate?.id ?? null }, deleted);
  }

  /**
   * Only hosts still in the reservation's aggregate lose their servers: after a crash, a host already
   * back in the freepool may carry other reservations' instances.
   */
  private async releaseMembers(nova: NovaClient, placement: PlacementClient, aggregate: Aggregate, effects: EffectRecord[]): Promise<void> {
    const freepoolOf = await this.freepoolsOf(nova, placement, aggregate.hosts, effects);
    for (const host of aggregate.hosts) {
      const servers = await nova.listServers({ host });
      effects.push({ operation: 'servers.delete', host, servers: await deleteServers(nova, servers, this.serverDeletion) });
      const freepool = freepoolOf(host);
      const added = freepool.hosts.includes(host) ? false : await ignoreConflict(nova.addAggregateHost(freepool.id, host));
      effects.push(done({ operation: 'aggregate.add_host', aggregate: freepool.name, host }, added));
      const removed = await ignoreNotFound(nova.removeAggregateHost(aggregate.id, host));
      effects.push(done({ operation: 'aggregate.remove_host', aggregate: aggregate.name, host }, removed));
    }
  }

  private async resolve(nova: NovaClient, context: EffectContext, reservation: HostReservation): Promise<ReservedHost[]> {
    const hosts: ReservedHost[] = [];
    for (const hostId of reservation.hostIds) {
      const hypervisor = await requireHypervisor(nova, hostnameOf(context, hostId));
      hosts.push({ hostId, hypervisor: hypervisor.hypervisor_hostname, service: hypervisor.service.host });
    }
    return hosts;
  }

  /** Closes the hosts to new preemptible servers, then shuts down and deletes those running there. */
  private async reap(
    nova: NovaClient,
    placement: PlacementClient,
    context: EffectContext,
    hosts: readonly ReservedHost[],
    options: PreemptibleOptions,
  ): Promise<EffectRecord[]> {
    const effects: EffectRecord[] = [];
    for (const host of hosts) effects.push(await closePreemptible(placement, host.hypervisor));
    effects.push(...(await reapPreemptibles(nova, hosts, options, context.idempotencyKey)));
    return effects;
  }

  /**
   * Each host's freepool, made ready: the cloud's one, or per zone the one of the zone Nova puts the
   * host in now (a reservation's aggregate has no zone, so a reserved host keeps its own).
   */
  private async freepoolsOf(
    nova: NovaClient,
    placement: PlacementClient,
    services: readonly string[],
    effects: EffectRecord[],
  ): Promise<(service: string) => Aggregate> {
    if (!this.freepool.perZone) {
      const freepool = await this.ensureFreepool(nova, placement, freepoolFor(this.freepool, ''), effects);
      return () => freepool;
    }
    const zones = await nova.listAvailabilityZones();
    const byName = new Map<string, Aggregate>();
    const byService = new Map<string, Aggregate>();
    for (const service of services) {
      const wanted = freepoolFor(this.freepool, zoneOfComputeHost(zones, service));
      const freepool = byName.get(wanted.name) ?? (await this.ensureFreepool(nova, placement, wanted, effects));
      byName.set(wanted.name, freepool);
      byService.set(service, freepool);
    }
    return (service) => {
      const freepool = byService.get(service);
      if (freepool === undefined) throw new Error(`No freepool looked up for host ${service}`);
      return freepool;
    };
  }

  /** The operator may not have made one (upstream expects it); host enrollment normally has. */
  private async ensureFreepool(
    nova: NovaClient,
    placement: PlacementClient,
    wanted: FreepoolAggregate,
    effects: EffectRecord[],
  ): Promise<Aggregate> {
    const { aggregate, created } = await ensureAggregate(nova, wanted.name);
    await placement.ensureTrait(FREEPOOL_TRAIT);
    const { metadata } = wanted;
    if (!includesAll(aggregate.metadata, metadata)) await nova.setAggregateMetadata(aggregate.id, metadata);
    if (created) effects.push({ operation: 'freepool.create', aggregate: wanted.name, freepool_id: aggregate.id, metadata });
    return aggregate;
  }

  /**
   * The aggregate that holds the hosts, with Leasehold's isolation. Blazar's when it already holds them (an imported
   * active reservation): adopted where it is, its metadata and availability zone kept, Leasehold's keys added. Blazar's
   * empty one (made at the creation of an imported reservation that had not started) gives way to Leasehold's.
   */
  private async ensureReservationAggregate(
    nova: NovaClient,
    context: EffectContext,
    reservation: HostReservation,
    aggregates: readonly Aggregate[],
    effects: EffectRecord[],
  ): Promise<Aggregate> {
    const metadata = {
      [`trait:${reservationCustomName(reservation.id)}`]: 'required',
      filter_tenant_id: context.projectId,
      reservation: reservation.id,
      [BLAZAR_OWNER_KEY]: context.projectId,
    };
    const blazar = blazarAggregateOf(aggregates, reservation.id);
    if (blazar !== null && blazar.hosts.length > 0) return this.isolate(nova, blazar, metadata, 'aggregate.adopt', false, effects);
    if (blazar !== null) effects.push(await this.deleteAggregate(nova, blazar.name, blazar));
    const { aggregate, created } = await ensureAggregate(nova, reservationAggregateName(reservation.id));
    return this.isolate(nova, aggregate, metadata, 'aggregate.create', created, effects);
  }

  private async isolate(
    nova: NovaClient,
    aggregate: Aggregate,
    metadata: Readonly<Record<string, string>>,
    operation: 'aggregate.create' | 'aggregate.adopt',
    created: boolean,
    effects: EffectRecord[],
  ): Promise<Aggregate> {
    const stale = !includesAll(aggregate.metadata, metadata);
    if (stale) await nova.setAggregateMetadata(aggregate.id, metadata);
    const { name, id, availability_zone } = aggregate;
    effects.push(done({ operation, aggregate: name, aggregate_id: id, availability_zone, metadata }, created || stale));
    return aggregate;
  }

  private async addRootTrait(placement: PlacementClient, host: ReservedHost, trait: string): Promise<EffectRecord> {
    const root = await placement.findResourceProvider(host.hypervisor);
    if (root === null) throw new EffectFailedError(`No resource provider named ${host.hypervisor} in Placement`, []);
    let added = false;
    await placement.updateProviderTraits(root.uuid, (traits) => {
      added = !traits.includes(trait);
      return added ? [...traits, trait] : traits;
    });
    return done({ operation: 'resource_provider.add_trait', resource_provider: host.hypervisor, trait }, added);
  }

  private async removeRootTrait(placement: PlacementClient, host: Pick<ReservedHost, 'hypervisor'>, trait: string): Promise<EffectRecord> {
    const root = await placement.findResourceProvider(host.hypervisor);
    let removed = false;
    if (root !== null) {
      await placement.updateProviderTraits(root.uuid, (traits) => {
        removed = traits.includes(trait);
        return traits.filter((t) => t !== trait);
      });
    }
    return done({ operation: 'resource_provider.remove_trait', resource_provider: host.hypervisor, trait }, removed);
  }
}
