import type { EffectRecord, Leftover } from '#domain/index.js';
import { type EffectContext, EffectFailedError, type ReservationEffects, done } from '../../effects.port.js';
import { type OpenStackClients, clientsFor, recording } from '../../openstack/effects/openstack-effects.support.js';
import type { Network, NeutronClient } from '../../openstack/neutron.client.js';
import { requestIdFor } from '../../openstack/openstack.session.js';
import { isReservationNetwork, networkReservationTag } from '../network-ownership.js';
import { describeSegment } from '../network-segment.rules.js';
import type { NetworkAllocation, NetworkReservation } from '../network.reservation.js';
import { NetworkTeardownClient } from './network-teardown.client.js';
import { type InterfaceDetachWait, type TeardownClients, tearDownNetwork } from './network-teardown.js';

export interface OpenStackNetworkEffectsOptions {
  /** Default 60 s, polled every 500 ms; still attached after it: the end is retried. */
  readonly interfaceDetach?: InterfaceDetachWait;
}

const isOurs = (network: Network, reservationId: string, projectId: string): boolean =>
  isReservationNetwork({ tags: network.tags, projectId: network.project_id }, reservationId, projectId);

const segmentFields = (allocation: NetworkAllocation) => ({
  network_type: allocation.networkType,
  physical_network: allocation.physicalNetwork,
  segment_id: allocation.segmentId,
});

/**
 * Chameleon's network plugin on a real Neutron: at start a provider network on the reservation's segment, made as
 * admin in the lease's project, named and described as asked and tagged `blazar` and `reservation:<id>`; at end
 * it goes with whatever the tenant built on it, servers' ports detached through Nova first (Chameleon deletes them
 * behind Nova's back, so Nova keeps showing the server on the network). A network on the segment that is not ours
 * fails the start, recorded.
 */
export class OpenStackNetworkEffects implements ReservationEffects<NetworkReservation> {
  private readonly interfaceDetach: InterfaceDetachWait;

  constructor(
    private readonly clients: OpenStackClients,
    options: OpenStackNetworkEffectsOptions = {},
  ) {
    this.interfaceDetach = options.interfaceDetach ?? { timeoutMs: 60_000, pollMs: 500 };
  }

  async onStart(context: EffectContext, reservation: NetworkReservation): Promise<readonly EffectRecord[]> {
    const { neutron } = clientsFor(this.clients, context);
    return recording(async (effects) => {
      for (const allocation of reservation.allocations) effects.push(await this.ensure(neutron, context, reservation, allocation));
    });
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
    const clients = this.teardownClients(context);
    return recording(async (effects) => {
      const networks = await this.owned(clients, context, reservation);
      if (networks.length === 0) {
        for (const allocation of reservation.allocations) {
          effects.push({ operation: 'network.delete', network_id: null, ...segmentFields(allocation), already: true });
        }
      }
      for (const network of networks) await tearDownNetwork(clients, network, this.interfaceDetach, effects);
    });
  }

  /** The reservation's networks still on its segment or tagged for it. */
  async leftovers(context: EffectContext, reservation: NetworkReservation): Promise<readonly Leftover[]> {
    const networks = await this.owned(this.teardownClients(context), context, reservation);
    return networks.map((network) => ({ reservationId: reservation.id, kind: 'network' as const, id: network.id }));
  }

  private teardownClients(context: EffectContext): TeardownClients {
    const { neutron } = clientsFor(this.clients, context);
    return { neutron, teardown: new NetworkTeardownClient(this.clients.session.withRequestId(requestIdFor(context.idempotencyKey))) };
  }

  private async ensure(
    neutron: NeutronClient,
    context: EffectContext,
    reservation: NetworkReservation,
    allocation: NetworkAllocation,
  ): Promise<EffectRecord> {
    const [existing] = await neutron.listNetworks({ provider: allocation });
    if (existing !== undefined && !isOurs(existing, reservation.id, context.projectId)) {
      throw new EffectFailedError(
        `Network segment ${describeSegment(allocation)} is used by Neutron network ${existing.id} of project ${existing.project_id}`,
        [],
      );
    }
    const network = existing ?? (await neutron.createNetwork(createBody(context, reservation, allocation)));
    const tags = ['blazar', networkReservationTag(reservation.id)];
    if (!tags.every((tag) => network.tags.includes(tag)))
      await neutron.setTags('networks', network.id, [...new Set([...network.tags, ...tags])]);
    const record = {
      operation: 'network.create',
      network_id: network.id,
      name: network.name,
      project_id: network.project_id,
      ...segmentFields(allocation),
    };
    return done(record, existing === undefined);
  }

  private async owned(clients: TeardownClients, context: EffectContext, reservation: NetworkReservation): Promise<readonly Network[]> {
    const found = new Map<string, Network>();
    for (const allocation of reservation.allocations) {
      for (const network of await clients.neutron.listNetworks({ provider: allocation })) found.set(network.id, network);
    }
    for (const network of await clients.teardown.networksTagged(networkReservationTag(reservation.id))) found.set(network.id, network);
    return [...found.values()].filter((network) => isOurs(network, reservation.id, context.projectId));
  }
}

/** Neutron's body: the segment's provider attributes, those it has (a flat segment has no id, a tunnel no physical network). */
const createBody = (context: EffectContext, reservation: NetworkReservation, allocation: NetworkAllocation): Record<string, unknown> => ({
  name: reservation.networkName,
  project_id: context.projectId,
  'provider:network_type': allocation.networkType,
  ...(allocation.physicalNetwork === null ? {} : { 'provider:physical_network': allocation.physicalNetwork }),
  ...(allocation.segmentId === null ? {} : { 'provider:segmentation_id': allocation.segmentId }),
  ...(reservation.networkDescription === '' ? {} : { description: reservation.networkDescription }),
});
