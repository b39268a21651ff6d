/**
 * physical:host effects against the real control plane: a host reservation's start and end change real
 * aggregate membership and Placement traits, the lease's project (and only it) can boot on the reserved
 * host with an image that requires the reservation's trait, and a retried start or end finishes without
 * doubling anything. fake-host-1 is reserved, fake-host-2 stays in a freepool of this test's own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EffectContext } from '#plugins/effects.port.js';
import { openStackClients, reservationAggregateName, reservationCustomName } from '#plugins/openstack/effects/index.js';
import { OpenStackHostEffects } from '#plugins/physical-host/openstack/physical-host.openstack-effects.js';
import { NovaClient, OpenStackNotFoundError, PlacementClient, type Server, ignoreNotFound } from '#plugins/openstack/index.js';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import {
  OPENSTACK_ENV_FILE,
  eventually,
  openStackEnv,
  serverGone,
  sessionFor,
  setComputeStatus,
  traitImage,
  uniqueName,
} from './openstack.fixtures.js';

const on = Boolean(OPENSTACK_ENV_FILE);

describe.skipIf(!on)('OpenStackHostEffects (real Nova and Placement)', () => {
  const env = on ? openStackEnv() : (undefined as never);
  const admin = on ? sessionFor(env.admin) : (undefined as never);
  const nova = on ? new NovaClient(admin) : (undefined as never);
  const placement = on ? new PlacementClient(admin) : (undefined as never);
  const demo = on ? sessionFor(env.demo) : (undefined as never);
  const demoNova = on ? new NovaClient(demo) : (undefined as never);
  const other = on ? sessionFor(env.other) : (undefined as never);
  const otherNova = on ? new NovaClient(other) : (undefined as never);
  const [reserved, free, spare] = on ? env.computeHosts : [];
  const freepoolName = uniqueName('lh-test-freepool');
  const effects = on
    ? new OpenStackHostEffects(openStackClients(sessionFor(env.service)), {
        freepoolName,
        serverDeletion: { timeoutMs: 90_000, pollMs: 500 },
      })
    : (undefined as never);
  const reservationId = randomUUID();
  const trait = reservationCustomName(reservationId);
  const aggregateName = reservationAggregateName(reservationId);
  const reservation: HostReservation = {
    id: reservationId,
    resourceId: randomUUID(),
    resourceType: 'physical:host',
    min: 1,
    max: 1,
    hypervisorProperties: '',
    resourceProperties: '',
    beforeEnd: 'snapshot',
    hostIds: ['h1'],
  };
  const context = (phase: EffectContext['phase'], key = phase): EffectContext => ({
    idempotencyKey: `${reservationId}:${key}`,
    leaseId: `lease-${reservationId}`,
    projectId: env.demoProjectId,
    phase,
    resourceNames: { h1: reserved ?? '' },
  });
  const servers: string[] = [];
  const images: string[] = [];
  let tenantServerId = '';

  const aggregate = async (name: string) => nova.findAggregate(name);
  const rootTraits = async (host: string): Promise<readonly string[]> => {
    const root = await placement.findResourceProvider(host);
    return root === null ? [] : (await placement.getProviderTraits(root.uuid)).traits;
  };
  const boot = async (client: NovaClient, name: string, imageRef: string): Promise<Server> => {
    const { id } = await client.createServer({ name: uniqueName(name), imageRef, flavorRef: env.flavorId, networks: 'none' });
    servers.push(id);
    return eventually(
      `${name} to leave BUILD`,
      async () => {
        const server = await nova.getServer(id);
        return server.status === 'BUILD' ? undefined : server;
      },
      90_000,
    );
  };
  /** What a tenant does to use a host reservation: an image of its own that requires the reservation's trait. */
  const tenantImage = async (session: typeof demo): Promise<{ readonly id: string }> => ({
    id: await traitImage(session, trait, 'lh-res-image', images),
  });
  const setService = (host: string, status: 'enabled' | 'disabled'): Promise<void> =>
    setComputeStatus(nova, host, status, 'leasehold effects test');
  const gone = (id: string): Promise<boolean> => serverGone(nova, id);

  beforeAll(async () => {
    const pool = await nova.createAggregate(freepoolName);
    await placement.ensureTrait('CUSTOM_BLAZAR_FREEPOOL');
    await nova.setAggregateMetadata(pool.id, { 'trait:CUSTOM_BLAZAR_FREEPOOL': 'required' });
    await nova.addAggregateHost(pool.id, reserved ?? '');
    await nova.addAggregateHost(pool.id, free ?? '');
  });

  afterAll(async () => {
    await setService(spare ?? '', 'enabled').catch(() => undefined);
    for (const id of servers) await ignoreNotFound(nova.deleteServer(id)).catch(() => undefined);
    for (const id of images) await ignoreNotFound(admin.request('image', 'DELETE', `/v2/images/${id}`)).catch(() => undefined);
    for (const name of [aggregateName, freepoolName]) {
      const found = await aggregate(name).catch(() => null);
      if (found === null) continue;
      for (const host of found.hosts) await ignoreNotFound(nova.removeAggregateHost(found.id, host)).catch(() => undefined);
      await ignoreNotFound(nova.deleteAggregate(found.id)).catch(() => undefined);
    }
    const root = await placement.findResourceProvider(reserved ?? '').catch(() => null);
    if (root !== null)
      await placement.updateProviderTraits(root.uuid, (traits) => traits.filter((t) => t !== trait)).catch(() => undefined);
    await ignoreNotFound(placement.deleteTrait(trait)).catch(() => undefined);
  });

  it(
    'finishes a start that crashed between add_host and remove_host, and a second start changes nothing',
    { timeout: 60_000 },
    async () => {
      // what a crash right after the first add_host leaves: the aggregate (without metadata yet) holding the host, still in the freepool
      const partial = await nova.createAggregate(aggregateName);
      await nova.addAggregateHost(partial.id, reserved ?? '');

      const records = await effects.onStart(context('start'), reservation);
      expect(records).toEqual([
        { operation: 'trait.create', trait },
        { operation: 'resource_provider.add_trait', resource_provider: reserved, trait },
        {
          operation: 'aggregate.create',
          aggregate: aggregateName,
          aggregate_id: partial.id,
          availability_zone: null,
          metadata: {
            [`trait:${trait}`]: 'required',
            filter_tenant_id: env.demoProjectId,
            reservation: reservationId,
            'blazar:owner': env.demoProjectId,
          },
        },
        { operation: 'aggregate.add_host', aggregate: aggregateName, host: reserved, already: true },
        { operation: 'aggregate.remove_host', aggregate: freepoolName, host: reserved },
      ]);
      expect(await aggregate(aggregateName)).toMatchObject({
        hosts: [reserved],
        metadata: { [`trait:${trait}`]: 'required', filter_tenant_id: env.demoProjectId },
      });
      expect((await aggregate(freepoolName))?.hosts).toEqual([free]);
      expect(await rootTraits(reserved ?? '')).toContain(trait);

      const again = await effects.onStart(context('start'), reservation);
      expect(again.every((record) => record.already === true)).toBe(true);
      expect((await nova.listAggregates()).filter((a) => a.name === aggregateName)).toHaveLength(1);
      expect((await aggregate(aggregateName))?.hosts).toEqual([reserved]);
    },
  );

  it(
    "converges a started reservation (the reconciler's check): drift is put back, a clean check finds every step done",
    { timeout: 60_000 },
    async () => {
      // drift: the reserved host taken out of the reservation's aggregate and put back into the freepool by hand
      const held = await aggregate(aggregateName);
      const pool = await aggregate(freepoolName);
      await nova.removeAggregateHost(held?.id ?? 0, reserved ?? '');
      await nova.addAggregateHost(pool?.id ?? 0, reserved ?? '');

      const repaired = await effects.onUpdate(context('update'), reservation);
      expect(repaired.filter((record) => record.already !== true)).toEqual([
        { operation: 'aggregate.add_host', aggregate: aggregateName, host: reserved },
        { operation: 'aggregate.remove_host', aggregate: freepoolName, host: reserved },
      ]);
      expect((await aggregate(aggregateName))?.hosts).toEqual([reserved]);
      expect((await aggregate(freepoolName))?.hosts).toEqual([free]);

      const clean = await effects.onUpdate(context('update'), reservation);
      expect(clean.every((record) => record.already === true)).toBe(true);
    },
  );

  it("lands the lease project's server with the reservation's image trait on the reserved host", { timeout: 150_000 }, async () => {
    const image = await tenantImage(demo);
    const server = await boot(demoNova, 'lh-res-demo', image.id);
    expect(server).toMatchObject({ status: 'ACTIVE', 'OS-EXT-SRV-ATTR:host': reserved, tenant_id: env.demoProjectId });
    tenantServerId = server.id;
  });

  it(
    "keeps regular servers of every project, and other projects' trait images, off the reserved and freepool hosts",
    { timeout: 150_000 },
    async () => {
      const otherImage = await tenantImage(other);
      await setService(spare ?? '', 'disabled');
      try {
        const refused = await Promise.all([
          boot(otherNova, 'lh-reg-other', env.imageId),
          boot(demoNova, 'lh-reg-demo', env.imageId),
          boot(otherNova, 'lh-res-other', otherImage.id),
        ]);
        for (const server of refused) {
          expect(server.status).toBe('ERROR');
          expect(server.fault?.message).toContain('No valid host');
        }
      } finally {
        await setService(spare ?? '', 'enabled');
      }
    },
  );

  it('before end snapshots each server on the reserved host once', { timeout: 60_000 }, async () => {
    const records = await effects.beforeEnd(context('before_end'), reservation);
    expect(records).toHaveLength(1);
    const [snapshot] = records;
    expect(snapshot).toMatchObject({ operation: 'servers.snapshot', host: reserved, servers: 1 });
    const imageIds = snapshot?.image_ids as string[];
    images.push(...imageIds);
    const image = (await admin.request<{ name: string }>('image', 'GET', `/v2/images/${imageIds[0] ?? ''}`)).body;
    expect(image.name).toBe(`reservation-${reservationId}-${tenantServerId}`);
    expect(await effects.beforeEnd(context('before_end'), reservation)).toEqual([{ ...snapshot, already: true }]);
  });

  it(
    'at end deletes the servers, returns the host to the freepool and removes aggregate and trait; a retry is a no-op',
    { timeout: 150_000 },
    async () => {
      const records = await effects.onEnd(context('end'), reservation);
      expect(records).toEqual([
        { operation: 'servers.delete', host: reserved, servers: 1 },
        { operation: 'aggregate.add_host', aggregate: freepoolName, host: reserved },
        { operation: 'aggregate.remove_host', aggregate: aggregateName, host: reserved },
        { operation: 'resource_provider.remove_trait', resource_provider: reserved, trait },
        { operation: 'aggregate.delete', aggregate: aggregateName, aggregate_id: expect.any(Number) as number },
        { operation: 'trait.delete', trait },
      ]);
      expect(await gone(tenantServerId)).toBe(true);
      expect(await aggregate(aggregateName)).toBeNull();
      expect([...((await aggregate(freepoolName))?.hosts ?? [])].sort()).toEqual([reserved, free].sort());
      expect(await rootTraits(reserved ?? '')).not.toContain(trait);
      await expect(admin.request('placement', 'GET', `/traits/${trait}`, { microversion: '1.39' })).rejects.toBeInstanceOf(
        OpenStackNotFoundError,
      );

      const again = await effects.onEnd(context('end'), reservation);
      expect(again.every((record) => record.already === true)).toBe(true);
    },
  );
});
