import { isNotFound } from './openstack.errors.js';
import type { OpenStackSession, RequestOptions } from './openstack.session.js';

/**
 * The compute microversion every call uses. 2.87 is the newest that still reports a hypervisor's vcpus,
 * memory_mb, local_gb and cpu_info (2.88 dropped them for Placement); it has uuid ids for hypervisors and
 * services (2.53), `image_id` in the createImage answer (2.45), single-policy server groups (2.64) and
 * flavor descriptions and extra specs inline (2.55, 2.61). Zed's nova-api goes up to 2.93.
 */
export const NOVA_MICROVERSION = '2.87';

export interface Hypervisor {
  readonly id: string;
  readonly hypervisor_hostname: string;
  readonly hypervisor_type: string;
  readonly hypervisor_version: number;
  readonly host_ip: string;
  readonly state: 'up' | 'down';
  readonly status: 'enabled' | 'disabled';
  readonly vcpus: number;
  readonly vcpus_used: number;
  readonly memory_mb: number;
  readonly memory_mb_used: number;
  readonly local_gb: number;
  readonly local_gb_used: number;
  readonly running_vms: number;
  readonly cpu_info: Readonly<Record<string, unknown>> | string;
  /** The nova-compute service: `host` is the name aggregates and servers' OS-EXT-SRV-ATTR:host use. */
  readonly service: { readonly host: string; readonly id: string; readonly disabled_reason: string | null };
  /** Only with `withServers`. */
  readonly servers?: readonly { readonly uuid: string; readonly name: string }[];
}

export interface AvailabilityZone {
  readonly zoneName: string;
  readonly zoneState: { readonly available: boolean };
  /** host -> service binary -> state; null for zones without hosts. */
  readonly hosts: Readonly<Record<string, Readonly<Record<string, { readonly available: boolean; readonly active: boolean }>>>> | null;
}

/** The zone whose hosts include this nova-compute service host, as upstream's az_aware lookup ('' when none). */
export const zoneOfComputeHost = (zones: readonly AvailabilityZone[], serviceHost: string): string =>
  zones.find((zone) => zone.hosts?.[serviceHost]?.['nova-compute'] !== undefined)?.zoneName ?? '';

export interface Aggregate {
  readonly id: number;
  readonly uuid: string;
  readonly name: string;
  readonly availability_zone: string | null;
  readonly hosts: readonly string[];
  readonly metadata: Readonly<Record<string, string>>;
}

export interface Flavor {
  readonly id: string;
  readonly name: string;
  readonly vcpus: number;
  readonly ram: number;
  readonly disk: number;
  readonly swap: number;
  readonly 'OS-FLV-EXT-DATA:ephemeral': number;
  readonly 'os-flavor-access:is_public': boolean;
  readonly description: string | null;
  readonly extra_specs: Readonly<Record<string, string>>;
}

export interface FlavorSpec {
  readonly name: string;
  /** Nova generates a uuid when absent. */
  readonly id?: string;
  readonly vcpus: number;
  readonly ram: number;
  readonly disk: number;
  readonly ephemeral?: number;
  readonly isPublic: boolean;
  readonly description?: string;
}

export type ServerGroupPolicy = 'affinity' | 'anti-affinity' | 'soft-affinity' | 'soft-anti-affinity';

export interface ServerGroup {
  readonly id: string;
  readonly name: string;
  readonly policy: ServerGroupPolicy;
  readonly members: readonly string[];
  readonly project_id: string;
  readonly user_id: string;
}

export interface Server {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly tenant_id: string;
  readonly user_id: string;
  readonly 'OS-EXT-SRV-ATTR:host': string | null;
  readonly 'OS-EXT-SRV-ATTR:hypervisor_hostname': string | null;
  readonly 'OS-EXT-STS:task_state': string | null;
  readonly flavor: {
    readonly original_name: string;
    readonly vcpus: number;
    readonly ram: number;
    readonly disk: number;
    readonly extra_specs?: Readonly<Record<string, string>>;
  };
  readonly fault?: { readonly code: number; readonly message: string };
  /** Free text (microversion 2.19+); kept on deleted servers. */
  readonly description?: string | null;
}

export interface ServerSpec {
  readonly name: string;
  readonly imageRef: string;
  readonly flavorRef: string;
  /** 'none' boots without a port; otherwise the networks to attach. */
  readonly networks: 'none' | 'auto' | readonly { readonly uuid: string }[];
  /** `nova:<host>` forces a host (admin only). */
  readonly availabilityZone?: string;
  readonly schedulerHints?: Readonly<Record<string, string>>;
}

