import { ServiceUnavailableException } from '@nestjs/common';
import { type Capabilities, type DomainError, type HostInfo, conflict, notFound } from '../../../../libs/domain/src/index.js';
import type { CloudConfig } from '../../../../libs/plugins/src/cloud-config.js';
import { type Hypervisor, NovaClient, OpenStackError, OpenStackSession, zoneOfComputeHost } from '../../../../libs/plugins/src/openstack/index.js';
import { parseNamedHost, parseRegisterHost } from '../hosts/host-request.parser.js';

export interface HostDescription {
  readonly info: HostInfo;
  readonly capabilities: Capabilities;
}

/** Where a new host's facts come from: the request body (standalone) or the cloud's compute service. */
export interface HostInventory {
  /** The facts and extra capabilities of the host a POST /v1/os-hosts body names; throws DomainError to refuse. */
  describe(body: unknown): Promise<HostDescription>;
  /** Throws DomainError when the host may not leave: upstream refuses to delete a host that has servers. */
  checkRemovable(info: HostInfo): Promise<void>;
}

export const HOST_INVENTORY = Symbol('HOST_INVENTORY');
export const CLOUD_CONFIG = Symbol('CLOUD_CONFIG');
export const OPENSTACK_SESSION = Symbol('OPENSTACK_SESSION');

/** Standalone mode: nobody to ask, so the body says what Nova would. */
export class StandaloneHostInventory implements HostInventory {
  describe(body: unknown): Promise<HostDescription> {
    return Promise.resolve(parseRegisterHost(body));
  }

  /** The simulated cloud runs no servers outside reservations. */
  checkRemovable(): Promise<void> {
    return Promise.resolve();
  }
}

/** Upstream's HostHavingServers (409), named after the host as the request named it. */
export const hostHavingServers = (host: string, serverIds: readonly string[]): DomainError =>
  conflict('HOST_HAVING_SERVERS', `Servers [${serverIds.join(', ')}] found for host ${host}`);

/** A cloud failure that is not the caller's fault (503): the caller may retry, nothing was done. */
export const cloudUnavailable = (service: string, error: OpenStackError): ServiceUnavailableException =>
  new ServiceUnavailableException(`${service} is unavailable, nothing was changed; try again later (${error.message})`);

const cpuInfoText = (cpuInfo: Hypervisor['cpu_info']): string => (typeof cpuInfo === 'string' ? cpuInfo : JSON.stringify(cpuInfo));

/**
 * OpenStack mode: the hypervisor of that name in Nova (compute microversion 2.87 still reports its totals).
 * A host with servers is refused both ways, as upstream: servers outside Blazar's control would share
 * a host it hands out whole, and would be deleted with a reservation's at its end.
 */
export class NovaHostInventory implements HostInventory {
  constructor(private readonly nova: NovaClient) {}

  async describe(body: unknown): Promise<HostDescription> {
    const { name, capabilities } = parseNamedHost(body);
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

  private async askingNova<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof OpenStackError) throw cloudUnavailable('Nova', error);
      throw error;
    }
  }

  private async hypervisorWithServers(hostname: string): Promise<Hypervisor | null> {
    const found = await this.nova.listHypervisors({ hostnamePattern: hostname, withServers: true });
    return found.find((h) => h.hypervisor_hostname === hostname) ?? null;
  }

  private refuseServers(name: string, hypervisor: Hypervisor): void {
    const servers = hypervisor.servers ?? [];
    if (servers.length > 0) throw hostHavingServers(name, servers.map((server) => server.uuid));
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

/** One session (one token) for every OpenStack-backed port of the API; null in standalone mode. */
export const openStackSessionFor = (cloud: CloudConfig): OpenStackSession | null =>
  cloud.kind === 'openstack' ? OpenStackSession.create(cloud.openstack.credentials, { interface: cloud.openstack.interface }) : null;

export const hostInventoryFor = (session: OpenStackSession | null): HostInventory =>
  session === null ? new StandaloneHostInventory() : new NovaHostInventory(new NovaClient(session));
