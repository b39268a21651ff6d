import type { EffectRecord, Leftover } from '#domain/index.js';
import { type EffectContext, EffectFailedError, type ReservationEffects, done } from '../../effects.port.js';
import { privateFlavorDisks } from '../source-flavor.js';
import { type FlavorSpec, NovaClient, type Server, type ServerGroup } from '../../openstack/nova.client.js';
import { OpenStackConflictError, OpenStackHttpError, ignoreNotFound, isNotFound } from '../../openstack/openstack.errors.js';
import { requestIdFor } from '../../openstack/openstack.session.js';
import { type PlacementClient, type ResourceProvider, inventoryOf } from '../../openstack/placement.client.js';
import {
  EffectNotFinishedError,
  FREEPOOL_TRAIT,
  type OpenStackClients,
  type ServerDeletion,
  childProviderName,
  clientsFor,
  deleteServers,
  hostnameOf,
  ignoreConflict,
  includesAll,
  recording,
  reservationCustomName,
  reservationObjectName,
  requireHypervisor,
} from '../../openstack/effects/openstack-effects.support.js';
import {
  type PreemptibleHost,
  type PreemptibleOptions,
  closePreemptible,
  openPreemptible,
  reapPreemptibles,
} from '../../openstack/effects/preemptible.openstack-effects.js';
import type { InstanceReservation } from '../instance.reservation.js';
import { blazarAggregateOf } from '../../openstack/effects/blazar-aggregates.js';

/** Every instance reservation's class on a child provider starts so (reservationCustomName). */
const RESERVATION_CLASS_PREFIX = 'CUSTOM_RESERVATION_';

/**
 * What Blazar's flavor of an instance reservation asks of Blazar's aggregate (AggregateInstanceExtraSpecsFilter reads
 * both, the second unscoped): a flavor that keeps them after that aggregate is gone fits no host.
 */
const BLAZAR_FLAVOR_SPECS = ['aggregate_instance_extra_specs:reservation', 'affinity_id'] as const;

export interface OpenStackInstanceEffectsOptions {
  readonly serverDeletion?: ServerDeletion;
  /** LEASEHOLD_PREEMPTIBLE=true: the reservation's hosts are closed to preemptible servers and reaped at its start; null or absent: off. */
  readonly preemptible?: PreemptibleOptions | null;
}

/** Slots per hypervisor hostname, in allocation order. */
const slotsByHost = (context: EffectContext, reservation: InstanceReservation): ReadonlyMap<string, number> =>
  new Map(reservation.allocations.map(({ hostId, count }) => [hostnameOf(context, hostId), count] as const));

const flavorSpec = (reservation: InstanceReservation): FlavorSpec => ({
  id: reservation.id,
  name: reservationObjectName(reservation.id),
  vcpus: reservation.vcpus,
  ram: reservation.memoryMb,
  ...privateFlavorDisks(reservation),
  isPublic: false,
});

/**
 * One unit of the reservation's class per server, and the freepool trait that only the hosts' child
 * providers carry: without it the freepool aggregate is closed to the flavor (docs/openstack.md).
 */
export const instanceFlavorExtraSpecs = (reservation: InstanceReservation): Record<string, string> => ({
  ...(reservation.resourceType === 'flavor:instance' ? reservation.extraSpecs : {}),
  [`resources:${reservationCustomName(reservation.id)}`]: '1',
  [`trait:${FREEPOOL_TRAIT}`]: 'required',
});

/** The lease's server group as Nova shows it to one client (a trust's: the tenant's project; Leasehold's: its own). */
interface FoundGroup {
  readonly nova: NovaClient;
  readonly group: ServerGroup | null;
  /** How it was found, for the effect record. */
  readonly via: 'trust' | 'service' | 'service, the trust refused';
}

