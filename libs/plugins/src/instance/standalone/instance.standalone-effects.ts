import type { EffectRecord, Leftover } from '#domain/index.js';
import { type EffectContext, EffectFailedError, type ReservationEffects, done } from '../../effects.port.js';
import { FREEPOOL, type FakeNova, type FlavorSpec } from '../../standalone/nova.fake.js';
import type { FakePlacement, Inventory } from '../../standalone/placement.fake.js';
import type { StandaloneCloud } from '../../standalone/standalone-cloud.js';
import { childProviderName, reservationCustomName, reservationObjectName } from '../../reservation-names.js';
import { privateFlavorDisks } from '../source-flavor.js';
import type { InstanceReservation } from '../instance.reservation.js';

/** Upstream's per-reservation Placement class: instances of the reservation's flavor consume one unit each. */
export const reservationResourceClass = reservationCustomName;

/** Upstream's child provider of a compute node that carries the reservation inventories. */
export const reservationProviderName = childProviderName;

const slotInventory = (total: number): Inventory => ({ total, reserved: 0, minUnit: 1, maxUnit: 1, stepSize: 1, allocationRatio: 1 });

/** Slots per hypervisor hostname, in allocation order. */
const slotsByHost = (context: EffectContext, reservation: InstanceReservation): Map<string, number> =>
  new Map(
    reservation.allocations.map(({ hostId, count }) => {
      const name = context.resourceNames[hostId];
      if (name === undefined) throw new Error(`No hypervisor hostname known for host ${hostId}`);
      return [name, count] as const;
    }),
  );

const flavorSpec = (reservation: InstanceReservation): FlavorSpec => ({
  id: reservation.id,
  name: reservationObjectName(reservation.id),
  vcpus: reservation.vcpus,
  ram: reservation.memoryMb,
  ...privateFlavorDisks(reservation),
  isPublic: false,
});

const extraSpecs = (reservation: InstanceReservation, groupId: string | null): Record<string, string> => ({
  ...(reservation.resourceType === 'flavor:instance' ? reservation.extraSpecs : {}),
  'aggregate_instance_extra_specs:reservation': reservation.id,
  [`resources:${reservationResourceClass(reservation.id)}`]: '1',
  ...(groupId === null ? {} : { affinity_id: groupId }),
});

/**
 * Upstream's instance plugins (virtual:instance and flavor:instance) acted out on the standalone FAKE
 * cloud, all at the lease's start rather than partly at reservation time: a private flavor that only
 * the reservation's hosts accept, a server group for an affinity, an aggregate of the hosts and a
 * Placement inventory of one unit per slot on each host. Each call returns one record per step;
 * steps a retry finds already done carry `already: true`. No servers exist in standalone mode.
 */
export class StandaloneInstanceEffects implements ReservationEffects<InstanceReservation> {
  private readonly nova: FakeNova;
  private readonly placement: FakePlacement;

  constructor(cloud: StandaloneCloud) {
    this.nova = cloud.nova;
    this.placement = cloud.placement;
  }

  async onStart(context: EffectContext, reservation: InstanceReservation): Promise<readonly EffectRecord[]> {
    const slots = slotsByHost(context, reservation);
    const effects: EffectRecord[] = [];
    const groupId = this.createServerGroup(context, reservation, effects);
    const flavor = flavorSpec(reservation);
    const { id: flavor_id, name, vcpus, ram, disk, ephemeral } = flavor;
    effects.push(
      done({ operation: 'flavor.create', flavor_id, name, vcpus, ram, disk, ephemeral, is_public: false }, this.nova.createFlavor(flavor)),
    );
    const specs = extraSpecs(reservation, groupId);
    effects.push(
      done({ operation: 'flavor.set_extra_specs', flavor_id, extra_specs: specs }, this.nova.setFlavorExtraSpecs(flavor_id, specs)),
    );
    effects.push(this.createAggregate(context, reservation, groupId));
    const resourceClass = reservationResourceClass(reservation.id);
    effects.push(
      done({ operation: 'resource_class.create', resource_class: resourceClass }, this.placement.ensureResourceClass(resourceClass)),
    );
    const granted = this.nova.addFlavorAccess(flavor_id, context.projectId);
    effects.push(done({ operation: 'flavor.add_access', flavor_id, project_id: context.projectId }, granted));
    effects.push(...this.convergeHosts(reservation.id, slots));
    return effects;
  }

  async beforeEnd(_context: EffectContext, _reservation: InstanceReservation): Promise<readonly EffectRecord[]> {
    return [];
  }

  /** An active reservation's slots changed (more instances): hosts and inventory totals follow its allocations. */
  async onUpdate(context: EffectContext, reservation: InstanceReservation): Promise<readonly EffectRecord[]> {
    const slots = slotsByHost(context, reservation);
    if (this.nova.getAggregate(reservation.id) === null) throw new EffectFailedError(`Aggregate ${reservation.id} could not be found`, []);
    const resourceClass = reservationResourceClass(reservation.id);
    if (!this.placement.resourceClassExists(resourceClass)) throw new EffectFailedError(`No such resource class ${resourceClass}`, []);
    return this.convergeHosts(reservation.id, slots);
  }

  /** Upstream's order; whatever a partial start or an earlier attempt left is cleaned up, whatever is gone is fine. */
  /** The reservation's private flavor and aggregate (standalone runs no servers). */
  leftovers(_context: EffectContext, reservation: InstanceReservation): Promise<readonly Leftover[]> {
    const { id } = reservation;
    const leftovers: Leftover[] = [];
    if (this.nova.getFlavor(id) !== null) leftovers.push({ reservationId: id, kind: 'flavor', id });
    if (this.nova.getAggregate(id) !== null) leftovers.push({ reservationId: id, kind: 'aggregate', id });
    return Promise.resolve(leftovers);
  }

