import { ServiceUnavailableException } from '@nestjs/common';
import { type Capabilities, type HostInfo, notFound } from '../../../../libs/domain/src/index.js';
import type { CloudConfig } from '../../../../libs/plugins/src/cloud-config.js';
import { type Hypervisor, NovaClient, OpenStackError, OpenStackSession } from '../../../../libs/plugins/src/openstack/index.js';
import { parseNamedHost, parseRegisterHost } from '../hosts/host-request.parser.js';

export interface HostDescription {
  readonly info: HostInfo;
  readonly capabilities: Capabilities;
}

/** Where a new host's facts come from: the request body (standalone) or the cloud's compute service. */
export interface HostInventory {
  /** The facts and extra capabilities of the host a POST /v1/os-hosts body names; throws DomainError to refuse. */
  describe(body: unknown): Promise<HostDescription>;
}

export const HOST_INVENTORY = Symbol('HOST_INVENTORY');
export const CLOUD_CONFIG = Symbol('CLOUD_CONFIG');
export const OPENSTACK_SESSION = Symbol('OPENSTACK_SESSION');

/** Standalone mode: nobody to ask, so the body says what Nova would. */
export class StandaloneHostInventory implements HostInventory {
  describe(body: unknown): Promise<HostDescription> {
    return Promise.resolve(parseRegisterHost(body));
  }
}

/** A cloud failure that is not the caller's fault (503): the caller may retry, nothing was done. */
export const cloudUnavailable = (service: string, error: OpenStackError): ServiceUnavailableException =>
  new ServiceUnavailableException(`${service} is unavailable, nothing was changed; try again later (${error.message})`);

const cpuInfoText = (cpuInfo: Hypervisor['cpu_info']): string => (typeof cpuInfo === 'string' ? cpuInfo : JSON.stringify(cpuInfo));

/** OpenStack mode: the hypervisor of that name in Nova (compute microversion 2.87 still reports its totals). */
export class NovaHostInventory implements HostInventory {
  constructor(private readonly nova: NovaClient) {}

  async describe(body: unknown): Promise<HostDescription> {
    const { name, capabilities } = parseNamedHost(body);
    try {
      const hypervisor = await this.nova.findHypervisor(name);
      if (hypervisor === null) throw notFound('HOST_NOT_FOUND', `Host ${name} not found in Nova`);
      return { info: { ...this.facts(hypervisor), availabilityZone: await this.zoneOf(hypervisor.service.host) }, capabilities };
    } catch (error) {
      if (error instanceof OpenStackError) throw cloudUnavailable('Nova', error);
      throw error;
    }
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

  /** The zone whose hosts include this nova-compute, as upstream's az_aware lookup ('' when none). */
  private async zoneOf(serviceHost: string): Promise<string> {
    const zones = await this.nova.listAvailabilityZones();
    const zone = zones.find((z) => z.hosts?.[serviceHost]?.['nova-compute'] !== undefined);
    return zone?.zoneName ?? '';
  }
}

/** One session (one token) for every OpenStack-backed port of the API; null in standalone mode. */
export const openStackSessionFor = (cloud: CloudConfig): OpenStackSession | null =>
  cloud.kind === 'openstack' ? OpenStackSession.create(cloud.openstack.credentials, { interface: cloud.openstack.interface }) : null;

export const hostInventoryFor = (session: OpenStackSession | null): HostInventory =>
  session === null ? new StandaloneHostInventory() : new NovaHostInventory(new NovaClient(session));
