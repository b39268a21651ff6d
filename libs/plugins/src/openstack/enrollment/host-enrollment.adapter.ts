import type { EnrollmentRecord } from '#domain/index.js';
import { EffectFailedError } from '../../effects.port.js';
import type { Aggregate, NovaClient } from '../nova.client.js';
import { OpenStackConflictError, OpenStackError, ignoreNotFound } from '../openstack.errors.js';
import { requestIdFor } from '../openstack.session.js';
import type { PlacementClient, ResourceProvider } from '../placement.client.js';
import { dropPreemptible, openPreemptible } from '../effects/preemptible.openstack-effects.js';
import { reservationAggregateHolding } from '../effects/blazar-aggregates.js';
import { type FreepoolAggregate, type FreepoolLayout, freepoolFor, isFreepool } from './freepool.js';

/** The trait of the free pool: required by the freepool aggregate's metadata, carried only by `blazar_<host>` providers. */
export const FREEPOOL_TRAIT = 'CUSTOM_BLAZAR_FREEPOOL';

/**
 * Why unenrollment leaves the empty child provider in place: nova-compute caches its compute node's
 * provider tree, children included, and never drops a child it cached; once one is deleted behind its
 * back, every resource update and every build on that compute fails (404 on the child's allocations)
 * until nova-compute is restarted or sent SIGHUP. Seen on this project's control plane (docs/openstack.md).
 */
const KEPT_CHILD_REASON = 'nova-compute caches it; deleting it would break builds on the compute until nova-compute restarts';

const HELD_REASON = "held by a reservation's aggregate, not the freepool's: the reservation's end puts it in the freepool";

export const childProviderName = (hypervisorHostname: string): string => `blazar_${hypervisorHostname}`;

/** The host as Nova and Placement name it. */
export interface EnrollmentTarget {
  readonly hypervisorHostname: string;
  /** The nova-compute service host: what aggregates list. */
  readonly serviceName: string;
  /** Recorded at registration ('' when none): picks the freepool when there is one per zone. */
  readonly availabilityZone: string;
}

/**
 * Puts a host into the cloud's free pool and takes it out again. Every step checks before it acts,
 * so a rerun after a crash finishes the work without doing anything twice. Throws EffectFailedError
 * for an outcome to record, and the clients' transient OpenStackErrors for the caller to retry.
 */
export interface HostEnrollmentEffects {
  enroll(target: EnrollmentTarget, idempotencyKey: string): Promise<readonly EnrollmentRecord[]>;
  unenroll(target: EnrollmentTarget, idempotencyKey: string): Promise<readonly EnrollmentRecord[]>;
}

/** Standalone mode: the simulated cloud's free pool is implicit. */
export const standaloneHostEnrollment: HostEnrollmentEffects = {
  enroll: () => Promise.resolve([]),
  unenroll: () => Promise.resolve([]),
};

/** A cloud refusal that will not change by itself (4xx) becomes the recorded outcome, with what was done so far. */
const refusal = (error: unknown, effects: readonly EnrollmentRecord[]): unknown =>
  error instanceof OpenStackError && !error.transient ? new EffectFailedError(error.message, effects) : error;

/**
 * Upstream's host registration and deletion on Nova and Placement (reference nova-isolation §2): the
 * freepool aggregate (one for the cloud, or one per availability zone, see freepool.ts; never with an
 * availability_zone of its own, so hosts keep theirs), with metadata `trait:CUSTOM_BLAZAR_FREEPOOL=required`;
 * each host a member, with a child provider `blazar_<host>` carrying the trait under its compute node's provider.
 */
export class OpenStackHostEnrollment implements HostEnrollmentEffects {
  constructor(
    private readonly nova: NovaClient,
    private readonly placement: PlacementClient,
    private readonly layout: FreepoolLayout,
    /** LEASEHOLD_PREEMPTIBLE=true: an enrolled host is open to preemptible servers until a reservation takes it. */
    private readonly preemptible = false,
  ) {}

  async enroll(target: EnrollmentTarget, idempotencyKey: string): Promise<readonly EnrollmentRecord[]> {
    const nova = this.nova.withRequestId(requestIdFor(idempotencyKey));
    const placement = this.placement.withRequestId(requestIdFor(idempotencyKey));
    const effects: EnrollmentRecord[] = [];
    try {
      const freepool = await this.ensureFreepool(nova, placement, freepoolFor(this.layout, target.availabilityZone), effects);
      effects.push(await this.addHost(nova, freepool, target.serviceName));
      const root = await placement.findResourceProvider(target.hypervisorHostname);
      if (root === null) throw new EffectFailedError(`No resource provider ${target.hypervisorHostname} in Placement`, effects);
      const child = await this.ensureChild(placement, root, childProviderName(target.hypervisorHostname), effects);
      const traits = await placement.updateProviderTraits(child.uuid, (current) =>
        current.includes(FREEPOOL_TRAIT) ? current : [...current, FREEPOOL_TRAIT],
      );
      effects.push({ operation: 'set_provider_trait', provider: child.name, trait: FREEPOOL_TRAIT, traits: traits.traits });
      if (this.preemptible) effects.push(await openPreemptible(placement, target.hypervisorHostname));
      return effects;
    } catch (error) {
      throw refusal(error, effects);
    }
  }

