/** Placement through PlacementClient against the real control plane: providers, classes, traits, inventories and generation conflicts. */
import { afterAll, describe, expect, it } from 'vitest';
import { OpenStackConflictError, OpenStackNotFoundError, PlacementClient, ignoreNotFound, inventoryOf } from '#plugins/openstack/index.js';
import { OPENSTACK_ENV_FILE, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

const customName = (prefix: string): string => `CUSTOM_${uniqueName(prefix).toUpperCase().replace(/-/g, '_')}`;

describe.skipIf(!OPENSTACK_ENV_FILE)('PlacementClient (real Placement)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const placement = OPENSTACK_ENV_FILE ? new PlacementClient(sessionFor(env.admin)) : (undefined as never);
  const host = env?.computeHosts[1] ?? '';
  const cleanups: (() => Promise<unknown>)[] = [];

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  /**
   * A Blazar-style child provider under a root provider of this test's own, both deleted afterwards. Not
   * under a compute node's provider: nova-compute caches its tree, and a child deleted behind its back
   * breaks builds on that compute until it restarts (docs/openstack.md).
   */
  const childProvider = async () => {
    const root = await placement.createResourceProvider(uniqueName('lh-test-root'));
    cleanups.push(() => ignoreNotFound(placement.deleteResourceProvider(root.uuid)));
    const child = await placement.createResourceProvider(`blazar_${uniqueName(host)}`, root.uuid);
    cleanups.push(() => ignoreNotFound(placement.deleteResourceProvider(child.uuid)));
    return { root, child };
  };

  it("finds the compute nodes' providers by name", async () => {
    for (const name of env.computeHosts) {
      const provider = await placement.findResourceProvider(name);
      expect(provider).toMatchObject({ name, parent_provider_uuid: null });
      expect(provider?.root_provider_uuid).toBe(provider?.uuid);
      const { inventories } = await placement.getInventories(provider?.uuid ?? '');
      expect(inventories['VCPU']?.total).toBeGreaterThan(0);
      expect(inventories['MEMORY_MB']?.total).toBeGreaterThan(0);
    }
    expect(await placement.findResourceProvider('no-such-provider')).toBeNull();
  });

  it("creates a child provider in a root provider's tree and deletes it", async () => {
    const { root, child } = await childProvider();
    expect(child).toMatchObject({ parent_provider_uuid: root.uuid, root_provider_uuid: root.uuid, generation: 0 });
    expect((await placement.listResourceProviders({ inTree: root.uuid })).map((p) => p.uuid)).toEqual(
      expect.arrayContaining([root.uuid, child.uuid]),
    );
    expect((await placement.getResourceProvider(child.uuid)).name).toBe(child.name);
    await expect(placement.createResourceProvider(child.name, root.uuid)).rejects.toBeInstanceOf(OpenStackConflictError);
    await placement.deleteResourceProvider(child.uuid);
    await expect(placement.getResourceProvider(child.uuid)).rejects.toBeInstanceOf(OpenStackNotFoundError);
    expect(await ignoreNotFound(placement.deleteResourceProvider(child.uuid))).toBe(false);
  });

  it('creates custom resource classes idempotently and deletes them', async () => {
    const rc = customName('lh-rc');
    expect(await placement.ensureResourceClass(rc)).toBe(true);
    expect(await placement.ensureResourceClass(rc)).toBe(false);
    expect(await placement.resourceClassExists(rc)).toBe(true);
    await placement.deleteResourceClass(rc);
    expect(await placement.resourceClassExists(rc)).toBe(false);
    await expect(placement.deleteResourceClass(rc)).rejects.toBeInstanceOf(OpenStackNotFoundError);
  });

  it('sets, reads and deletes an inventory of a reservation class on the child provider', async () => {
    const { child } = await childProvider();
    const rc = customName('lh-reservation');
    const other = customName('lh-other');
    await placement.ensureResourceClass(rc);
    await placement.ensureResourceClass(other);
    cleanups.push(
      () => ignoreNotFound(placement.deleteResourceClass(rc)),
      () => ignoreNotFound(placement.deleteResourceClass(other)),
    );

    const first = await placement.setInventory(child.uuid, rc, inventoryOf(2, { max_unit: 1 }));
    expect(first.inventories[rc]).toEqual({ total: 2, reserved: 0, min_unit: 1, max_unit: 1, step_size: 1, allocation_ratio: 1 });
    const both = await placement.setInventory(child.uuid, other, inventoryOf(3));
    expect(Object.keys(both.inventories).sort()).toEqual([other, rc].sort());
    expect(both.generation).toBeGreaterThan(first.generation);
    expect(await placement.getInventories(child.uuid)).toEqual(both);

    // a class in use by an inventory cannot go
    await expect(placement.deleteResourceClass(rc)).rejects.toBeInstanceOf(OpenStackConflictError);
    await placement.deleteInventory(child.uuid, rc);
    expect(Object.keys((await placement.getInventories(child.uuid)).inventories)).toEqual([other]);
    await expect(placement.deleteInventory(child.uuid, rc)).rejects.toBeInstanceOf(OpenStackNotFoundError);
    await placement.deleteInventory(child.uuid, other);
    await placement.deleteResourceClass(rc);
  });

  it('refuses a write with a stale generation as a generation conflict', async () => {
    const { child } = await childProvider();
    const rc = customName('lh-stale');
    await placement.ensureResourceClass(rc);
    cleanups.push(() => ignoreNotFound(placement.deleteResourceClass(rc)));
    const { generation } = await placement.getInventories(child.uuid);
    await placement.putInventories(child.uuid, generation, { [rc]: inventoryOf(1) });
    const error = await placement.putInventories(child.uuid, generation, { [rc]: inventoryOf(5) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenStackConflictError);
    expect(error).toMatchObject({
      status: 409,
      cloudCode: 'placement.concurrent_update',
      isGenerationConflict: true,
      service: 'placement',
    });
    expect((await placement.getInventories(child.uuid)).inventories[rc]?.total).toBe(1);
  });

  it('repeats a read-modify-write when another writer moves the generation in between', async () => {
    const { child } = await childProvider();
    const rc = customName('lh-race');
    const trait = customName('lh-trait');
    await placement.ensureResourceClass(rc);
    await placement.ensureTrait(trait);
    cleanups.push(
      () => ignoreNotFound(placement.deleteResourceClass(rc)),
      () => ignoreNotFound(placement.deleteTrait(trait)),
    );
    const seen: number[] = [];
    const result = await placement.updateInventories(child.uuid, async (current) => {
      seen.push(Object.keys(current).length);
      // another writer (here: a trait update on the same provider) bumps the generation after our first read
      if (seen.length === 1) await placement.updateProviderTraits(child.uuid, (traits) => [...traits, trait]);
      return { ...current, [rc]: inventoryOf(4) };
    });
    expect(result.inventories[rc]?.total).toBe(4);
    expect(seen.length).toBe(2);
  });

  it('adds and removes a trait on a provider, keeping the others', async () => {
    const { child } = await childProvider();
    const trait = customName('lh-freepool');
    expect(await placement.ensureTrait(trait)).toBe(true);
    expect(await placement.ensureTrait(trait)).toBe(false);
    cleanups.push(() => ignoreNotFound(placement.deleteTrait(trait)));
    const added = await placement.updateProviderTraits(child.uuid, (traits) => [...traits, trait]);
    expect(added.traits).toEqual([trait]);
    await expect(placement.deleteTrait(trait)).rejects.toBeInstanceOf(OpenStackConflictError);
    expect((await placement.listResourceProviders({ required: [trait] })).map((p) => p.uuid)).toEqual([child.uuid]);
    const removed = await placement.updateProviderTraits(child.uuid, (traits) => traits.filter((t) => t !== trait));
    expect(removed.traits).toEqual([]);
    await placement.deleteTrait(trait);
    expect(await placement.getProviderUsages(child.uuid)).toEqual({});
  });
});
