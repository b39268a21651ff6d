import type { EffectRecord, HostReservation } from '../../../../domain/src/index.js';
import { type EffectContext, EffectFailedError, type ReservationEffects } from '../../effects.port.js';
import { FREEPOOL, type StandaloneCloud } from './standalone-cloud.js';

export interface StandaloneHostEffectsOptions {
  /** Upstream's [physical:host]before_end: what a reservation's 'default' before-end action means. */
  readonly defaultBeforeEnd?: 'snapshot' | '';
  /** Upstream's [physical:host]blazar_az_prefix. */
  readonly availabilityZonePrefix?: string;
}

/** Marks a step that a retry found already done (after a crash mid-call): the record says the state holds. */
const done = (record: EffectRecord, changed: boolean): EffectRecord => (changed ? record : { ...record, already: true });

const hostNames = (context: EffectContext, reservation: HostReservation): string[] =>
  reservation.hostIds.map((hostId) => {
    const name = context.resourceNames[hostId];
    if (name === undefined) throw new Error(`No hypervisor hostname known for host ${hostId}`);
    return name;
  });

/**
 * Upstream's physical host plugin (on_start, before_end, on_end) acted out on the standalone FAKE cloud.
 * Each call returns one record per step of its plan; steps a retry finds already done carry `already: true`.
 * No servers exist in standalone mode, so server deletions and snapshots report 0 servers.
 */
export class StandaloneHostEffects implements ReservationEffects<HostReservation> {
  private readonly defaultBeforeEnd: 'snapshot' | '';
  private readonly azPrefix: string;

  constructor(
    private readonly cloud: StandaloneCloud,
    options: StandaloneHostEffectsOptions = {},
  ) {
    this.defaultBeforeEnd = options.defaultBeforeEnd ?? '';
    this.azPrefix = options.availabilityZonePrefix ?? 'blazar_';
  }

  async onStart(context: EffectContext, reservation: HostReservation): Promise<readonly EffectRecord[]> {
    const names = hostNames(context, reservation);
    const aggregate = reservation.id;
    const spec = { availabilityZone: `${this.azPrefix}${aggregate}`, metadata: { 'blazar:owner': context.projectId } };
    const created = this.cloud.ensureAggregate(aggregate, spec);
    const effects: EffectRecord[] = [
      done({ operation: 'aggregate.create', aggregate, availability_zone: spec.availabilityZone, metadata: spec.metadata }, created),
    ];
    for (const host of names) {
      if (this.cloud.membersOf(aggregate).includes(host)) {
        effects.push(done({ operation: 'aggregate.add_host', aggregate, host }, false));
      } else if (this.cloud.inFreepool(host)) {
        effects.push(...this.moveHost(host, FREEPOOL, aggregate));
      } else {
        effects.push(...this.moveBack(aggregate, names));
        throw new EffectFailedError(`Host ${host} is not in the freepool`, effects);
      }
    }
    return effects;
  }

  async beforeEnd(context: EffectContext, reservation: HostReservation): Promise<readonly EffectRecord[]> {
    const action = reservation.beforeEnd === 'default' ? this.defaultBeforeEnd : reservation.beforeEnd;
    if (action !== 'snapshot') return [];
    return hostNames(context, reservation).map((host) => ({ operation: 'servers.snapshot', host, servers: 0 }));
  }

  async onEnd(_context: EffectContext, reservation: HostReservation): Promise<readonly EffectRecord[]> {
    const aggregate = reservation.id;
    const effects: EffectRecord[] = [];
    // like upstream's pool.delete, the aggregate's members go back, whoever put them there
    for (const host of this.cloud.membersOf(aggregate)) {
      effects.push({ operation: 'servers.delete', host, servers: 0 }, ...this.moveHost(host, aggregate, FREEPOOL));
    }
    effects.push(done({ operation: 'aggregate.delete', aggregate }, this.cloud.deleteAggregate(aggregate)));
    return effects;
  }

  private moveHost(host: string, from: string, to: string): EffectRecord[] {
    // a host that was in no aggregate left the freepool all the same, so the removal is always reported
    this.cloud.removeHost(from, host);
    const added = this.cloud.addHost(to, host);
    return [{ operation: 'aggregate.remove_host', aggregate: from, host }, done({ operation: 'aggregate.add_host', aggregate: to, host }, added)];
  }

  /** Compensation of a failed start: the reservation's hosts, moved by this call or an earlier one, return to the freepool. */
  private moveBack(aggregate: string, names: readonly string[]): EffectRecord[] {
    const members = this.cloud.membersOf(aggregate).filter((host) => names.includes(host));
    return members.flatMap((host) => this.moveHost(host, aggregate, FREEPOOL));
  }
}
