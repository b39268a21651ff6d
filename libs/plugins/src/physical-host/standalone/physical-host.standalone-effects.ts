import type { EffectRecord, Leftover } from '#domain/index.js';
import { type EffectContext, EffectFailedError, type ReservationEffects, done } from '../../effects.port.js';
import { FREEPOOL, type FakeNova } from '../../standalone/nova.fake.js';
import type { StandaloneEffectsOptions } from '../../standalone/standalone-effects.options.js';
import type { StandaloneCloud } from '../../standalone/standalone-cloud.js';
import type { HostReservation } from '../host.reservation.js';

export type StandaloneHostEffectsOptions = StandaloneEffectsOptions;

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
  private readonly nova: FakeNova;
  private readonly defaultBeforeEnd: 'snapshot' | '';
  private readonly azPrefix: string;

  constructor(cloud: StandaloneCloud, options: StandaloneHostEffectsOptions = {}) {
    this.nova = cloud.nova;
    this.defaultBeforeEnd = options.defaultBeforeEnd ?? '';
    this.azPrefix = options.availabilityZonePrefix ?? 'blazar_';
  }

  async onStart(context: EffectContext, reservation: HostReservation): Promise<readonly EffectRecord[]> {
    const names = hostNames(context, reservation);
    const aggregate = reservation.id;
    const spec = { availabilityZone: `${this.azPrefix}${aggregate}`, metadata: { 'blazar:owner': context.projectId } };
    const created = this.nova.ensureAggregate(aggregate, spec);
    const aggregateId = this.nova.getAggregate(aggregate)?.id ?? null;
    const record = {
      operation: 'aggregate.create',
      aggregate,
      aggregate_id: aggregateId,
      availability_zone: spec.availabilityZone,
      metadata: spec.metadata,
    };
    const effects: EffectRecord[] = [done(record, created)];
    for (const host of names) {
      if (this.nova.membersOf(aggregate).includes(host)) {
        effects.push(done({ operation: 'aggregate.add_host', aggregate, host }, false));
      } else if (this.nova.inFreepool(host)) {
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

  /**
   * Converging a started reservation is its start once more (every step found done is marked
   * `already`, which the reconciler relies on to tell drift from a clean check), then members it no
   * longer holds (a failed host healing replaced) lose their servers and go back to the freepool.
   */
  async onUpdate(context: EffectContext, reservation: HostReservation): Promise<readonly EffectRecord[]> {
    const effects = [...(await this.onStart(context, reservation))];
    const names = hostNames(context, reservation);
    for (const host of this.nova.membersOf(reservation.id).filter((member) => !names.includes(member))) {
      effects.push({ operation: 'servers.delete', host, servers: 0 }, ...this.moveHost(host, reservation.id, FREEPOOL));
    }
    return effects;
  }

  /** The reservation's aggregate (standalone runs no servers). */
  leftovers(_context: EffectContext, reservation: HostReservation): Promise<readonly Leftover[]> {
    const aggregate = this.nova.getAggregate(reservation.id);
    return Promise.resolve(aggregate === null ? [] : [{ reservationId: reservation.id, kind: 'aggregate', id: reservation.id }]);
  }

  async onEnd(_context: EffectContext, reservation: HostReservation): Promise<readonly EffectRecord[]> {
    const aggregate = reservation.id;
    const effects: EffectRecord[] = [];
    // like upstream's pool.delete, the aggregate's members go back, whoever put them there
    for (const host of this.nova.membersOf(aggregate)) {
      effects.push({ operation: 'servers.delete', host, servers: 0 }, ...this.moveHost(host, aggregate, FREEPOOL));
    }
    effects.push(done({ operation: 'aggregate.delete', aggregate }, this.nova.deleteAggregate(aggregate)));
    return effects;
  }

  private moveHost(host: string, from: string, to: string): EffectRecord[] {
    // a host that was in no aggregate left the freepool all the same, so the removal is always reported
    this.nova.removeHost(from, host);
    const added = this.nova.addHost(to, host);
    return [
      { operation: 'aggregate.remove_host', aggregate: from, host },
      done({ operation: 'aggregate.add_host', aggregate: to, host }, added),
    ];
  }

  /** Compensation of a failed start: the reservation's hosts, moved by this call or an earlier one, return to the freepool. */
  private moveBack(aggregate: string, names: readonly string[]): EffectRecord[] {
    const members = this.nova.membersOf(aggregate).filter((host) => names.includes(host));
    return members.flatMap((host) => this.moveHost(host, aggregate, FREEPOOL));
  }
}
