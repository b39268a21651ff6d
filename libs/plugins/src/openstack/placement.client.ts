import { OpenStackConflictError, isNotFound } from './openstack.errors.js';
import type { OpenStackSession, RequestOptions } from './openstack.session.js';

/** Zed's Placement maximum: parent providers (1.14), POST answers with the provider (1.20), PUT /resource_classes/{name} (1.7). */
export const PLACEMENT_MICROVERSION = '1.39';

export interface ResourceProvider {
  readonly uuid: string;
  readonly name: string;
  readonly generation: number;
  readonly parent_provider_uuid: string | null;
  readonly root_provider_uuid: string;
}

export interface Inventory {
  readonly total: number;
  readonly reserved: number;
  readonly min_unit: number;
  readonly max_unit: number;
  readonly step_size: number;
  readonly allocation_ratio: number;
}

/** Defaults Placement applies to the fields left out, as Blazar sends them for a reservation class. */
export const inventoryOf = (total: number, fields: Partial<Inventory> = {}): Inventory => ({
  total,
  reserved: 0,
  min_unit: 1,
  max_unit: total,
  step_size: 1,
  allocation_ratio: 1,
  ...fields,
});

export type Inventories = Readonly<Record<string, Inventory>>;

export interface ProviderInventories {
  /** The provider's generation: a write must name it and fails with 409 placement.concurrent_update if it moved on. */
  readonly generation: number;
  readonly inventories: Inventories;
}

export interface ProviderTraits {
  readonly generation: number;
  readonly traits: readonly string[];
}

export interface ProviderFilter {
  readonly name?: string;
  /** Providers in the tree of this provider uuid. */
  readonly inTree?: string;
  /** Trait names; `!NAME` forbids one. */
  readonly required?: readonly string[];
}

export interface PlacementClientOptions {
  readonly microversion?: string;
  /** Attempts of a read-modify-write against a provider whose generation keeps moving (default 5). */
  readonly maxAttempts?: number;
}

/** Placement's API: resource providers, custom resource classes and traits, and inventories with generation checks. */
export class PlacementClient {
  private readonly microversion: string;
  private readonly maxAttempts: number;

  constructor(
    private readonly session: OpenStackSession,
    private readonly options: PlacementClientOptions = {},
  ) {
    this.microversion = options.microversion ?? PLACEMENT_MICROVERSION;
    this.maxAttempts = options.maxAttempts ?? 5;
  }

  withRequestId(globalRequestId: string): PlacementClient {
    return new PlacementClient(this.session.withRequestId(globalRequestId), this.options);
  }

  private async call<T>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<{ readonly status: number; readonly body: T }> {
    return this.session.request<T>('placement', method, path, { microversion: this.microversion, ...options });
  }