/** Keystone refusing the trust-scoped token (trust deleted, trustor gone or without its roles) says nothing of Nova: name the trust. */
const refusedTrust = async <T>(call: Promise<T>, trustId: string | null): Promise<T> => {
  try {
    return await call;
  } catch (error) {
    if (trustId !== null && error instanceof OpenStackHttpError && error.service === 'identity' && !error.transient) {
      throw new EffectFailedError(
        `Keystone refused a token for the lease's trust ${trustId} (HTTP ${error.status}): ${error.cloudMessage}`,
        [],
      );
    }
    throw error;
  }
};

const NO_TRUST_NOTE = "no trust: made in Leasehold's own project, so only admins can use it as a scheduler hint";

/** Delete calls that Placement refuses while allocations remain: the servers' allocations are still going away. */
const untilReleased = async (call: Promise<unknown>, what: string): Promise<boolean> => {
  try {
    return await ignoreNotFound(call);
  } catch (error) {
    if (error instanceof OpenStackConflictError) throw new EffectNotFinishedError(`${what} is still in use: ${error.cloudMessage}`);
    throw error;
  }
};

/**
 * Upstream's instance plugins (virtual:instance and flavor:instance) on a real Nova and Placement: the
 * reservation's resource class with an inventory of its slots on each allocated host's child provider
 * `blazar_<host>`, a private flavor (id = reservation id) that asks for one unit of it, project access,
 * and a server group for an affinity. The hosts stay in the freepool: no aggregate is made.
 * Blazar names its flavor, server group, class and child providers as Leasehold does, so an imported reservation's
 * are Leasehold's; Blazar's aggregate (named by the reservation id, holding the hosts, which Blazar's flavor needs)
 * is kept while a reservation Blazar started is active and removed at its end, or at the start of one Blazar had
 * not started (docs/migrating-from-blazar.md, "Adopting Blazar's Nova state").
 */
export class OpenStackInstanceEffects implements ReservationEffects<InstanceReservation> {
  private readonly serverDeletion: ServerDeletion;
  private readonly preemptible: PreemptibleOptions | null;

  constructor(
    private readonly clients: OpenStackClients,
    options: OpenStackInstanceEffectsOptions = {},
  ) {
    this.serverDeletion = options.serverDeletion ?? { timeoutMs: 120_000, pollMs: 1_000 };
    this.preemptible = options.preemptible ?? null;
  }

  async onStart(context: EffectContext, reservation: InstanceReservation): Promise<readonly EffectRecord[]> {
    const { nova, placement } = clientsFor(this.clients, context);
    return recording(async (effects) => {
      const slots = slotsByHost(context, reservation);
      // before the slots exist: preemptible servers would take the capacity they stand for
      if (this.preemptible !== null) effects.push(...(await this.reap(nova, placement, context, reservation, this.preemptible)));
      await this.ensureServerGroup(nova, context, reservation, effects);
      const resourceClass = reservationCustomName(reservation.id);
      effects.push(
        done({ operation: 'resource_class.create', resource_class: resourceClass }, await placement.ensureResourceClass(resourceClass)),
      );
      await this.convergeInventories(placement, resourceClass, slots, effects);
      // an imported reservation Blazar made but had not started: Leasehold's start needs no aggregate
      await this.deleteBlazarAggregate(nova, reservation.id, effects);
      await this.dropBlazarFlavorSpecs(nova, reservation.id, effects);
      await this.ensureFlavor(nova, context, reservation, effects);
    });
  }

  async beforeEnd(_context: EffectContext, _reservation: InstanceReservation): Promise<readonly EffectRecord[]> {
    return [];
  }

