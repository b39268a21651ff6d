import type { EffectRecord, Leftover } from '#domain/index.js';
import { type EffectContext, EffectFailedError, type ReservationEffects, done } from '../../effects.port.js';
import type { FloatingIp, NeutronClient } from '../../openstack/neutron.client.js';
import { ignoreNotFound } from '../../openstack/openstack.errors.js';
import { type OpenStackClients, clientsFor, recording } from '../../openstack/effects/openstack-effects.support.js';
import type { FloatingIpReservation } from '../floating-ip.reservation.js';

/** Upstream's tag on the floating IPs a reservation created: how they are found again. */
export const floatingIpReservationTag = (reservationId: string): string => `reservation:${reservationId}`;

/** Also put in the description at creation, so that a retry after a crash between create and tagging knows the address is ours. */
const ownedBy = (fip: FloatingIp, reservationId: string): boolean =>
  fip.tags.includes(floatingIpReservationTag(reservationId)) || fip.description === floatingIpReservationTag(reservationId);

/**
 * Upstream's floating-IP plugin on a real Neutron: at start each allocated address is created as admin
 * in the lease's project (a member may not choose an address), described and tagged `blazar` and
 * `reservation:<id>`; at end each is disassociated from its port and released. An address held by
 * anyone else fails the start with Neutron's refusal or ours, recorded, not retried.
 */
export class OpenStackFloatingIpEffects implements ReservationEffects<FloatingIpReservation> {
  constructor(private readonly clients: OpenStackClients) {}

  async onStart(context: EffectContext, reservation: FloatingIpReservation): Promise<readonly EffectRecord[]> {
    const { neutron } = clientsFor(this.clients, context);
    return recording((effects) => this.allocate(neutron, context, reservation, effects));
  }

  async beforeEnd(_context: EffectContext, _reservation: FloatingIpReservation): Promise<readonly EffectRecord[]> {
    return [];
  }

  /** Newly allocated addresses are created, addresses no longer allocated released. */
  async onUpdate(context: EffectContext, reservation: FloatingIpReservation): Promise<readonly EffectRecord[]> {
    const { neutron } = clientsFor(this.clients, context);
    return recording(async (effects) => {
      const wanted = new Set(reservation.allocations.map((allocation) => allocation.address));
      for (const fip of await this.owned(neutron, reservation)) {
        if (!wanted.has(fip.floating_ip_address)) effects.push(...(await this.release(neutron, fip)));
      }
      await this.allocate(neutron, context, reservation, effects);
    });
  }

  /** Every allocated address of ours and every address still tagged for the reservation is released; missing ones are fine. */
  /** Addresses still allocated under the reservation's tag. */
  async leftovers(context: EffectContext, reservation: FloatingIpReservation): Promise<readonly Leftover[]> {
    const { neutron } = clientsFor(this.clients, context);
    return (await this.owned(neutron, reservation)).map((fip) => ({
      reservationId: reservation.id,
      kind: 'floating_ip' as const,
      id: fip.id,
    }));
  }

  async onEnd(context: EffectContext, reservation: FloatingIpReservation): Promise<readonly EffectRecord[]> {
    const { neutron } = clientsFor(this.clients, context);
    return recording(async (effects) => {
      const owned = new Map((await this.owned(neutron, reservation)).map((fip) => [fip.floating_ip_address, fip]));
      for (const { address } of reservation.allocations) {
        const fip = owned.get(address) ?? (await this.find(neutron, reservation, address));
        owned.delete(address);
        if (fip === null || !ownedBy(fip, reservation.id)) {
          effects.push({ operation: 'floatingip.delete', floating_ip_id: null, address, network_id: reservation.networkId, already: true });
        } else effects.push(...(await this.release(neutron, fip)));
      }
      for (const fip of owned.values()) effects.push(...(await this.release(neutron, fip)));
    });
  }

  private async allocate(
    neutron: NeutronClient,
    context: EffectContext,
    reservation: FloatingIpReservation,
    effects: EffectRecord[],
  ): Promise<void> {
    const tag = floatingIpReservationTag(reservation.id);
    const tags = ['blazar', tag];
    for (const { address } of reservation.allocations) {
      const existing = await this.find(neutron, reservation, address);
      if (existing !== null && !ownedBy(existing, reservation.id)) {
        throw new EffectFailedError(`Floating IP ${address} is already allocated on network ${reservation.networkId}`, effects);
      }
      const fip =
        existing ??
        (await neutron.createFloatingIp({
          floating_network_id: reservation.networkId,
          floating_ip_address: address,
          project_id: context.projectId,
          description: tag,
        }));
      if (!tags.every((t) => fip.tags.includes(t))) await neutron.setTags('floatingips', fip.id, [...new Set([...fip.tags, ...tags])]);
      const record = {
        operation: 'floatingip.create',
        floating_ip_id: fip.id,
        address,
        network_id: reservation.networkId,
        project_id: fip.project_id,
        tags,
      };
      effects.push(done(record, existing === null));
    }
  }

  private async find(neutron: NeutronClient, reservation: FloatingIpReservation, address: string): Promise<FloatingIp | null> {
    return (await neutron.listFloatingIps({ floating_network_id: reservation.networkId, floating_ip_address: address }))[0] ?? null;
  }

  private async owned(neutron: NeutronClient, reservation: FloatingIpReservation): Promise<readonly FloatingIp[]> {
    return neutron.listFloatingIps({ tags: [floatingIpReservationTag(reservation.id)] });
  }

  /** Upstream detaches a floating IP from its port before deleting it. */
  private async release(neutron: NeutronClient, fip: FloatingIp): Promise<EffectRecord[]> {
    const address = fip.floating_ip_address;
    const attached = fip.port_id !== null;
    if (attached) await ignoreNotFound(neutron.updateFloatingIp(fip.id, { port_id: null }));
    const deleted = await ignoreNotFound(neutron.deleteFloatingIp(fip.id));
    return [
      done({ operation: 'floatingip.disassociate', floating_ip_id: fip.id, address }, attached),
      done({ operation: 'floatingip.delete', floating_ip_id: fip.id, address, network_id: fip.floating_network_id }, deleted),
    ];
  }
}
