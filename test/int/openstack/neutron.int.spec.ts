/** Neutron through NeutronClient against the real control plane: networks, subnets, floating IPs and tags. */
import { afterAll, describe, expect, it } from 'vitest';
import {
  NeutronClient,
  OpenStackConflictError,
  OpenStackHttpError,
  OpenStackNotFoundError,
  ignoreNotFound,
} from '#plugins/openstack/index.js';
import { OPENSTACK_ENV_FILE, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

/** An address of the public subnet outside its allocation pool (.100-.200), as an operator registers for a reservation. */
const outsidePool = (): string => `172.24.4.${10 + Math.floor(Math.random() * 80)}`;

describe.skipIf(!OPENSTACK_ENV_FILE)('NeutronClient (real Neutron)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const session = OPENSTACK_ENV_FILE ? sessionFor(env.admin) : (undefined as never);
  const neutron = OPENSTACK_ENV_FILE ? new NeutronClient(session) : (undefined as never);
  const cleanups: (() => Promise<unknown>)[] = [];

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('shows the external network with its subnet and allocation pool', async () => {
    const [network] = await neutron.listNetworks({ name: 'public' });
    expect(network).toMatchObject({ id: env.publicNetworkId, 'router:external': true, subnets: [env.publicSubnetId] });
    expect((await neutron.listNetworks({ external: true })).map((n) => n.id)).toContain(env.publicNetworkId);
    expect((await neutron.getNetwork(env.publicNetworkId)).name).toBe('public');
    const [subnet] = await neutron.listSubnets({ network_id: env.publicNetworkId });
    expect(subnet).toMatchObject({ id: env.publicSubnetId, cidr: env.publicSubnetCidr, ip_version: 4, allocation_pools: [env.publicPool] });
    expect((await neutron.getSubnet(env.publicSubnetId)).cidr).toBe(env.publicSubnetCidr);
    await expect(neutron.getNetwork('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(OpenStackNotFoundError);
  });

  it('creates and deletes a network and its subnet, and tags them', async () => {
    const name = uniqueName('lh-net');
    const network = await neutron.createNetwork({ name, 'provider:network_type': 'vlan', 'provider:physical_network': 'physnet1' });
    cleanups.push(() => ignoreNotFound(neutron.deleteNetwork(network.id)));
    const subnet = await neutron.createSubnet({
      network_id: network.id,
      name,
      cidr: '10.99.0.0/24',
      allocation_pools: [{ start: '10.99.0.10', end: '10.99.0.20' }],
    });
    expect(subnet).toMatchObject({
      network_id: network.id,
      cidr: '10.99.0.0/24',
      gateway_ip: '10.99.0.1',
      allocation_pools: [{ start: '10.99.0.10', end: '10.99.0.20' }],
    });
    expect(await neutron.setTags('networks', network.id, ['leasehold', `test:${name}`])).toEqual(['leasehold', `test:${name}`]);
    expect([...(await neutron.getNetwork(network.id)).tags].sort()).toEqual(['leasehold', `test:${name}`]);
    await neutron.deleteSubnet(subnet.id);
    await expect(neutron.getSubnet(subnet.id)).rejects.toBeInstanceOf(OpenStackNotFoundError);
    await neutron.deleteNetwork(network.id);
    expect(await ignoreNotFound(neutron.deleteNetwork(network.id))).toBe(false);
  });

  it('creates a floating IP outside the pool in a project, tags, finds, disassociates and releases it', { timeout: 60_000 }, async () => {
    const address = outsidePool();
    const reservation = uniqueName('reservation');
    const fip = await neutron.createFloatingIp({
      floating_network_id: env.publicNetworkId,
      subnet_id: env.publicSubnetId,
      floating_ip_address: address,
      project_id: env.demoProjectId,
    });
    cleanups.push(() => ignoreNotFound(neutron.deleteFloatingIp(fip.id)));
    expect(fip).toMatchObject({
      floating_ip_address: address,
      floating_network_id: env.publicNetworkId,
      project_id: env.demoProjectId,
      port_id: null,
    });
    await expect(
      neutron.createFloatingIp({ floating_network_id: env.publicNetworkId, floating_ip_address: address, project_id: env.demoProjectId }),
    ).rejects.toBeInstanceOf(OpenStackConflictError);

    expect(await neutron.setTags('floatingips', fip.id, ['blazar', `reservation:${reservation}`])).toEqual([
      'blazar',
      `reservation:${reservation}`,
    ]);
    const [byAddress] = await neutron.listFloatingIps({ floating_ip_address: address, floating_network_id: env.publicNetworkId });
    expect(byAddress?.id).toBe(fip.id);
    expect([...(byAddress?.tags ?? [])].sort()).toEqual(['blazar', `reservation:${reservation}`]);
    expect((await neutron.listFloatingIps({ tags: [`reservation:${reservation}`] })).map((f) => f.id)).toEqual([fip.id]);
    expect((await neutron.listFloatingIps({ project_id: env.demoProjectId })).map((f) => f.id)).toContain(fip.id);
    // the member of the project sees it too
    expect((await new NeutronClient(sessionFor(env.demo)).getFloatingIp(fip.id)).floating_ip_address).toBe(address);

    const port = await associatedPort(fip.id);
    expect((await neutron.getFloatingIp(fip.id)).port_id).toBe(port);
    const released = await neutron.updateFloatingIp(fip.id, { port_id: null });
    expect(released).toMatchObject({ port_id: null, fixed_ip_address: null });

    await neutron.deleteFloatingIp(fip.id);
    await expect(neutron.getFloatingIp(fip.id)).rejects.toBeInstanceOf(OpenStackNotFoundError);
    await expect(neutron.deleteFloatingIp(fip.id)).rejects.toBeInstanceOf(OpenStackNotFoundError);
    expect(await neutron.listFloatingIps({ floating_ip_address: address })).toEqual([]);
  });

  it("refuses an address outside every subnet of the network with Neutron's message", async () => {
    const error = await neutron
      .createFloatingIp({ floating_network_id: env.publicNetworkId, floating_ip_address: '192.0.2.10' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenStackHttpError);
    expect(error).toMatchObject({ status: 400, code: 'OPENSTACK_BAD_REQUEST', service: 'network' });
    expect((error as OpenStackHttpError).cloudCode).not.toBeNull();
  });

  /**
   * A port on a private network routed to the external one, associated with the floating IP (raw Neutron calls: no client needs them yet).
   */
  const associatedPort = async (fipId: string): Promise<string> => {
    const name = uniqueName('lh-fip');
    const network = await neutron.createNetwork({
      name,
      'provider:network_type': 'vlan',
      'provider:physical_network': 'physnet1',
      project_id: env.demoProjectId,
    });
    cleanups.push(() => ignoreNotFound(neutron.deleteNetwork(network.id)));
    const subnet = await neutron.createSubnet({ network_id: network.id, cidr: '10.98.0.0/24', project_id: env.demoProjectId });
    const router = (
      await session.request<{ router: { id: string } }>('network', 'POST', '/v2.0/routers', {
        body: { router: { name, project_id: env.demoProjectId, external_gateway_info: { network_id: env.publicNetworkId } } },
      })
    ).body.router.id;
    cleanups.push(async () => {
      await ignoreNotFound(
        session.request('network', 'PUT', `/v2.0/routers/${router}/remove_router_interface`, { body: { subnet_id: subnet.id } }),
      );
      await ignoreNotFound(session.request('network', 'DELETE', `/v2.0/routers/${router}`));
    });
    await session.request('network', 'PUT', `/v2.0/routers/${router}/add_router_interface`, { body: { subnet_id: subnet.id } });
    const port = (
      await session.request<{ port: { id: string } }>('network', 'POST', '/v2.0/ports', {
        body: { port: { network_id: network.id, project_id: env.demoProjectId, name } },
      })
    ).body.port.id;
    cleanups.push(() => ignoreNotFound(session.request('network', 'DELETE', `/v2.0/ports/${port}`)));
    const associated = await neutron.updateFloatingIp(fipId, { port_id: port });
    expect(associated.fixed_ip_address).toMatch(/^10\.98\.0\./);
    return port;
  };
});