  /**
   * An active reservation's slots changed: inventories follow its allocations. An active reservation only
   * grows, so a host it no longer holds was healed away (it went down): the reservation's servers there
   * go first, or their allocations would keep Placement from dropping that host's inventory.
   */
  async onUpdate(context: EffectContext, reservation: InstanceReservation): Promise<readonly EffectRecord[]> {
    const { nova, placement } = clientsFor(this.clients, context);
    return recording(async (effects) => {
      const resourceClass = reservationCustomName(reservation.id);
      if (!(await placement.resourceClassExists(resourceClass))) throw new EffectFailedError(`No such resource class ${resourceClass}`, []);
      const slots = slotsByHost(context, reservation);
      if (this.preemptible !== null) effects.push(...(await this.reap(nova, placement, context, reservation, this.preemptible)));
      await this.deleteServersOffReservation(nova, reservation.id, new Set(slots.keys()), effects);
      await this.convergeInventories(placement, resourceClass, slots, effects);
      await this.convergeBlazarAggregate(nova, reservation.id, [...slots.keys()], effects);
      // an adopted flavor of Blazar's gains the freepool trait, without which the freepool's metadata refuses it
      await this.ensureFlavor(nova, context, reservation, effects);
    });
  }

  /** The reservation's private flavor, the servers still using it, and Blazar's aggregate of an imported one. */
  async leftovers(context: EffectContext, reservation: InstanceReservation): Promise<readonly Leftover[]> {
    const { nova } = clientsFor(this.clients, context);
    const { id } = reservation;
    const flavor = await nova.getFlavor(id).then(
      () => true,
      (error: unknown) => (isNotFound(error) ? false : Promise.reject(error as Error)),
    );
    const servers = await nova.listServers({ flavor: id });
    const aggregate = blazarAggregateOf(await nova.listAggregates(), id);
    return [
      ...(flavor ? [{ reservationId: id, kind: 'flavor' as const, id }] : []),
      ...servers.map((server) => ({ reservationId: id, kind: 'server' as const, id: server.id })),
      ...(aggregate === null ? [] : [{ reservationId: id, kind: 'aggregate' as const, id: aggregate.name }]),
    ];
  }

  /** Access goes first (no new boots), then the servers, found by the flavor that still exists, then the rest. */

  async onEnd(context: EffectContext, reservation: InstanceReservation): Promise<readonly EffectRecord[]> {
    const { nova, placement } = clientsFor(this.clients, context);
    return recording(async (effects) => {
      const flavorId = reservation.id;
      const revoked = await ignoreNotFound(nova.removeFlavorAccess(flavorId, context.projectId));
      effects.push(done({ operation: 'flavor.remove_access', flavor_id: flavorId, project_id: context.projectId }, revoked));
      const servers = await nova.listServers({ flavor: flavorId });
      effects.push({ operation: 'servers.delete', flavor_id: flavorId, servers: await deleteServers(nova, servers, this.serverDeletion) });
      await this.deleteServerGroup(nova, context, reservation, effects);
      effects.push(done({ operation: 'flavor.delete', flavor_id: flavorId }, await ignoreNotFound(nova.deleteFlavor(flavorId))));
      await this.deleteBlazarAggregate(nova, reservation.id, effects);
      const resourceClass = reservationCustomName(reservation.id);
      await this.deleteInventories(placement, resourceClass, new Set(), effects);
      const classDeleted = await untilReleased(placement.deleteResourceClass(resourceClass), `Resource class ${resourceClass}`);
      effects.push(done({ operation: 'resource_class.delete', resource_class: resourceClass }, classDeleted));
      if (this.preemptible !== null) effects.push(...(await this.reopen(placement, [...slotsByHost(context, reservation).keys()])));
    });
  }

  /** Blazar's aggregate of an imported reservation, emptied and deleted (its hosts never left the freepool); none: nothing recorded. */
  private async deleteBlazarAggregate(nova: NovaClient, reservationId: string, effects: EffectRecord[]): Promise<void> {
    const aggregate = blazarAggregateOf(await nova.listAggregates(), reservationId);
    if (aggregate === null) return;
    for (const host of aggregate.hosts) {
      const removed = await ignoreNotFound(nova.removeAggregateHost(aggregate.id, host));
      effects.push(done({ operation: 'aggregate.remove_host', aggregate: aggregate.name, host }, removed));
    }
    const deleted = await ignoreNotFound(nova.deleteAggregate(aggregate.id));
    effects.push(done({ operation: 'aggregate.delete', aggregate: aggregate.name, aggregate_id: aggregate.id }, deleted));
  }

