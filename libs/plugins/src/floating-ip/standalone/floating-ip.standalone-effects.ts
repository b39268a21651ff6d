import type { EffectRecord, Leftover } from '#domain/index.js';
import { type EffectContext, EffectFailedError, type ReservationEffects, done } from '../../effects.port.js';
import type { FakeNeutron, NeutronFloatingIp } from '../../standalone/neutron.fake.js';
import type { StandaloneCloud } from '../../standalone/standalone-cloud.js';
import type { FloatingIpReservation } from '../floating-ip.reservation.js';

/** Upstream's tag on the floating IPs a reservation created: how they are found again. */
export const reservationTag = (reservationId: string): string => `reservation:${reservationId}`;

const addressKey = (networkId: string, address: string): string => `${networkId} ${address}`;

const keyOf = (fip: NeutronFloatingIp): string => addressKey(fip.floatingNetworkId, fip.floatingIpAddress);

/**
 * Upstream's floating-IP plugin acted out on the standalone FAKE Neutron: at start each allocated
 * address is created in the lease's project, tagged `blazar` and `reservation:<id>`; at end each is
 * disassociated and released. An address some other holder already has fails the start (recorded,
 * not retried). Records carry `already: true` for steps a retry found done.
 */
export class StandaloneFloatingIpEffects implements ReservationEffects<FloatingIpReservation> {
  private readonly neutron: FakeNeutron;

  constructor(cloud: StandaloneCloud) {
    this.neutron = cloud.neutron;
  }

  async onStart(context: EffectContext, reservation: FloatingIpReservation): Promise<readonly EffectRecord[]> {
    return this.allocate(context, reservation, []);
  }

  async beforeEnd(_context: EffectContext, _reservation: FloatingIpReservation): Promise<readonly EffectRecord[]> {
    return [];
  }

  /** Newly allocated addresses are created, addresses no longer allocated released. */
  async onUpdate(context: EffectContext, reservation: FloatingIpReservation): Promise<readonly EffectRecord[]> {
    const wanted = new Set(reservation.allocations.map((allocation) => addressKey(reservation.networkId, allocation.address)));
    const effects = this.owned(reservation.id)
      .filter((fip) => !wanted.has(keyOf(fip)))
      .flatMap((fip) => this.release(fip));
    return this.allocate(context, reservation, effects);
  }

  /** Every allocated address and every address still tagged for the reservation is released; missing ones are fine. */
  /** Addresses still allocated under the reservation's tag. */
  leftovers(_context: EffectContext, reservation: FloatingIpReservation): Promise<readonly Leftover[]> {
    return Promise.resolve(
      this.owned(reservation.id).map((fip) => ({ reservationId: reservation.id, kind: 'floating_ip' as const, id: fip.id })),
    );
  }

  async onEnd(_context: EffectContext, reservation: FloatingIpReservation): Promise<readonly EffectRecord[]> {
    const owned = new Map(this.owned(reservation.id).map((fip) => [keyOf(fip), fip]));
    const effects: EffectRecord[] = [];
    for (const { address } of reservation.allocations) {
      const fip = owned.get(addressKey(reservation.networkId, address));
      owned.delete(addressKey(reservation.networkId, address));
      if (fip === undefined)
        effects.push({ operation: 'floatingip.delete', floating_ip_id: null, address, network_id: reservation.networkId, already: true });
      else effects.push(...this.release(fip));
    }
    for (const fip of owned.values()) effects.push(...this.release(fip));
    return effects;
  }

  private allocate(context: EffectContext, reservation: FloatingIpReservation, effects: EffectRecord[]): EffectRecord[] {
    const tags = ['blazar', reservationTag(reservation.id)];
    for (const { address } of reservation.allocations) {
      const spec = { floatingNetworkId: reservation.networkId, floatingIpAddress: address, projectId: context.projectId, tags };
      const { floatingIp, created } = this.neutron.ensureFloatingIp(spec);
      if (!floatingIp.tags.includes(reservationTag(reservation.id))) {
        throw new EffectFailedError(`Floating IP ${address} is already allocated on network ${reservation.networkId}`, effects);
      }
      const record = {
        operation: 'floatingip.create',
        floating_ip_id: floatingIp.id,
        address,
        network_id: reservation.networkId,
        project_id: context.projectId,
        tags,
      };
      effects.push(done(record, created));
    }
    return effects;
  }

  private owned(reservationId: string): NeutronFloatingIp[] {
    return this.neutron.floatingIpsTagged(reservationTag(reservationId));
  }

  /** Upstream detaches a floating IP from its port before deleting it (standalone has no ports, so that is usually done already). */
  private release(fip: NeutronFloatingIp): EffectRecord[] {
    const address = fip.floatingIpAddress;
    const disassociated = this.neutron.setPort(fip.id, null);
    const deleted = this.neutron.deleteFloatingIp(fip.id);
    return [
      done({ operation: 'floatingip.disassociate', floating_ip_id: fip.id, address }, disassociated),
      done({ operation: 'floatingip.delete', floating_ip_id: fip.id, address, network_id: fip.floatingNetworkId }, deleted),
    ];
  }
}
