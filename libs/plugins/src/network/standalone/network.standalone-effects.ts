import type { EffectRecord, Leftover } from '#domain/index.js';
import { type EffectContext, EffectFailedError, type ReservationEffects, done } from '../../effects.port.js';
import type { FakeNeutron, NeutronNetwork } from '../../standalone/neutron.fake.js';
import type { StandaloneCloud } from '../../standalone/standalone-cloud.js';
import { isReservationNetwork, networkReservationTag } from '../network-ownership.js';
import { describeSegment } from '../network-segment.rules.js';
import type { NetworkAllocation, NetworkReservation } from '../network.reservation.js';

const segmentFields = (allocation: NetworkAllocation) => ({
  network_type: allocation.networkType,
  physical_network: allocation.physicalNetwork,
  segment_id: allocation.segmentId,
});

/**
 * Chameleon's network plugin acted out on the standalone FAKE Neutron: at start a network on the reservation's
 * segment in the lease's project, tagged `blazar` and `reservation:<id>`; at end it is deleted (no tenant builds
 * anything on it here). A network on the segment that is not the reservation's fails the start (recorded, not
 * retried). Records carry `already: true` for steps a retry found done.
 */
export class StandaloneNetworkEffects implements ReservationEffects<NetworkReservation> {
  private readonly neutron: FakeNeutron;

  constructor(cloud: StandaloneCloud) {
    this.neutron = cloud.neutron;
  }

  async onStart(context: EffectContext, reservation: NetworkReservation): Promise<readonly EffectRecord[]> {
    const effects: EffectRecord[] = [];
    for (const allocation of reservation.allocations) effects.push(this.ensure(context, reservation, allocation, effects));
    return effects;
  }

  /** Before-end actions (snapshot, notify) act on hosts' servers; a network has none of its own. */
  async beforeEnd(_context: EffectContext, _reservation: NetworkReservation): Promise<readonly EffectRecord[]> {
    return [];
  }

  /** An active reservation keeps its segment (the rules refuse a change): the network is only made sure of. */
  async onUpdate(context: EffectContext, reservation: NetworkReservation): Promise<readonly EffectRecord[]> {
    return this.onStart(context, reservation);
  }

  async onEnd(context: EffectContext, reservation: NetworkReservation): Promise<readonly EffectRecord[]> {
    const networks = this.owned(context, reservation);
    if (networks.length === 0) {
      return reservation.allocations.map((allocation) => ({
        operation: 'network.delete',
        network_id: null,
        ...segmentFields(allocation),
        already: true,
      }));
    }
    return networks.map((network) =>
      done(
        { operation: 'network.delete', network_id: network.id, name: network.name, project_id: network.projectId },
        this.neutron.deleteNetwork(network.id),
      ),
    );
  }

  /** The reservation's networks still on its segment or tagged for it. */
  async leftovers(context: EffectContext, reservation: NetworkReservation): Promise<readonly Leftover[]> {
    return this.owned(context, reservation).map((network) => ({ reservationId: reservation.id, kind: 'network' as const, id: network.id }));
  }

  private ensure(
    context: EffectContext,
    reservation: NetworkReservation,
    allocation: NetworkAllocation,
    effects: readonly EffectRecord[],
  ): EffectRecord {
    const tags = ['blazar', networkReservationTag(reservation.id)];
    const { networkType, physicalNetwork, segmentId } = allocation;
    const spec = { name: reservation.networkName, projectId: context.projectId, tags, networkType, physicalNetwork, segmentId };
    const { network, created } = this.neutron.ensureNetwork(spec);
    if (!isReservationNetwork(network, reservation.id, context.projectId)) {
      throw new EffectFailedError(
        `Network segment ${describeSegment(allocation)} is used by Neutron network ${network.id} of project ${network.projectId}`,
        effects,
      );
    }
    const record = {
      operation: 'network.create',
      network_id: network.id,
      name: network.name,
      project_id: network.projectId,
      ...segmentFields(allocation),
    };
    return done(record, created);
  }

  private owned(context: EffectContext, reservation: NetworkReservation): NeutronNetwork[] {
    const found = new Map<string, NeutronNetwork>();
    for (const allocation of reservation.allocations) {
      const network = this.neutron.networkOnSegment(allocation);
      if (network !== null) found.set(network.id, network);
    }
    for (const network of this.neutron.networksTagged(networkReservationTag(reservation.id))) found.set(network.id, network);
    return [...found.values()].filter((network) => isReservationNetwork(network, reservation.id, context.projectId));
  }
}