  /** Blazar's aggregate, while an imported active reservation keeps it, holds the hosts the reservation holds (a healed one joins). */
  private async convergeBlazarAggregate(
    nova: NovaClient,
    reservationId: string,
    hostnames: readonly string[],
    effects: EffectRecord[],
  ): Promise<void> {
    const aggregate = blazarAggregateOf(await nova.listAggregates(), reservationId);
    if (aggregate === null) return;
    const services = new Set<string>();
    for (const hostname of hostnames) services.add((await requireHypervisor(nova, hostname)).service.host);
    for (const host of services) {
      const added = aggregate.hosts.includes(host) ? false : await ignoreConflict(nova.addAggregateHost(aggregate.id, host));
      effects.push(done({ operation: 'aggregate.add_host', aggregate: aggregate.name, host }, added));
    }
    for (const host of aggregate.hosts.filter((member) => !services.has(member))) {
      const removed = await ignoreNotFound(nova.removeAggregateHost(aggregate.id, host));
      effects.push(done({ operation: 'aggregate.remove_host', aggregate: aggregate.name, host }, removed));
    }
  }

  /** Blazar's flavor of an imported reservation, started by Leasehold without Blazar's aggregate, loses what asks for it. */
  private async dropBlazarFlavorSpecs(nova: NovaClient, flavorId: string, effects: EffectRecord[]): Promise<void> {
    const current = await nova.getFlavorExtraSpecs(flavorId).catch((error: unknown): Readonly<Record<string, string>> => {
      if (isNotFound(error)) return {};
      throw error;
    });
    for (const key of BLAZAR_FLAVOR_SPECS.filter((spec) => current[spec] !== undefined)) {
      const deleted = await ignoreNotFound(nova.deleteFlavorExtraSpec(flavorId, key));
      effects.push(done({ operation: 'flavor.unset_extra_spec', flavor_id: flavorId, key }, deleted));
    }
  }

  /** Closes the allocated hosts to new preemptible servers, then shuts down and deletes those running there. */
  private async reap(
    nova: NovaClient,
    placement: PlacementClient,
    context: EffectContext,
    reservation: InstanceReservation,
    options: PreemptibleOptions,
  ): Promise<EffectRecord[]> {
    const effects: EffectRecord[] = [];
    const hosts: PreemptibleHost[] = [];
    for (const { hostId } of reservation.allocations) {
      const hypervisor = await requireHypervisor(nova, hostnameOf(context, hostId));
      effects.push(await closePreemptible(placement, hypervisor.hypervisor_hostname));
      hosts.push({ hostId, hypervisor: hypervisor.hypervisor_hostname, service: hypervisor.service.host });
    }
    effects.push(...(await reapPreemptibles(nova, hosts, options, context.idempotencyKey)));
    return effects;
  }

  /** Hosts no other instance reservation holds any more are free for preemptible servers again. */
  private async reopen(placement: PlacementClient, hosts: readonly string[]): Promise<EffectRecord[]> {
    const effects: EffectRecord[] = [];
    for (const host of hosts) {
      const child = await placement.findResourceProvider(childProviderName(host));
      if (child === null) continue;
      const held = Object.keys((await placement.getInventories(child.uuid)).inventories).some((rc) =>
        rc.startsWith(RESERVATION_CLASS_PREFIX),
      );
      if (!held) effects.push(await openPreemptible(placement, host));
    }
    return effects;
  }