  /** Runs a read-modify-write again while Placement answers 409 placement.concurrent_update. */
  private async retryOnGenerationConflict<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof OpenStackConflictError && error.isGenerationConflict) || n >= this.maxAttempts) throw error;
      }
    }
  }

  // resource providers

  async listResourceProviders(filter: ProviderFilter = {}): Promise<readonly ResourceProvider[]> {
    const query = { name: filter.name, in_tree: filter.inTree, required: filter.required?.join(',') };
    return (await this.call<{ resource_providers: ResourceProvider[] }>('GET', '/resource_providers', { query })).body.resource_providers;
  }

  /** The provider of that name (a compute node's is its hypervisor hostname), or null. */
  async findResourceProvider(name: string): Promise<ResourceProvider | null> {
    return (await this.listResourceProviders({ name }))[0] ?? null;
  }

  async getResourceProvider(uuid: string): Promise<ResourceProvider> {
    return (await this.call<ResourceProvider>('GET', `/resource_providers/${uuid}`)).body;
  }

  /** 409 when the name is taken. */
  async createResourceProvider(name: string, parentProviderUuid: string | null = null): Promise<ResourceProvider> {
    const body = parentProviderUuid === null ? { name } : { name, parent_provider_uuid: parentProviderUuid };
    return (await this.call<ResourceProvider>('POST', '/resource_providers', { body })).body;
  }

  /** 409 while it has allocations or children. */
  async deleteResourceProvider(uuid: string): Promise<void> {
    await this.call('DELETE', `/resource_providers/${uuid}`);
  }

  /** The placement aggregates (Nova mirrors host aggregate membership here). */
  async getProviderAggregates(uuid: string): Promise<{ readonly generation: number; readonly aggregates: readonly string[] }> {
    const { body } = await this.call<{ resource_provider_generation: number; aggregates: string[] }>(
      'GET',
      `/resource_providers/${uuid}/aggregates`,
    );
    return { generation: body.resource_provider_generation, aggregates: body.aggregates };
  }

  async getProviderUsages(uuid: string): Promise<Readonly<Record<string, number>>> {
    return (await this.call<{ usages: Record<string, number> }>('GET', `/resource_providers/${uuid}/usages`)).body.usages;
  }

  // resource classes and traits (custom names: CUSTOM_[A-Z0-9_]+)

  /** Creates the class if needed; true when it was created now. */
  async ensureResourceClass(name: string): Promise<boolean> {
    return (await this.call('PUT', `/resource_classes/${encodeURIComponent(name)}`)).status === 201;
  }

  async resourceClassExists(name: string): Promise<boolean> {
    try {
      await this.call('GET', `/resource_classes/${encodeURIComponent(name)}`);
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** 409 while an inventory uses it; 404 when it does not exist. */
  async deleteResourceClass(name: string): Promise<void> {
    await this.call('DELETE', `/resource_classes/${encodeURIComponent(name)}`);
  }

  /** Creates the trait if needed; true when it was created now. */
  async ensureTrait(name: string): Promise<boolean> {
    return (await this.call('PUT', `/traits/${encodeURIComponent(name)}`)).status === 201;
  }

  /** 409 while a provider has it. */
  async deleteTrait(name: string): Promise<void> {
    await this.call('DELETE', `/traits/${encodeURIComponent(name)}`);
  }

  async getProviderTraits(uuid: string): Promise<ProviderTraits> {
    const { body } = await this.call<{ resource_provider_generation: number; traits: string[] }>(
      'GET',
      `/resource_providers/${uuid}/traits`,
    );
    return { generation: body.resource_provider_generation, traits: body.traits };
  }

  /** Replaces the provider's traits if its generation is still `generation` (else 409 placement.concurrent_update). */
  async putProviderTraits(uuid: string, generation: number, traits: readonly string[]): Promise<ProviderTraits> {
    const body = { resource_provider_generation: generation, traits };
    const reply = await this.call<{ resource_provider_generation: number; traits: string[] }>('PUT', `/resource_providers/${uuid}/traits`, {
      body,
    });
    return { generation: reply.body.resource_provider_generation, traits: reply.body.traits };
  }

  /** Read-modify-write of the provider's traits, repeated on generation conflicts. */
  async updateProviderTraits(
    uuid: string,
    change: (traits: readonly string[]) => readonly string[] | Promise<readonly string[]>,
  ): Promise<ProviderTraits> {
    return this.retryOnGenerationConflict(async () => {
      const current = await this.getProviderTraits(uuid);
      return this.putProviderTraits(uuid, current.generation, await change(current.traits));
    });
  }

  // inventories

  async getInventories(uuid: string): Promise<ProviderInventories> {
    const { body } = await this.call<{ resource_provider_generation: number; inventories: Record<string, Inventory> }>(
      'GET',
      `/resource_providers/${uuid}/inventories`,
    );
    return { generation: body.resource_provider_generation, inventories: body.inventories };
  }

  /** Replaces all of the provider's inventories if its generation is still `generation` (else 409 placement.concurrent_update). */
  async putInventories(uuid: string, generation: number, inventories: Inventories): Promise<ProviderInventories> {
    const body = { resource_provider_generation: generation, inventories };
    const reply = await this.call<{ resource_provider_generation: number; inventories: Record<string, Inventory> }>(
      'PUT',
      `/resource_providers/${uuid}/inventories`,
      { body },
    );
    return { generation: reply.body.resource_provider_generation, inventories: reply.body.inventories };
  }

  /**
   * Read-modify-write of the provider's inventories: `change` gets the current ones and returns the
   * wanted ones; repeated (with a fresh read) while another writer moves the generation on.
   */
  async updateInventories(
    uuid: string,
    change: (current: Inventories) => Inventories | Promise<Inventories>,
  ): Promise<ProviderInventories> {
    return this.retryOnGenerationConflict(async () => {
      const current = await this.getInventories(uuid);
      return this.putInventories(uuid, current.generation, await change(current.inventories));
    });
  }

  /** Sets one class's inventory, keeping the others. */
  async setInventory(uuid: string, resourceClass: string, inventory: Inventory): Promise<ProviderInventories> {
    return this.updateInventories(uuid, (current) => ({ ...current, [resourceClass]: inventory }));
  }

  /** 404 when the provider has no inventory of that class; 409 placement.inventory.inuse while allocations use it. */
  async deleteInventory(uuid: string, resourceClass: string): Promise<void> {
    await this.retryOnGenerationConflict(() =>
      this.call('DELETE', `/resource_providers/${uuid}/inventories/${encodeURIComponent(resourceClass)}`),
    );
  }
}
