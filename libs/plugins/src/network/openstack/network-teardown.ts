import type { EffectRecord } from '#domain/index.js';
import { done } from '../../effects.port.js';
import { EffectNotFinishedError } from '../../openstack/effects/openstack-effects.support.js';
import type { Network, NeutronClient } from '../../openstack/neutron.client.js';
import { OpenStackConflictError, ignoreNotFound, isNotFound } from '../../openstack/openstack.errors.js';
import type { NetworkTeardownClient, Port } from './network-teardown.client.js';

/** How long to wait for Nova to let go of a server's port after a detach, polling Neutron. */
export interface InterfaceDetachWait {
  readonly timeoutMs: number;
  readonly pollMs: number;
}

export interface TeardownClients {
  readonly neutron: NeutronClient;
  readonly teardown: NetworkTeardownClient;
}

const isServerPort = (port: Port): boolean => port.device_owner.startsWith('compute:');

// a router's interface can only go through the router: Neutron refuses to delete its port as a port
const ROUTER_INTERFACE_OWNERS: ReadonlySet<string> = new Set([
  'network:router_interface',
  'network:router_interface_distributed',
  'network:ha_router_replicated_interface',
]);

const isRouterInterface = (port: Port): boolean => ROUTER_INTERFACE_OWNERS.has(port.device_owner);

// Neutron deletes a subnet's DHCP port with the subnet
const isDhcpPort = (port: Port): boolean => port.device_owner === 'network:dhcp';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Takes a network apart in the order Neutron allows: servers' ports (detached through Nova, so that Nova forgets
 * them, then deleted), router interfaces on its subnets, the other ports, the subnets, the network. Each step
 * tolerates not-found, so a retry after a crash at any step finishes the work; a port that appeared meanwhile
 * makes a delete refused as in use, which is retried rather than recorded.
 */
export const tearDownNetwork = async (
  clients: TeardownClients,
  network: Network,
  wait: InterfaceDetachWait,
  effects: EffectRecord[],
): Promise<void> => {
  const { neutron, teardown } = clients;
  const ports = await teardown.listPorts(network.id);
  await releaseServerPorts(teardown, ports.filter(isServerPort), wait, effects);
  for (const port of ports.filter(isRouterInterface)) effects.push(...(await removeRouterInterfaces(teardown, port)));
  for (const port of await teardown.listPorts(network.id)) {
    if (!isRouterInterface(port) && !isDhcpPort(port)) effects.push(await deletePort(teardown, port));
  }
  for (const subnet of await neutron.listSubnets({ network_id: network.id })) {
    const deleted = await unlessInUse(neutron.deleteSubnet(subnet.id), `Subnet ${subnet.id}`);
    effects.push(done({ operation: 'network.subnet.delete', subnet_id: subnet.id, network_id: network.id }, deleted));
  }
  const deleted = await unlessInUse(neutron.deleteNetwork(network.id), `Network ${network.id}`);
  effects.push(done({ operation: 'network.delete', network_id: network.id, name: network.name, project_id: network.project_id }, deleted));
};

const deletePort = async (teardown: NetworkTeardownClient, port: Port): Promise<EffectRecord> =>
  done(
    { operation: 'network.port.delete', port_id: port.id, device_owner: port.device_owner, device_id: port.device_id },
    await ignoreNotFound(teardown.deletePort(port.id)),
  );

/**
 * Nova detaches each port from its server; once Neutron no longer shows them bound to their servers (or at all),
 * they are deleted. One wait for all of them, so that many servers cost one timeout, not one each.
 */
const releaseServerPorts = async (
  teardown: NetworkTeardownClient,
  ports: readonly Port[],
  wait: InterfaceDetachWait,
  effects: EffectRecord[],
): Promise<void> => {
  const detaches: Detach[] = [];
  for (const port of ports) detaches.push(await detach(teardown, port));
  await untilLetGo(
    teardown,
    detaches.filter((d) => d.pending).map((d) => d.port),
    wait,
  );
  for (const { port, record } of detaches) effects.push(record, await deletePort(teardown, port));
};

interface Detach {
  readonly port: Port;
  readonly record: EffectRecord;
  /** Nova accepted the detach: its compute has yet to let go of the port. */
  readonly pending: boolean;
}

/** Asks Nova to detach the port (accepted: done later by the server's compute). */
const detach = async (teardown: NetworkTeardownClient, port: Port): Promise<Detach> => {
  const record = { operation: 'network.port.detach', port_id: port.id, server_id: port.device_id };
  if (port.device_id === '') return { port, record: done(record, false), pending: false };
  try {
    const accepted = await ignoreNotFound(teardown.detachInterface(port.device_id, port.id));
    return { port, record: done(record, accepted), pending: accepted };
  } catch (error) {
    // a server Nova cannot detach from now (building, in error): deleting the port unplugs it anyway, as upstream always does
    if (error instanceof OpenStackConflictError) return { port, record: { ...record, refused: error.cloudMessage }, pending: false };
    throw error;
  }
};

const stillAttached = async (teardown: NetworkTeardownClient, port: Port): Promise<boolean> => {
  try {
    return (await teardown.getPort(port.id)).device_id === port.device_id;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
};

const untilLetGo = async (teardown: NetworkTeardownClient, ports: readonly Port[], wait: InterfaceDetachWait): Promise<void> => {
  const deadline = Date.now() + wait.timeoutMs;
  let waiting = ports;
  while (waiting.length > 0) {
    const still: Port[] = [];
    for (const port of waiting) if (await stillAttached(teardown, port)) still.push(port);
    waiting = still;
    if (waiting.length === 0) return;
    if (Date.now() > deadline) {
      const ids = waiting.map((port) => `${port.id} (server ${port.device_id})`).join(', ');
      throw new EffectNotFinishedError(`Ports still attached after ${wait.timeoutMs} ms: ${ids}`);
    }
    await sleep(wait.pollMs);
  }
};

/** Upstream removes a router's interfaces by subnet: each subnet of this network the port has an address on. */
const removeRouterInterfaces = async (teardown: NetworkTeardownClient, port: Port): Promise<EffectRecord[]> => {
  const records: EffectRecord[] = [];
  for (const subnetId of new Set(port.fixed_ips.map((ip) => ip.subnet_id))) {
    const removed = await ignoreNotFound(teardown.removeRouterInterface(port.device_id, subnetId));
    records.push(
      done({ operation: 'network.router_interface.remove', router_id: port.device_id, subnet_id: subnetId, port_id: port.id }, removed),
    );
  }
  return records;
};

/** A delete Neutron refuses while something still uses the object: the next attempt clears what appeared meanwhile. */
const unlessInUse = async (call: Promise<unknown>, what: string): Promise<boolean> => {
  try {
    return await ignoreNotFound(call);
  } catch (error) {
    if (error instanceof OpenStackConflictError) throw new EffectNotFinishedError(`${what} is still in use: ${error.cloudMessage}`);
    throw error;
  }
};