  /**
   * Tenants pass its id as the `group` scheduler hint, which Nova allows only for a group of their own
   * project: with the lease's trust it is made as the tenant, in the tenant's project (as upstream does).
   */
  private async ensureServerGroup(
    nova: NovaClient,
    context: EffectContext,
    reservation: InstanceReservation,
    effects: EffectRecord[],
  ): Promise<void> {
    if (reservation.affinity === null) return;
    const name = reservationObjectName(reservation.id);
    const policy = reservation.affinity ? 'affinity' : 'anti-affinity';
    const trustId = context.trustId ?? null;
    const client = trustId === null ? nova : this.trustNova(context, trustId);
    const existing = (await refusedTrust(client.listServerGroups(), trustId)).find((g) => g.name === name);
    const group = existing ?? (await client.createServerGroup(name, policy));
    const record = {
      operation: 'server_group.create',
      server_group: name,
      server_group_id: group.id,
      policy,
      project_id: group.project_id,
      trust_id: trustId,
    };
    effects.push(done(trustId === null ? { ...record, note: NO_TRUST_NOTE } : record, existing === undefined));
  }

  private async deleteServerGroup(
    nova: NovaClient,
    context: EffectContext,
    reservation: InstanceReservation,
    effects: EffectRecord[],
  ): Promise<void> {
    const name = reservationObjectName(reservation.id);
    const found = await this.findServerGroup(nova, context, name);
    if (found.group === null && reservation.affinity === null) return;
    const deleted = found.group !== null && (await ignoreNotFound(found.nova.deleteServerGroup(found.group.id)));
    const record = { operation: 'server_group.delete', server_group: name, server_group_id: found.group?.id ?? null, via: found.via };
    effects.push(done(record, deleted));
  }

  /**
   * Through the trust when the lease has one. A trust Keystone refuses (deleted after a crash between
   * this end and the trust's deletion, its trustor gone, or Blazar's, imported, whose trustee is Blazar's
   * service user) leaves the group to Leasehold's admin view.
   */
  private async findServerGroup(nova: NovaClient, context: EffectContext, name: string): Promise<FoundGroup> {
    const trustId = context.trustId ?? null;
    if (trustId === null) return { nova, group: (await nova.listServerGroups()).find((g) => g.name === name) ?? null, via: 'service' };
    const trustNova = this.trustNova(context, trustId);
    try {
      return { nova: trustNova, group: (await trustNova.listServerGroups()).find((g) => g.name === name) ?? null, via: 'trust' };
    } catch (error) {
      const refused = error instanceof OpenStackHttpError && (error.status === 401 || (error.service === 'identity' && !error.transient));
      if (!refused) throw error;
      const all = await nova.listServerGroups({ allProjects: true });
      return {
        nova,
        group: all.find((g) => g.name === name && g.project_id === context.projectId) ?? null,
        via: 'service, the trust refused',
      };
    }
  }

  private trustNova(context: EffectContext, trustId: string): NovaClient {
    return new NovaClient(this.clients.session.forTrust(trustId).withRequestId(requestIdFor(context.idempotencyKey)));
  }

  private async ensureFlavor(
    nova: NovaClient,
    context: EffectContext,
    reservation: InstanceReservation,
    effects: EffectRecord[],
  ): Promise<void> {
    const spec = flavorSpec(reservation);
    const flavorId = reservation.id;
    const existing = await nova.getFlavor(flavorId).catch((error: unknown) => {
      if (isNotFound(error)) return null;
      throw error;
    });
    const created = existing === null && (await ignoreConflict(nova.createFlavor(spec)));
    const { name, vcpus, ram, disk, ephemeral } = spec;
    effects.push(done({ operation: 'flavor.create', flavor_id: flavorId, name, vcpus, ram, disk, ephemeral, is_public: false }, created));
    const specs = instanceFlavorExtraSpecs(reservation);
    const stale = !includesAll(await nova.getFlavorExtraSpecs(flavorId), specs);
    if (stale) await nova.setFlavorExtraSpecs(flavorId, specs);
    effects.push(done({ operation: 'flavor.set_extra_specs', flavor_id: flavorId, extra_specs: specs }, stale));
    const granted = (await nova.listFlavorAccess(flavorId)).includes(context.projectId)
      ? false
      : await ignoreConflict(nova.addFlavorAccess(flavorId, context.projectId));
    effects.push(done({ operation: 'flavor.add_access', flavor_id: flavorId, project_id: context.projectId }, granted));
  }

