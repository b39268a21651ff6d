import { type HostInfo, hostHavingServers, invalid, notFound } from '#domain/index.js';
import type { HostDescription, HostInventory, HostToRegister } from '../ports/host-inventory.port.js';
import { cloudUnavailable } from './cloud-unavailable.js';
import { type Hypervisor, type NovaClient, zoneOfComputeHost } from './nova.client.js';
import { OpenStackError } from './openstack.errors.js';

const cpuInfoText = (cpuInfo: Hypervisor['cpu_info']): string => (typeof cpuInfo === 'string' ? cpuInfo : JSON.stringify(cpuInfo));

/**
 * OpenStack mode: the hypervisor of that name in Nova (compute microversion 2.87 still reports its totals).
 * A host with servers is refused both ways, as upstream: servers outside Blazar's control would share
 * a host it hands out whole, and would be deleted with a reservation's at its end.
 */
export class NovaHostInventory implements HostInventory {
  constructor(private readonly nova: NovaClient) {}

  async describe(host: HostToRegister): Promise<HostDescription> {
    if (host.source !== 'cloud')
      throw invalid('HOST_FIELDS_FROM_NOVA', "A host's fields come from Nova: name the host and its extra capabilities only");
    const { name, capabilities } = host;
    return this.askingNova(async () => {
      const hypervisor = await this.hypervisorWithServers(name);
      if (hypervisor === null) throw notFound('HOST_NOT_FOUND', `Host ${name} not found in Nova`);
      this.refuseServers(name, hypervisor);
      return { info: { ...this.facts(hypervisor), availabilityZone: await this.zoneOf(hypervisor.service.host) }, capabilities };
    });
  }

  /** A hypervisor Nova no longer knows has no servers to protect. */
  checkRemovable(info: HostInfo): Promise<void> {
    return this.askingNova(async () => {
      const hypervisor = await this.hypervisorWithServers(info.hypervisorHostname);
      if (hypervisor !== null) this.refuseServers(info.hypervisorHostname, hypervisor);
    });
  }

  /** Hosts running nova-compute in the zone, as `os-availability-zone/detail` lists them (where registration reads a host's zone). */
  computeHostsIn(zone: string): Promise<number> {
    return this.askingNova(async () => {
      const hosts = (await this.nova.listAvailabilityZones()).find((z) => z.zoneName === zone)?.hosts ?? {};
      return Object.values(hosts).filter((services) => services['nova-compute'] !== undefined).length;
    });
  }

  private async askingNova<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof OpenStackError) throw cloudUnavailable('Nova', error.message);
      throw error;
    }
  }

  private async hypervisorWithServers(hostname: string): Promise<Hypervisor | null> {
    const found = await this.nova.listHypervisors({ hostnamePattern: hostname, withServers: true });
    return found.find((h) => h.hypervisor_hostname === hostname) ?? null;
  }

  private refuseServers(name: string, hypervisor: Hypervisor): void {
    const servers = hypervisor.servers ?? [];
    if (servers.length > 0)
      throw hostHavingServers(
        name,
        servers.map((server) => server.uuid),
      );
  }

  private facts(hypervisor: Hypervisor): Omit<HostInfo, 'availabilityZone'> {
    return {
      hypervisorHostname: hypervisor.hypervisor_hostname,
      serviceName: hypervisor.service.host,
      vcpus: hypervisor.vcpus,
      memoryMb: hypervisor.memory_mb,
      localGb: hypervisor.local_gb,
      cpuInfo: cpuInfoText(hypervisor.cpu_info),
      hypervisorType: hypervisor.hypervisor_type,
      hypervisorVersion: hypervisor.hypervisor_version,
    };
  }

  private async zoneOf(serviceHost: string): Promise<string> {
    return zoneOfComputeHost(await this.nova.listAvailabilityZones(), serviceHost);
  }
}