  async unenroll(target: EnrollmentTarget, idempotencyKey: string): Promise<readonly EnrollmentRecord[]> {
    const nova = this.nova.withRequestId(requestIdFor(idempotencyKey));
    const placement = this.placement.withRequestId(requestIdFor(idempotencyKey));
    const effects: EnrollmentRecord[] = [];
    try {
      const name = childProviderName(target.hypervisorHostname);
      // the preemptible inventory goes too, whatever the setting now: it may have been on when the host joined
      const dropped = await dropPreemptible(placement, target.hypervisorHostname);
      if (this.preemptible || dropped.already !== true) effects.push(dropped);
      const child = await placement.findResourceProvider(name);
      if (child !== null) {
        const { inventories } = await placement.getInventories(child.uuid);
        const classes = Object.keys(inventories);
        if (classes.length > 0)
          throw new EffectFailedError(`Resource provider ${name} still has inventories of ${classes.join(', ')}`, effects);
        const before = (await placement.getProviderTraits(child.uuid)).traits;
        if (before.includes(FREEPOOL_TRAIT))
          await placement.updateProviderTraits(child.uuid, (current) => current.filter((trait) => trait !== FREEPOOL_TRAIT));
        effects.push({
          operation: 'remove_provider_trait',
          provider: name,
          trait: FREEPOOL_TRAIT,
          ...(before.includes(FREEPOOL_TRAIT) ? {} : { already: true }),
        });
        effects.push({ operation: 'keep_provider', provider: name, reason: KEPT_CHILD_REASON });
      } else {
        effects.push({ operation: 'remove_provider_trait', provider: name, trait: FREEPOOL_TRAIT, already: true });
      }
      await this.leaveFreepools(nova, target, effects);
      return effects;
    } catch (error) {
      throw refusal(error, effects);
    }
  }

  /**
   * Out of its zone's freepool (recorded even when not a member), and out of any other freepool that
   * still lists it: its zone, or the layout, may have changed since it joined.
   */
  private async leaveFreepools(nova: NovaClient, target: EnrollmentTarget, effects: EnrollmentRecord[]): Promise<void> {
    const own = freepoolFor(this.layout, target.availabilityZone).name;
    const aggregates = await nova.listAggregates();
    const member = aggregates.filter((a) => isFreepool(this.layout, a) && a.hosts.includes(target.serviceName));
    if (!member.some((a) => a.name === own))
      effects.push({ operation: 'remove_host', aggregate: own, host: target.serviceName, already: true });
    for (const freepool of member) {
      const removed = await ignoreNotFound(nova.removeAggregateHost(freepool.id, target.serviceName));
      effects.push({ operation: 'remove_host', aggregate: freepool.name, host: target.serviceName, ...(removed ? {} : { already: true }) });
    }
  }

  /** Created once, by whoever comes first: a 409 means another reactor (or the effects adapter) won the race. */
  private async ensureFreepool(
    nova: NovaClient,
    placement: PlacementClient,
    wanted: FreepoolAggregate,
    effects: EnrollmentRecord[],
  ): Promise<Aggregate> {
    let freepool = await nova.findAggregate(wanted.name);
    if (freepool === null) {
      freepool = await nova.createAggregate(wanted.name).catch(async (error: unknown) => {
        const existing = error instanceof OpenStackConflictError ? await nova.findAggregate(wanted.name) : null;
        if (existing === null) throw error;
        return existing;
      });
      effects.push({ operation: 'create_aggregate', aggregate: wanted.name, aggregateId: freepool.id });
    }
    const current = freepool.metadata;
    if (Object.entries(wanted.metadata).some(([key, value]) => current[key] !== value)) {
      freepool = await nova.setAggregateMetadata(freepool.id, wanted.metadata);
      effects.push({ operation: 'set_aggregate_metadata', aggregate: wanted.name, metadata: wanted.metadata });
    }
    const created = await placement.ensureTrait(FREEPOOL_TRAIT);
    effects.push({ operation: 'ensure_trait', trait: FREEPOOL_TRAIT, ...(created ? {} : { already: true }) });
    return freepool;
  }

  /**
   * A host a reservation's aggregate holds outside the freepool stays there: a host imported from Blazar with the
   * lease Blazar started on it (docs/migrating-from-blazar.md). That reservation's end puts it in the freepool.
   */
  private async addHost(nova: NovaClient, freepool: Aggregate, host: string): Promise<EnrollmentRecord> {
    const record = { operation: 'add_host', aggregate: freepool.name, aggregateId: freepool.id, host };
    if (freepool.hosts.includes(host)) return { ...record, already: true };
    const holder = reservationAggregateHolding(await nova.listAggregates(), host);
    if (holder !== null) return { operation: 'keep_host', aggregate: holder.name, aggregateId: holder.id, host, reason: HELD_REASON };
    try {
      await nova.addAggregateHost(freepool.id, host);
      return record;
    } catch (error) {
      // 409: a member already (a concurrent or earlier attempt got there first)
      if (error instanceof OpenStackConflictError) return { ...record, already: true };
      throw error;
    }
  }

  private async ensureChild(
    placement: PlacementClient,
    root: ResourceProvider,
    name: string,
    effects: EnrollmentRecord[],
  ): Promise<ResourceProvider> {
    const existing = await placement.findResourceProvider(name);
    if (existing !== null) {
      effects.push({ operation: 'create_provider', provider: name, parent: root.uuid, uuid: existing.uuid, already: true });
      return existing;
    }
    const child = await placement.createResourceProvider(name, root.uuid);
    effects.push({ operation: 'create_provider', provider: name, parent: root.uuid, uuid: child.uuid });
    return child;
  }
}