  /** Servers of the reservation's flavor placed on a host it no longer holds (not those still being scheduled). */
  private async deleteServersOffReservation(
    nova: NovaClient,
    flavorId: string,
    held: ReadonlySet<string>,
    effects: EffectRecord[],
  ): Promise<void> {
    const placedElsewhere = (server: Server): boolean => {
      const names = [server['OS-EXT-SRV-ATTR:host'], server['OS-EXT-SRV-ATTR:hypervisor_hostname']].filter((name) => name !== null);
      return names.length > 0 && !names.some((name) => held.has(name));
    };
    const stray = (await nova.listServers({ flavor: flavorId })).filter(placedElsewhere);
    if (stray.length === 0) return;
    const hosts = [...new Set(stray.map((server) => server['OS-EXT-SRV-ATTR:host']))];
    effects.push({
      operation: 'servers.delete',
      flavor_id: flavorId,
      hosts,
      reason: 'host no longer in the reservation',
      servers: await deleteServers(nova, stray, this.serverDeletion),
    });
  }

  /** Each allocated host's child provider holds the host's slots; providers of hosts no longer allocated lose the class. */
  private async convergeInventories(
    placement: PlacementClient,
    resourceClass: string,
    slots: ReadonlyMap<string, number>,
    effects: EffectRecord[],
  ): Promise<void> {
    for (const [host, total] of slots) {
      const child = await this.ensureChildProvider(placement, host, effects);
      const current = (await placement.getInventories(child.uuid)).inventories[resourceClass];
      const set = current?.total !== total;
      if (set) await placement.setInventory(child.uuid, resourceClass, inventoryOf(total));
      effects.push(done({ operation: 'inventory.set', resource_provider: child.name, resource_class: resourceClass, total }, set));
    }
    await this.deleteInventories(placement, resourceClass, new Set([...slots.keys()].map(childProviderName)), effects);
  }

  private async deleteInventories(
    placement: PlacementClient,
    resourceClass: string,
    keep: ReadonlySet<string>,
    effects: EffectRecord[],
  ): Promise<void> {
    const children = (await placement.listResourceProviders()).filter((p) => p.name.startsWith(childProviderName('')) && !keep.has(p.name));
    for (const provider of children) {
      if ((await placement.getInventories(provider.uuid)).inventories[resourceClass] === undefined) continue;
      const deleted = await untilReleased(
        placement.deleteInventory(provider.uuid, resourceClass),
        `The inventory of ${resourceClass} on ${provider.name}`,
      );
      effects.push(done({ operation: 'inventory.delete', resource_provider: provider.name, resource_class: resourceClass }, deleted));
    }
  }

  /** Host enrollment normally made it; made here when missing, with the freepool trait the reservation flavors require. */
  private async ensureChildProvider(placement: PlacementClient, host: string, effects: EffectRecord[]): Promise<ResourceProvider> {
    const name = childProviderName(host);
    let child = await placement.findResourceProvider(name);
    if (child === null) {
      const root = await placement.findResourceProvider(host);
      if (root === null) throw new EffectFailedError(`No resource provider named ${host} in Placement`, []);
      const created = await ignoreConflict(placement.createResourceProvider(name, root.uuid));
      child = await placement.findResourceProvider(name);
      if (child === null) throw new Error(`Resource provider ${name} vanished while being created`);
      // the child provider belongs to the host, not the reservation: reported only when this call had to create it
      if (created) effects.push({ operation: 'resource_provider.create', resource_provider: name, host });
    }
    await placement.ensureTrait(FREEPOOL_TRAIT);
    const { traits } = await placement.getProviderTraits(child.uuid);
    if (!traits.includes(FREEPOOL_TRAIT)) {
      await placement.updateProviderTraits(child.uuid, (current) =>
        current.includes(FREEPOOL_TRAIT) ? current : [...current, FREEPOOL_TRAIT],
      );
      effects.push({ operation: 'resource_provider.add_trait', resource_provider: name, trait: FREEPOOL_TRAIT });
    }
    return child;
  }
}
