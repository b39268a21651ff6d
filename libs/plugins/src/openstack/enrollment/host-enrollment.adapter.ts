import type { EnrollmentRecord } from '../../../../domain/src/index.js';
import { EffectFailedError } from '../../effects.port.js';
import type { Aggregate, NovaClient } from '../nova.client.js';
import { OpenStackConflictError, OpenStackError, ignoreNotFound } from '../openstack.errors.js';
import { requestIdFor } from '../openstack.session.js';
import type { PlacementClient, ResourceProvider } from '../placement.client.js';

/** The trait of the free pool: required by the freepool aggregate's metadata, carried only by `blazar_<host>` providers. */
export const FREEPOOL_TRAIT = 'CUSTOM_BLAZAR_FREEPOOL';

export const childProviderName = (hypervisorHostname: string): string => `blazar_${hypervisorHostname}`;

/** The host as Nova and Placement name it. */
export interface EnrollmentTarget {
  readonly hypervisorHostname: string;
  /** The nova-compute service host: what aggregates list. */
  readonly serviceName: string;
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
 * Upstream's host registration and deletion on Nova and Placement (reference nova-isolation §2): one
 * freepool aggregate for the whole cloud (not one per availability zone: the aggregate carries no zone,
 * so hosts keep their own), with metadata `trait:CUSTOM_BLAZAR_FREEPOOL=required`; each host a member,
 * with a child provider `blazar_<host>` carrying the trait under its compute node's provider.
 */
export class OpenStackHostEnrollment implements HostEnrollmentEffects {
  constructor(
    private readonly nova: NovaClient,
    private readonly placement: PlacementClient,
    private readonly freepoolName: string,
  ) {}

  async enroll(target: EnrollmentTarget, idempotencyKey: string): Promise<readonly EnrollmentRecord[]> {
    const nova = this.nova.withRequestId(requestIdFor(idempotencyKey));
    const placement = this.placement.withRequestId(requestIdFor(idempotencyKey));
    const effects: EnrollmentRecord[] = [];
    try {
      const freepool = await this.ensureFreepool(nova, placement, effects);
      effects.push(await this.addHost(nova, freepool, target.serviceName));
      const root = await placement.findResourceProvider(target.hypervisorHostname);
      if (root === null) throw new EffectFailedError(`No resource provider ${target.hypervisorHostname} in Placement`, effects);
      const child = await this.ensureChild(placement, root, childProviderName(target.hypervisorHostname), effects);
      const traits = await placement.updateProviderTraits(child.uuid, (current) => (current.includes(FREEPOOL_TRAIT) ? current : [...current, FREEPOOL_TRAIT]));
      effects.push({ operation: 'set_provider_trait', provider: child.name, trait: FREEPOOL_TRAIT, traits: traits.traits });
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
      const child = await placement.findResourceProvider(name);
      if (child !== null) {
        const { inventories } = await placement.getInventories(child.uuid);
        const classes = Object.keys(inventories);
        if (classes.length > 0) throw new EffectFailedError(`Resource provider ${name} still has inventories of ${classes.join(', ')}`, effects);
      }
      const deleted = child === null ? false : await ignoreNotFound(placement.deleteResourceProvider(child.uuid));
      effects.push({ operation: 'delete_provider', provider: name, ...(deleted ? {} : { already: true }) });
      const freepool = await nova.findAggregate(this.freepoolName);
      const removed = freepool === null ? false : await ignoreNotFound(nova.removeAggregateHost(freepool.id, target.serviceName));
      effects.push({ operation: 'remove_host', aggregate: this.freepoolName, host: target.serviceName, ...(removed ? {} : { already: true }) });
      return effects;
    } catch (error) {
      throw refusal(error, effects);
    }
  }

  /** Created once, by whoever comes first: a 409 means another reactor (or the effects adapter) won the race. */
  private async ensureFreepool(nova: NovaClient, placement: PlacementClient, effects: EnrollmentRecord[]): Promise<Aggregate> {
    let freepool = await nova.findAggregate(this.freepoolName);
    if (freepool === null) {
      freepool = await nova.createAggregate(this.freepoolName).catch(async (error: unknown) => {
        const existing = error instanceof OpenStackConflictError ? await nova.findAggregate(this.freepoolName) : null;
        if (existing === null) throw error;
        return existing;
      });
      effects.push({ operation: 'create_aggregate', aggregate: this.freepoolName, aggregateId: freepool.id });
    }
    const key = `trait:${FREEPOOL_TRAIT}`;
    if (freepool.metadata[key] !== 'required') {
      freepool = await nova.setAggregateMetadata(freepool.id, { [key]: 'required' });
      effects.push({ operation: 'set_aggregate_metadata', aggregate: this.freepoolName, metadata: { [key]: 'required' } });
    }
    const created = await placement.ensureTrait(FREEPOOL_TRAIT);
    effects.push({ operation: 'ensure_trait', trait: FREEPOOL_TRAIT, ...(created ? {} : { already: true }) });
    return freepool;
  }

  private async addHost(nova: NovaClient, freepool: Aggregate, host: string): Promise<EnrollmentRecord> {
    const record = { operation: 'add_host', aggregate: freepool.name, aggregateId: freepool.id, host };
    if (freepool.hosts.includes(host)) return { ...record, already: true };
    try {
      await nova.addAggregateHost(freepool.id, host);
      return record;
    } catch (error) {
      // 409: a member already (a concurrent or earlier attempt got there first)
      if (error instanceof OpenStackConflictError) return { ...record, already: true };
      throw error;
    }
  }

  private async ensureChild(placement: PlacementClient, root: ResourceProvider, name: string, effects: EnrollmentRecord[]): Promise<ResourceProvider> {
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
