import { conflict } from '#domain/index.js';
import { cloudUnavailable } from '../../openstack/cloud-unavailable.js';
import type { NeutronClient } from '../../openstack/neutron.client.js';
import { OpenStackError } from '../../openstack/openstack.errors.js';
import type { NetworkSegments } from '../network-segments.port.js';
import { describeSegment } from '../network-segment.rules.js';
import type { NetworkSegment } from '../network-segment.types.js';

/**
 * OpenStack mode: a segment some Neutron network already uses (asked as admin, by its provider attributes) is refused,
 * since a lease's network could never be created on it. Chameleon registers it anyway (its plugin's TODO). A tag inside
 * Neutron's own tenant ranges cannot be seen through the API: the operator keeps reservable tags out of them.
 */
export class NeutronNetworkSegments implements NetworkSegments {
  constructor(private readonly neutron: NeutronClient) {}

  async checkUnused(segment: NetworkSegment): Promise<void> {
    let using: readonly { readonly id: string }[];
    try {
      using = await this.neutron.listNetworks({ provider: segment });
    } catch (error) {
      if (error instanceof OpenStackError) throw cloudUnavailable('Neutron', error.message);
      throw error;
    }
    const [network] = using;
    if (network !== undefined) {
      throw conflict('NETWORK_SEGMENT_IN_USE', `Network segment ${describeSegment(segment)} is used by Neutron network ${network.id}`);
    }
  }
}
