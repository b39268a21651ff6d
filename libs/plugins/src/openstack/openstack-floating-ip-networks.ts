import { BlockList, isIPv6 } from 'node:net';
import { invalid, notFound } from '#domain/index.js';
import type { FloatingIpLocation, FloatingIpNetworks } from '../ports/floating-ip-networks.port.js';
import { cloudUnavailable } from './cloud-unavailable.js';
import type { NeutronClient, Subnet } from './neutron.client.js';
import { OpenStackError, isNotFound } from './openstack.errors.js';

type Family = 'ipv4' | 'ipv6';

const familyOf = (address: string): Family => (isIPv6(address) ? 'ipv6' : 'ipv4');

const inCidr = (address: string, cidr: string): boolean => {
  const [network, prefix] = cidr.split('/');
  const family = familyOf(address);
  if (network === undefined || prefix === undefined || familyOf(network) !== family) return false;
  const block = new BlockList();
  block.addSubnet(network, Number(prefix), family);
  return block.check(address, family);
};

/** Neutron hands these out itself: an address in an allocation pool, or the gateway. */
const usedByNeutron = (address: string, subnet: Subnet): boolean => {
  const family = familyOf(address);
  if (subnet.gateway_ip !== null && familyOf(subnet.gateway_ip) === family) {
    const gateway = new BlockList();
    gateway.addAddress(subnet.gateway_ip, family);
    if (gateway.check(address, family)) return true;
  }
  return subnet.allocation_pools.some((pool) => {
    if (familyOf(pool.start) !== family) return false;
    const range = new BlockList();
    range.addRange(pool.start, pool.end, family);
    return range.check(address, family);
  });
};

/**
 * OpenStack mode, as upstream's floating-IP plugin checks a new address: the network exists, one of
 * its subnets holds the address, and Neutron does not hand it out itself (allocation pools, gateway).
 */
export class OpenStackFloatingIpNetworks implements FloatingIpNetworks {
  constructor(private readonly neutron: NeutronClient) {}

  async locate(networkId: string, address: string): Promise<FloatingIpLocation> {
    try {
      await this.requireNetwork(networkId);
      const subnets = await this.neutron.listSubnets({ network_id: networkId });
      const subnet = subnets.find((s) => inCidr(address, s.cidr));
      if (subnet === undefined) throw notFound('FLOATING_IP_SUBNET_NOT_FOUND', `Valid subnet for the floating IP ${address} is not found.`);
      if (usedByNeutron(address, subnet)) {
        throw invalid(
          'NEUTRON_USES_FLOATING_IP',
          `The floating IP ${address} is used in allocation_pools or gateway_ip in subnet ${subnet.id} .`,
        );
      }
      return { subnetId: subnet.id };
    } catch (error) {
      if (error instanceof OpenStackError) throw cloudUnavailable('Neutron', error.message);
      throw error;
    }
  }

  private async requireNetwork(networkId: string): Promise<void> {
    try {
      await this.neutron.getNetwork(networkId);
    } catch (error) {
      if (isNotFound(error)) throw invalid('FLOATING_IP_NETWORK_NOT_FOUND', `Network ${networkId} not found`);
      throw error;
    }
  }
}
