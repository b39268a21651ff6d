import type { OpenStackSession, RequestOptions } from './openstack.session.js';

export interface Network {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  readonly status: string;
  readonly shared: boolean;
  readonly 'router:external': boolean;
  readonly subnets: readonly string[];
  readonly tags: readonly string[];
}

export interface AllocationPool {
  readonly start: string;
  readonly end: string;
}

export interface Subnet {
  readonly id: string;
  readonly name: string;
  readonly network_id: string;
  readonly project_id: string;
  readonly ip_version: 4 | 6;
  readonly cidr: string;
  readonly gateway_ip: string | null;
  readonly allocation_pools: readonly AllocationPool[];
  readonly enable_dhcp: boolean;
  readonly tags: readonly string[];
}

export interface SubnetSpec {
  readonly network_id: string;
  readonly cidr: string;
  readonly ip_version?: 4 | 6;
  readonly name?: string;
  readonly gateway_ip?: string | null;
  readonly allocation_pools?: readonly AllocationPool[];
  readonly enable_dhcp?: boolean;
  readonly project_id?: string;
}

export interface FloatingIp {
  readonly id: string;
  readonly floating_ip_address: string;
  readonly floating_network_id: string;
  readonly project_id: string;
  readonly port_id: string | null;
  readonly fixed_ip_address: string | null;
  readonly router_id: string | null;
  readonly status: string;
  readonly description: string;
  readonly tags: readonly string[];
}

export interface FloatingIpSpec {
  readonly floating_network_id: string;
  /** A specific address (admin may take one outside the allocation pools); absent: the next free one of the pools. */
  readonly floating_ip_address?: string;
  readonly subnet_id?: string;
  /** The owning project (admin only); default the token's project. */
  readonly project_id?: string;
  readonly description?: string;
}

export interface FloatingIpFilter {
  readonly floating_ip_address?: string;
  readonly floating_network_id?: string;
  readonly project_id?: string;
  /** Floating IPs carrying all of these tags. */
  readonly tags?: readonly string[];
}

/** Resources that take tags (PUT /v2.0/{resource}/{id}/tags). */
export type TaggableResource = 'networks' | 'subnets' | 'ports' | 'routers' | 'floatingips';

/** Neutron's networking API v2.0. */
export class NeutronClient {
  constructor(private readonly session: OpenStackSession) {}

  withRequestId(globalRequestId: string): NeutronClient {
    return new NeutronClient(this.session.withRequestId(globalRequestId));
  }

  private async call<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    // the catalog URL of network is usually the bare root; some clouds register it with /v2.0
    const root = (await this.session.endpoint('network')).endsWith('/v2.0') ? '' : '/v2.0';
    return (await this.session.request<T>('network', method, `${root}${path}`, options)).body;
  }

  // networks and subnets

  /** `provider`: networks on one segment (Neutron shows and filters the provider attributes to admins only). */
  async listNetworks(
    filter: {
      readonly name?: string;
      readonly external?: boolean;
      readonly provider?: { readonly networkType: string; readonly physicalNetwork: string | null; readonly segmentId: number | null };
    } = {},
  ): Promise<readonly Network[]> {
    const { provider } = filter;
    const query = {
      name: filter.name,
      'router:external': filter.external,
      'provider:network_type': provider?.networkType,
      'provider:physical_network': provider?.physicalNetwork ?? undefined,
      'provider:segmentation_id': provider?.segmentId ?? undefined,
    };
    return (await this.call<{ networks: Network[] }>('GET', '/networks', { query })).networks;
  }

  async getNetwork(id: string): Promise<Network> {
    return (await this.call<{ network: Network }>('GET', `/networks/${id}`)).network;
  }

  /** `network` is Neutron's body, e.g. `{ name, 'router:external': true, 'provider:network_type': 'flat', ... }`. */
  async createNetwork(network: Readonly<Record<string, unknown>>): Promise<Network> {
    return (await this.call<{ network: Network }>('POST', '/networks', { body: { network } })).network;
  }

  async deleteNetwork(id: string): Promise<void> {
    await this.call('DELETE', `/networks/${id}`);
  }

  async listSubnets(filter: { readonly network_id?: string; readonly cidr?: string } = {}): Promise<readonly Subnet[]> {
    return (await this.call<{ subnets: Subnet[] }>('GET', '/subnets', { query: { network_id: filter.network_id, cidr: filter.cidr } }))
      .subnets;
  }

  async getSubnet(id: string): Promise<Subnet> {
    return (await this.call<{ subnet: Subnet }>('GET', `/subnets/${id}`)).subnet;
  }

  async createSubnet(spec: SubnetSpec): Promise<Subnet> {
    return (await this.call<{ subnet: Subnet }>('POST', '/subnets', { body: { subnet: { ip_version: 4, ...spec } } })).subnet;
  }

  async deleteSubnet(id: string): Promise<void> {
    await this.call('DELETE', `/subnets/${id}`);
  }

  // floating IPs

  /** 409 when the address is taken; 400 when it lies outside every subnet of the network. */
  async createFloatingIp(spec: FloatingIpSpec): Promise<FloatingIp> {
    return (await this.call<{ floatingip: FloatingIp }>('POST', '/floatingips', { body: { floatingip: spec } })).floatingip;
  }

  async listFloatingIps(filter: FloatingIpFilter = {}): Promise<readonly FloatingIp[]> {
    const query = {
      floating_ip_address: filter.floating_ip_address,
      floating_network_id: filter.floating_network_id,
      project_id: filter.project_id,
      tags: filter.tags?.join(','),
    };
    return (await this.call<{ floatingips: FloatingIp[] }>('GET', '/floatingips', { query })).floatingips;
  }

  async getFloatingIp(id: string): Promise<FloatingIp> {
    return (await this.call<{ floatingip: FloatingIp }>('GET', `/floatingips/${id}`)).floatingip;
  }

  /** `{ port_id: null }` disassociates the address from its port. */
  async updateFloatingIp(id: string, changes: { readonly port_id?: string | null; readonly description?: string }): Promise<FloatingIp> {
    return (await this.call<{ floatingip: FloatingIp }>('PUT', `/floatingips/${id}`, { body: { floatingip: changes } })).floatingip;
  }

  async deleteFloatingIp(id: string): Promise<void> {
    await this.call('DELETE', `/floatingips/${id}`);
  }

  /** Replaces the resource's tags. */
  async setTags(resource: TaggableResource, id: string, tags: readonly string[]): Promise<readonly string[]> {
    return (await this.call<{ tags: string[] }>('PUT', `/${resource}/${id}/tags`, { body: { tags } })).tags;
  }
}