  async onEnd(context: EffectContext, reservation: InstanceReservation): Promise<readonly EffectRecord[]> {
    const flavor_id = reservation.id;
    const revoked = this.nova.removeFlavorAccess(flavor_id, context.projectId);
    const effects: EffectRecord[] = [
      done({ operation: 'flavor.remove_access', flavor_id, project_id: context.projectId }, revoked),
      { operation: 'servers.delete', flavor_id, servers: 0 },
    ];
    const group = this.nova.findServerGroup(context.projectId, reservationObjectName(reservation.id));
    if (group !== null || reservation.affinity !== null) {
      const record = {
        operation: 'server_group.delete',
        server_group: reservationObjectName(reservation.id),
        server_group_id: group?.id ?? null,
      };
      effects.push(done(record, group !== null && this.nova.deleteServerGroup(group.id)));
    }
    effects.push(done({ operation: 'flavor.delete', flavor_id }, this.nova.deleteFlavor(flavor_id)));
    effects.push(...this.deleteAggregate(reservation.id));
    const resourceClass = reservationResourceClass(reservation.id);
    for (const { provider } of this.placement.providersWithInventory(resourceClass)) {
      const deleted = this.placement.deleteInventory(provider.uuid, resourceClass);
      effects.push(done({ operation: 'inventory.delete', resource_provider: provider.name, resource_class: resourceClass }, deleted));
    }
    effects.push(
      done({ operation: 'resource_class.delete', resource_class: resourceClass }, this.placement.deleteResourceClass(resourceClass)),
    );
    return effects;
  }

  /** Upstream creates a group only for an explicit affinity; its id then goes into the flavor and aggregate. */
  private createServerGroup(context: EffectContext, reservation: InstanceReservation, effects: EffectRecord[]): string | null {
    if (reservation.affinity === null) return null;
    const spec = {
      name: reservationObjectName(reservation.id),
      projectId: context.projectId,
      policy: reservation.affinity ? 'affinity' : 'anti-affinity',
    } as const;
    const { group, created } = this.nova.ensureServerGroup(spec);
    const record = {
      operation: 'server_group.create',
      server_group: spec.name,
      server_group_id: group.id,
      policy: spec.policy,
      project_id: spec.projectId,
    };
    effects.push(done(record, created));
    return group.id;
  }

  private createAggregate(context: EffectContext, reservation: InstanceReservation, groupId: string | null): EffectRecord {
    const aggregate = reservation.id;
    const metadata = {
      reservation: reservation.id,
      filter_tenant_id: context.projectId,
      ...(groupId === null ? {} : { affinity_id: groupId }),
      'blazar:owner': context.projectId,
    };
    const created = this.nova.ensureAggregate(aggregate, { availabilityZone: null, metadata });
    const aggregateId = this.nova.getAggregate(aggregate)?.id ?? null;
    return done({ operation: 'aggregate.create', aggregate, aggregate_id: aggregateId, availability_zone: null, metadata }, created);
  }

  /** Each allocated host in the aggregate with an inventory of its slots; hosts no longer allocated leave both. */
  private convergeHosts(reservationId: string, slots: ReadonlyMap<string, number>): EffectRecord[] {
    const aggregate = reservationId;
    const resourceClass = reservationResourceClass(reservationId);
    const effects: EffectRecord[] = [];
    for (const [host, total] of slots) {
      effects.push(done({ operation: 'aggregate.add_host', aggregate, host }, this.nova.addHost(aggregate, host)));
      const parent = this.placement.computeNodeProvider(host);
      const { provider, created } = this.placement.ensureResourceProvider(reservationProviderName(host), parent.uuid);
      // the child provider belongs to the host, not the reservation: reported only when this call had to create it
      if (created) effects.push({ operation: 'resource_provider.create', resource_provider: provider.name, host });
      const set = this.placement.setInventory(provider.uuid, resourceClass, slotInventory(total));
      effects.push(done({ operation: 'inventory.set', resource_provider: provider.name, resource_class: resourceClass, total }, set));
    }
    for (const host of this.nova.membersOf(aggregate).filter((member) => !slots.has(member))) {
      effects.push(done({ operation: 'aggregate.remove_host', aggregate, host }, this.nova.removeHost(aggregate, host)));
    }
    const wanted = new Set([...slots.keys()].map(reservationProviderName));
    for (const { provider } of this.placement.providersWithInventory(resourceClass).filter(({ provider }) => !wanted.has(provider.name))) {
      const deleted = this.placement.deleteInventory(provider.uuid, resourceClass);
      effects.push(done({ operation: 'inventory.delete', resource_provider: provider.name, resource_class: resourceClass }, deleted));
    }
    return effects;
  }

  /** Upstream's pool.delete: each member leaves, and goes back to the freepool unless it is (implicitly) there. */
  private deleteAggregate(aggregate: string): EffectRecord[] {
    const effects: EffectRecord[] = [];
    for (const host of this.nova.membersOf(aggregate)) {
      effects.push(done({ operation: 'aggregate.remove_host', aggregate, host }, this.nova.removeHost(aggregate, host)));
      if (!this.nova.inFreepool(host))
        effects.push(done({ operation: 'aggregate.add_host', aggregate: FREEPOOL, host }, this.nova.addHost(FREEPOOL, host)));
    }
    effects.push(done({ operation: 'aggregate.delete', aggregate }, this.nova.deleteAggregate(aggregate)));
    return effects;
  }
}
