import type { Network } from '../../openstack/neutron.client.js';
import { NOVA_MICROVERSION } from '../../openstack/nova.client.js';
import type { OpenStackSession, RequestOptions } from '../../openstack/openstack.session.js';

export interface Port {
  readonly id: string;
  readonly network_id: string;
  readonly project_id: string;
  /** The server, router or DHCP namespace using the port; '' when unbound. */
  readonly device_id: string;
  /** `compute:<zone>` for a server's port, `network:router_interface`, `network:dhcp`, ... */
  readonly device_owner: string;
  readonly fixed_ips: readonly { readonly subnet_id: string; readonly ip_address: string }[];
}

/**
 * The Neutron and Nova calls that taking a reservation's network apart needs beyond NeutronClient and NovaClient,
 * on the same session: kept with the network type so that it adds nothing to the shared clients.
 */
export class NetworkTeardownClient {
  constructor(private readonly session: OpenStackSession) {}

  withRequestId(globalRequestId: string): NetworkTeardownClient {
    return new NetworkTeardownClient(this.session.withRequestId(globalRequestId));
  }

  private async neutron<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    // as NeutronClient: the catalog URL of network is usually the bare root; some clouds register it with /v2.0
    const root = (await this.session.endpoint('network')).endsWith('/v2.0') ? '' : '/v2.0';
    return (await this.session.request<T>('network', method, `${root}${path}`, options)).body;
  }

  /** Networks carrying the tag, in every project (admin). */
  async networksTagged(tag: string): Promise<readonly Network[]> {
    return (await this.neutron<{ networks: Network[] }>('GET', '/networks', { query: { tags: tag } })).networks;
  }

  async listPorts(networkId: string): Promise<readonly Port[]> {
    return (await this.neutron<{ ports: Port[] }>('GET', '/ports', { query: { network_id: networkId } })).ports;
  }

  async getPort(id: string): Promise<Port> {
    return (await this.neutron<{ port: Port }>('GET', `/ports/${encodeURIComponent(id)}`)).port;
  }

  async deletePort(id: string): Promise<void> {
    await this.neutron('DELETE', `/ports/${encodeURIComponent(id)}`);
  }

  /** 404 when the router is gone or has no interface on the subnet. */
  async removeRouterInterface(routerId: string, subnetId: string): Promise<void> {
    await this.neutron('PUT', `/routers/${encodeURIComponent(routerId)}/remove_router_interface`, { body: { subnet_id: subnetId } });
  }

  /**
   * Nova's interface detach: accepted (202), done by the server's compute later. Nova unbinds a port it was given
   * and deletes one it made. 404 when the server is gone or the port not attached; 409 in a state Nova cannot detach in.
   */
  async detachInterface(serverId: string, portId: string): Promise<void> {
    const path = `/servers/${encodeURIComponent(serverId)}/os-interface/${encodeURIComponent(portId)}`;
    await this.session.request('compute', 'DELETE', path, { microversion: NOVA_MICROVERSION });
  }
}
