/**
 * virtual:instance and flavor:instance effects against the real control plane: the reservation's private
 * flavor and Placement inventory exist exactly during the lease, a server of the lease's project with
 * that flavor lands on an allocated host, retries double nothing, and the end removes everything.
 * Slots are on fake-host-2 (and fake-host-3 after an update): the host test reserves fake-host-1.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { type EffectContext, EffectFailedError } from '#plugins/effects.port.js';
import { childProviderName, openStackClients, reservationCustomName, reservationObjectName } from '#plugins/openstack/effects/index.js';
import { OpenStackInstanceEffects } from '#plugins/instance/openstack/instance.openstack-effects.js';
import { NovaClient, OpenStackNotFoundError, PlacementClient, type Server, ignoreNotFound, isNotFound } from '#plugins/openstack/index.js';
import type { FlavorInstanceReservation, VirtualInstanceReservation } from '#plugins/instance/instance.reservation.js';
import { OPENSTACK_ENV_FILE, emptyChildProvider, eventually, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

const on = Boolean(OPENSTACK_ENV_FILE);

describe.skipIf(!on)('OpenStackInstanceEffects (real Nova and Placement)', () => {
  const env = on ? openStackEnv() : (undefined as never);
  const admin = on ? sessionFor(env.admin) : (undefined as never);
  const nova = on ? new NovaClient(admin) : (undefined as never);
  const placement = on ? new PlacementClient(admin) : (undefined as never);
  const demoNova = on ? new NovaClient(sessionFor(env.demo)) : (undefined as never);
  const otherNova = on ? new NovaClient(sessionFor(env.other)) : (undefined as never);
  const [, slotHost, updateHost] = on ? env.computeHosts : [];
  const effects = on
    ? new OpenStackInstanceEffects(openStackClients(sessionFor(env.service)), { serverDeletion: { timeoutMs: 90_000, pollMs: 500 } })
    : (undefined as never);
  const reservationId = randomUUID();
  const resourceClass = reservationCustomName(reservationId);
  const reservation: VirtualInstanceReservation = {
    id: reservationId,
    resourceId: randomUUID(),
    resourceType: 'virtual:instance',
    amount: 2,
    vcpus: 1,
    memoryMb: 256,
    diskGb: 1,
    affinity: true,
    resourceProperties: '',
    allocations: [{ hostId: 'h2', count: 2 }],
  };
  const context = (phase: EffectContext['phase']): EffectContext => ({
    idempotencyKey: `${reservationId}:${phase}`,
    leaseId: `lease-${reservationId}`,
    projectId: env.demoProjectId,
    phase,
    resourceNames: { h2: slotHost ?? '', h3: updateHost ?? '' },
  });
  const servers: string[] = [];
  const createdProviders: string[] = [];
  let serverId = '';
  let groupId = '';

  const inventoryTotals = async (): Promise<Record<string, number>> => {
    const totals: Record<string, number> = {};
    for (const provider of await placement.listResourceProviders()) {
      const inventory = (await placement.getInventories(provider.uuid)).inventories[resourceClass];
      if (inventory !== undefined) totals[provider.name] = inventory.total;
    }
    return totals;
  };
  const flavorOrNull = async (id: string) =>
    nova.getFlavor(id).catch((error: unknown) => {
      if (isNotFound(error)) return null;
      throw error;
    });
  const boot = async (client: NovaClient, flavorRef: string): Promise<Server> => {
    const { id } = await client.createServer({ name: uniqueName('lh-inst'), imageRef: env.imageId, flavorRef, networks: 'none' });
    servers.push(id);
    return eventually(
      'the server to leave BUILD',
      async () => {
        const server = await nova.getServer(id);
        return server.status === 'BUILD' ? undefined : server;
      },
      90_000,
    );
  };

  afterAll(async () => {
    for (const id of servers) await ignoreNotFound(nova.deleteServer(id)).catch(() => undefined);
    await effects.onEnd(context('end'), reservation).catch(() => undefined);
    for (const name of createdProviders) await emptyChildProvider(placement, name.replace(/^blazar_/, '')).catch(() => undefined);
  });

  it(
    'at start makes the class, the inventory of the slots, the private flavor and the server group; a retry doubles nothing',
    { timeout: 60_000 },
    async () => {
      const records = await effects.onStart(context('start'), reservation);
      createdProviders.push(...records.filter((r) => r.operation === 'resource_provider.create').map((r) => r.resource_provider as string));
      groupId = records.find((r) => r.operation === 'server_group.create')?.server_group_id as string;
      const flavorSpecs = { [`resources:${resourceClass}`]: '1', 'trait:CUSTOM_BLAZAR_FREEPOOL': 'required' };
      expect(records.filter((r) => r.operation !== 'resource_provider.create' && r.operation !== 'resource_provider.add_trait')).toEqual([
        {
          operation: 'server_group.create',
          server_group: reservationObjectName(reservationId),
          server_group_id: expect.any(String) as string,
          policy: 'affinity',
          project_id: expect.any(String) as string,
          trust_id: null,
          note: expect.stringMatching(/^no trust/) as string,
        },
        { operation: 'resource_class.create', resource_class: resourceClass },
        { operation: 'inventory.set', resource_provider: childProviderName(slotHost ?? ''), resource_class: resourceClass, total: 2 },
        {
          operation: 'flavor.create',
          flavor_id: reservationId,
          name: reservationObjectName(reservationId),
          vcpus: 1,
          ram: 256,
          disk: 1,
          ephemeral: 0,
          is_public: false,
        },
        { operation: 'flavor.set_extra_specs', flavor_id: reservationId, extra_specs: flavorSpecs },
        { operation: 'flavor.add_access', flavor_id: reservationId, project_id: env.demoProjectId },
      ]);
      expect(await flavorOrNull(reservationId)).toMatchObject({ 'os-flavor-access:is_public': false, extra_specs: flavorSpecs });
      expect(await nova.listFlavorAccess(reservationId)).toEqual([env.demoProjectId]);
      expect(await inventoryTotals()).toEqual({ [childProviderName(slotHost ?? '')]: 2 });
      const child = await placement.findResourceProvider(childProviderName(slotHost ?? ''));
      expect((await placement.getProviderTraits(child?.uuid ?? '')).traits).toContain('CUSTOM_BLAZAR_FREEPOOL');

      const again = await effects.onStart(context('start'), reservation);
      expect(again.every((record) => record.already === true)).toBe(true);
      expect(
        (await nova.listServerGroups({ allProjects: true })).filter((g) => g.name === reservationObjectName(reservationId)),
      ).toHaveLength(1);
      expect(await inventoryTotals()).toEqual({ [childProviderName(slotHost ?? '')]: 2 });
    },
  );

  it(
    "lands the project's servers with the reservation's flavor on the allocated host up to the amount; other projects cannot use the flavor",
    { timeout: 120_000 },
    async () => {
      const server = await boot(demoNova, reservationId);
      expect(server).toMatchObject({ status: 'ACTIVE', 'OS-EXT-SRV-ATTR:host': slotHost, tenant_id: env.demoProjectId });
      serverId = server.id;
      const child = await placement.findResourceProvider(childProviderName(slotHost ?? ''));
      expect(await placement.getProviderUsages(child?.uuid ?? '')).toMatchObject({ [resourceClass]: 1 });
      const second = await boot(demoNova, reservationId);
      const beyond = await boot(demoNova, reservationId);
      expect(second).toMatchObject({ status: 'ACTIVE', 'OS-EXT-SRV-ATTR:host': slotHost });
      expect(beyond.status).toBe('ERROR');
      expect(beyond.fault?.message).toContain('No valid host');
      for (const extra of [second, beyond]) {
        await nova.deleteServer(extra.id);
        await eventually('the extra server to be gone', async () =>
          (await nova.getServer(extra.id).then(
            () => false,
            (e: unknown) => isNotFound(e),
          ))
            ? true
            : undefined,
        );
      }
      const refused = await otherNova
        .createServer({ name: uniqueName('lh-inst-other'), imageRef: env.imageId, flavorRef: reservationId, networks: 'none' })
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ status: 400 });
    },
  );

  it('an update converges the inventories to the new allocations', { timeout: 60_000 }, async () => {
    const moved = {
      ...reservation,
      allocations: [
        { hostId: 'h2', count: 1 },
        { hostId: 'h3', count: 1 },
      ],
    };
    const records = await effects.onUpdate(context('update'), moved);
    createdProviders.push(...records.filter((r) => r.operation === 'resource_provider.create').map((r) => r.resource_provider as string));
    expect(records.filter((r) => r.operation === 'inventory.set')).toEqual([
      { operation: 'inventory.set', resource_provider: childProviderName(slotHost ?? ''), resource_class: resourceClass, total: 1 },
      { operation: 'inventory.set', resource_provider: childProviderName(updateHost ?? ''), resource_class: resourceClass, total: 1 },
    ]);
    expect(await inventoryTotals()).toEqual({ [childProviderName(slotHost ?? '')]: 1, [childProviderName(updateHost ?? '')]: 1 });
  });

  it('at end deletes the servers, then flavor, group, inventories and class; a retry is a no-op', { timeout: 150_000 }, async () => {
    const records = await effects.onEnd(context('end'), reservation);
    const byProvider = (a: Record<string, unknown>, b: Record<string, unknown>): number =>
      String(a.resource_provider).localeCompare(String(b.resource_provider));
    expect(records.filter((r) => r.operation !== 'inventory.delete')).toEqual([
      { operation: 'flavor.remove_access', flavor_id: reservationId, project_id: env.demoProjectId },
      { operation: 'servers.delete', flavor_id: reservationId, servers: 1 },
      { operation: 'server_group.delete', server_group: reservationObjectName(reservationId), server_group_id: groupId, via: 'service' },
      { operation: 'flavor.delete', flavor_id: reservationId },
      { operation: 'resource_class.delete', resource_class: resourceClass },
    ]);
    expect(records.filter((r) => r.operation === 'inventory.delete').sort(byProvider)).toEqual(
      [slotHost, updateHost]
        .map((host) => ({ operation: 'inventory.delete', resource_provider: childProviderName(host ?? ''), resource_class: resourceClass }))
        .sort(byProvider),
    );
    await expect(nova.getServer(serverId)).rejects.toBeInstanceOf(OpenStackNotFoundError);
    expect(await flavorOrNull(reservationId)).toBeNull();
    expect(await inventoryTotals()).toEqual({});
    expect(await placement.resourceClassExists(resourceClass)).toBe(false);
    expect((await nova.listServerGroups({ allProjects: true })).filter((g) => g.name === reservationObjectName(reservationId))).toEqual([]);

    const again = await effects.onEnd(context('end'), reservation);
    expect(again.filter((record) => record.already !== true)).toEqual([
      { operation: 'servers.delete', flavor_id: reservationId, servers: 0 },
    ]);
  });

  it('records an allocated host that Placement does not know as the failed outcome', { timeout: 30_000 }, async () => {
    const id = randomUUID();
    const unknown: VirtualInstanceReservation = { ...reservation, id, affinity: null, allocations: [{ hostId: 'h9', count: 1 }] };
    const ctx = { ...context('start'), idempotencyKey: `${id}:start`, resourceNames: { h9: 'lh-no-such-host' } };
    try {
      const failure = await effects.onStart(ctx, unknown).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(EffectFailedError);
      expect((failure as EffectFailedError).message).toBe('No resource provider named lh-no-such-host in Placement');
      expect((failure as EffectFailedError).effects).toEqual([
        { operation: 'resource_class.create', resource_class: reservationCustomName(id) },
      ]);
    } finally {
      await effects.onEnd({ ...ctx, idempotencyKey: `${id}:end` }, unknown);
    }
    expect(await placement.resourceClassExists(reservationCustomName(id))).toBe(false);
  });

  it('flavor:instance copies the source flavor and its extra specs onto the private flavor', { timeout: 60_000 }, async () => {
    const source = await nova.getFlavor(env.flavorId);
    const id = randomUUID();
    const fromFlavor: FlavorInstanceReservation = {
      ...reservation,
      id,
      resourceType: 'flavor:instance',
      affinity: null,
      vcpus: source.vcpus,
      memoryMb: source.ram,
      diskGb: source.disk,
      resourceProperties: JSON.stringify(source),
      sourceFlavorId: source.id,
      extraSpecs: { 'hw:cpu_policy': 'shared' },
    };
    const ctx = { ...context('start'), idempotencyKey: `${id}:start` };
    try {
      const records = await effects.onStart(ctx, fromFlavor);
      expect(records.some((r) => r.operation === 'server_group.create')).toBe(false);
      expect(await flavorOrNull(id)).toMatchObject({
        vcpus: source.vcpus,
        ram: source.ram,
        disk: source.disk,
        extra_specs: {
          'hw:cpu_policy': 'shared',
          [`resources:${reservationCustomName(id)}`]: '1',
          'trait:CUSTOM_BLAZAR_FREEPOOL': 'required',
        },
      });
    } finally {
      await effects.onEnd({ ...context('end'), idempotencyKey: `${id}:end` }, fromFlavor);
    }
    expect(await flavorOrNull(id)).toBeNull();
  });
});