export interface ServerFilter {
  /** The compute service host (admin only). */
  readonly host?: string;
  /** The flavor id. */
  readonly flavor?: string;
  readonly name?: string;
  /** Every project's servers (admin); default true. */
  readonly allTenants?: boolean;
  /** Deleted servers only (admin), changed since this ISO 8601 time (Nova keeps them until its archive job runs). */
  readonly deletedSince?: string;
}

export interface ComputeService {
  readonly id: string;
  readonly binary: string;
  readonly host: string;
  readonly zone: string;
  readonly status: 'enabled' | 'disabled';
  readonly state: 'up' | 'down';
  readonly updated_at: string | null;
  readonly disabled_reason: string | null;
  readonly forced_down: boolean;
}

export interface ServiceUpdate {
  readonly status?: 'enabled' | 'disabled';
  readonly disabled_reason?: string;
  readonly forced_down?: boolean;
}

/** Nova's compute API v2.1 (admin calls need an admin token). */
export class NovaClient {
  constructor(
    private readonly session: OpenStackSession,
    private readonly microversion: string = NOVA_MICROVERSION,
  ) {}

  withRequestId(globalRequestId: string): NovaClient {
    return new NovaClient(this.session.withRequestId(globalRequestId), this.microversion);
  }

  private async call<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.session.request<T>('compute', method, path, { microversion: this.microversion, ...options })).body;
  }

  // hypervisors and zones

  /** Every hypervisor, or those whose name contains `hostnamePattern` (none: an empty list). */
  async listHypervisors(
    options: { readonly hostnamePattern?: string; readonly withServers?: boolean } = {},
  ): Promise<readonly Hypervisor[]> {
    const query = { hypervisor_hostname_pattern: options.hostnamePattern, with_servers: options.withServers === true ? 'true' : undefined };
    try {
      return (await this.call<{ hypervisors: Hypervisor[] }>('GET', '/os-hypervisors/detail', { query })).hypervisors;
    } catch (error) {
      // a pattern that matches nothing is a 404 here
      if (options.hostnamePattern !== undefined && isNotFound(error)) return [];
      throw error;
    }
  }

  async getHypervisor(id: string, options: { readonly withServers?: boolean } = {}): Promise<Hypervisor> {
    const query = { with_servers: options.withServers === true ? 'true' : undefined };
    return (await this.call<{ hypervisor: Hypervisor }>('GET', `/os-hypervisors/${encodeURIComponent(id)}`, { query })).hypervisor;
  }

  /** The hypervisor with exactly this hostname, or null. */
  async findHypervisor(hostname: string): Promise<Hypervisor | null> {
    return (await this.listHypervisors({ hostnamePattern: hostname })).find((h) => h.hypervisor_hostname === hostname) ?? null;
  }

  async listAvailabilityZones(): Promise<readonly AvailabilityZone[]> {
    return (await this.call<{ availabilityZoneInfo: AvailabilityZone[] }>('GET', '/os-availability-zone/detail')).availabilityZoneInfo;
  }

  // aggregates

  async listAggregates(): Promise<readonly Aggregate[]> {
    return (await this.call<{ aggregates: Aggregate[] }>('GET', '/os-aggregates')).aggregates;
  }

  async findAggregate(name: string): Promise<Aggregate | null> {
    return (await this.listAggregates()).find((a) => a.name === name) ?? null;
  }

  async getAggregate(id: number): Promise<Aggregate> {
    return (await this.call<{ aggregate: Aggregate }>('GET', `/os-aggregates/${id}`)).aggregate;
  }

  /** 409 when an aggregate of that name exists. */
  async createAggregate(name: string, availabilityZone: string | null = null): Promise<Aggregate> {
    const aggregate = availabilityZone === null ? { name } : { name, availability_zone: availabilityZone };
    const created = (await this.call<{ aggregate: { id: number } }>('POST', '/os-aggregates', { body: { aggregate } })).aggregate;
    // the POST answer has neither hosts nor metadata
    return this.getAggregate(created.id);
  }

  async updateAggregate(id: number, changes: { readonly name?: string; readonly availability_zone?: string | null }): Promise<Aggregate> {
    return (await this.call<{ aggregate: Aggregate }>('PUT', `/os-aggregates/${id}`, { body: { aggregate: changes } })).aggregate;
  }

  /** 400 while the aggregate still has hosts. */
  async deleteAggregate(id: number): Promise<void> {
    await this.call('DELETE', `/os-aggregates/${id}`);
  }

  /** 409 when the host is already a member; 404 for an unknown host. */
  async addAggregateHost(id: number, host: string): Promise<Aggregate> {
    return this.aggregateAction(id, { add_host: { host } });
  }

  /** 404 when the host is not a member. */
  async removeAggregateHost(id: number, host: string): Promise<Aggregate> {
    return this.aggregateAction(id, { remove_host: { host } });
  }

  /** Sets the given keys; a null value removes the key. */
  async setAggregateMetadata(id: number, metadata: Readonly<Record<string, string | null>>): Promise<Aggregate> {
    return this.aggregateAction(id, { set_metadata: { metadata } });
  }

  private async aggregateAction(id: number, action: Record<string, unknown>): Promise<Aggregate> {
    return (await this.call<{ aggregate: Aggregate }>('POST', `/os-aggregates/${id}/action`, { body: action })).aggregate;
  }

  // flavors

  /** Public and private flavors (admin sees all with isPublic null, the default). */
  async listFlavors(options: { readonly isPublic?: boolean | null } = {}): Promise<readonly Flavor[]> {
    const isPublic = options.isPublic === undefined || options.isPublic === null ? 'None' : String(options.isPublic);
    return (await this.call<{ flavors: Flavor[] }>('GET', '/flavors/detail', { query: { is_public: isPublic } })).flavors;
  }

  async getFlavor(id: string): Promise<Flavor> {
    return (await this.call<{ flavor: Flavor }>('GET', `/flavors/${encodeURIComponent(id)}`)).flavor;
  }

  /** 409 when the id or name is taken. */
  async createFlavor(spec: FlavorSpec): Promise<Flavor> {
    const flavor = {
      name: spec.name,
      ...(spec.id === undefined ? {} : { id: spec.id }),
      vcpus: spec.vcpus,
      ram: spec.ram,
      disk: spec.disk,
      'OS-FLV-EXT-DATA:ephemeral': spec.ephemeral ?? 0,
      'os-flavor-access:is_public': spec.isPublic,
      ...(spec.description === undefined ? {} : { description: spec.description }),
    };
    return (await this.call<{ flavor: Flavor }>('POST', '/flavors', { body: { flavor } })).flavor;
  }

  async deleteFlavor(id: string): Promise<void> {
    await this.call('DELETE', `/flavors/${encodeURIComponent(id)}`);
  }

  async getFlavorExtraSpecs(id: string): Promise<Readonly<Record<string, string>>> {
    return (await this.call<{ extra_specs: Record<string, string> }>('GET', `/flavors/${encodeURIComponent(id)}/os-extra_specs`))
      .extra_specs;
  }

  /** Adds or overwrites these keys; other keys stay. */
  async setFlavorExtraSpecs(id: string, specs: Readonly<Record<string, string>>): Promise<Readonly<Record<string, string>>> {
    const path = `/flavors/${encodeURIComponent(id)}/os-extra_specs`;
    return (await this.call<{ extra_specs: Record<string, string> }>('POST', path, { body: { extra_specs: specs } })).extra_specs;
  }

  async deleteFlavorExtraSpec(id: string, key: string): Promise<void> {
    await this.call('DELETE', `/flavors/${encodeURIComponent(id)}/os-extra_specs/${encodeURIComponent(key)}`);
  }

  /** The projects that may use a private flavor (400 for a public one). */
  async listFlavorAccess(id: string): Promise<readonly string[]> {
    const body = await this.call<{ flavor_access: { tenant_id: string }[] }>('GET', `/flavors/${encodeURIComponent(id)}/os-flavor-access`);
    return body.flavor_access.map((a) => a.tenant_id);
  }

  /** 409 when the project already has access. */
  async addFlavorAccess(id: string, projectId: string): Promise<readonly string[]> {
    return this.flavorAction(id, { addTenantAccess: { tenant: projectId } });
  }

  /** 404 when the project has no access. */
  async removeFlavorAccess(id: string, projectId: string): Promise<readonly string[]> {
    return this.flavorAction(id, { removeTenantAccess: { tenant: projectId } });
  }

  private async flavorAction(id: string, action: Record<string, unknown>): Promise<readonly string[]> {
    const body = await this.call<{ flavor_access: { tenant_id: string }[] }>('POST', `/flavors/${encodeURIComponent(id)}/action`, {
      body: action,
    });
    return body.flavor_access.map((a) => a.tenant_id);
  }

  // server groups (created in the token's project)

  async createServerGroup(name: string, policy: ServerGroupPolicy): Promise<ServerGroup> {
    return (await this.call<{ server_group: ServerGroup }>('POST', '/os-server-groups', { body: { server_group: { name, policy } } }))
      .server_group;
  }

  async getServerGroup(id: string): Promise<ServerGroup> {
    return (await this.call<{ server_group: ServerGroup }>('GET', `/os-server-groups/${encodeURIComponent(id)}`)).server_group;
  }

  async listServerGroups(options: { readonly allProjects?: boolean } = {}): Promise<readonly ServerGroup[]> {
    const query = { all_projects: options.allProjects === true ? 'True' : undefined };
    return (await this.call<{ server_groups: ServerGroup[] }>('GET', '/os-server-groups', { query })).server_groups;
  }

  async deleteServerGroup(id: string): Promise<void> {
    await this.call('DELETE', `/os-server-groups/${encodeURIComponent(id)}`);
  }

  // servers

  async listServers(filter: ServerFilter = {}): Promise<readonly Server[]> {
    const deleted = filter.deletedSince === undefined ? {} : { deleted: 'True', 'changes-since': filter.deletedSince };
    const query = {
      all_tenants: filter.allTenants === false ? undefined : 'True',
      host: filter.host,
      flavor: filter.flavor,
      name: filter.name,
      ...deleted,
    };
    return (await this.call<{ servers: Server[] }>('GET', '/servers/detail', { query })).servers;
  }

  async getServer(id: string): Promise<Server> {
    return (await this.call<{ server: Server }>('GET', `/servers/${encodeURIComponent(id)}`)).server;
  }

  /** Accepted (202): the server is BUILD; poll getServer for ACTIVE or ERROR. */
  async createServer(spec: ServerSpec): Promise<{ readonly id: string }> {
    const server = {
      name: spec.name,
      imageRef: spec.imageRef,
      flavorRef: spec.flavorRef,
      networks: spec.networks,
      ...(spec.availabilityZone === undefined ? {} : { availability_zone: spec.availabilityZone }),
    };
    const body = { server, ...(spec.schedulerHints === undefined ? {} : { 'os:scheduler_hints': spec.schedulerHints }) };
    return (await this.call<{ server: { id: string } }>('POST', '/servers', { body })).server;
  }

  /** Accepted (204): the server goes away asynchronously; getServer answers 404 once it is gone. */
  async deleteServer(id: string): Promise<void> {
    await this.call('DELETE', `/servers/${encodeURIComponent(id)}`);
  }

  async setServerDescription(id: string, description: string): Promise<void> {
    await this.call('PUT', `/servers/${encodeURIComponent(id)}`, { body: { server: { description } } });
  }

  /** Accepted (202): a clean shutdown (Nova's os-stop), SHUTOFF once done; 409 when the server is stopped already. */
  async stopServer(id: string): Promise<void> {
    await this.call('POST', `/servers/${encodeURIComponent(id)}/action`, { body: { 'os-stop': null } });
  }

  /** Snapshots the server into a new Glance image; returns the image id (the upload continues asynchronously). */
  async createServerImage(id: string, name: string, metadata: Readonly<Record<string, string>> = {}): Promise<string> {
    const body = { createImage: { name, metadata } };
    return (await this.call<{ image_id: string }>('POST', `/servers/${encodeURIComponent(id)}/action`, { body })).image_id;
  }

  // compute services

  async listServices(filter: { readonly binary?: string; readonly host?: string } = {}): Promise<readonly ComputeService[]> {
    return (await this.call<{ services: ComputeService[] }>('GET', '/os-services', { query: { binary: filter.binary, host: filter.host } }))
      .services;
  }

  /** Enable/disable (with a reason) or force down a service, by its uuid. Only nova-compute services can be updated. */
  async updateService(id: string, update: ServiceUpdate): Promise<ComputeService> {
    return (await this.call<{ service: ComputeService }>('PUT', `/os-services/${encodeURIComponent(id)}`, { body: update })).service;
  }
}
