/**
 * Healing on the real cloud, through the whole system (api + projector + reactor, LEASEHOLD_CLOUD=
 * openstack): two fake computes are registered through the API and enrolled in a freepool; an active
 * host lease holds one of them; forcing that compute down in Nova makes Nova emit service.update, the
 * reactor's consumer records Host.WentDown, the reactor's healing replaces the host in the
 * reservation, and the reactor moves the replacement into the reservation's aggregate and the failed
 * host back into the freepool (checked through Nova's API). An instance lease's slot moves the same
 * way: demo's server on the failed compute is deleted and the reservation's inventory follows the slot
 * (checked through Placement). The computes are restored in afterAll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservationCustomName } from '#plugins/openstack/effects/index.js';
import { NovaClient, PlacementClient, ignoreNotFound } from '#plugins/openstack/index.js';
import { ledgerEvents } from '../../helpers/api-fixtures.js';
import { api, instanceReservation } from '../../helpers/http.js';
import { type RunningSystem, startSystem } from '../../helpers/system.js';
import {
  OPENSTACK_ENV_FILE,
  aggregateMembers,
  cloudSystemEnv,
  computeServiceId,
  emptyChildProvider,
  eventually,
  openStackEnv,
  serverGone,
  sessionFor,
  uniqueName,
} from './openstack.fixtures.js';

/** Also used by other test files, which run before or after this one, never at the same time. */
const HOSTS = ['fake-host-2', 'fake-host-3'];

describe.skipIf(!OPENSTACK_ENV_FILE)('healing a host lease when Nova reports its compute down (api + projector + reactor)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const nova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
  const placement = OPENSTACK_ENV_FILE ? new PlacementClient(sessionFor(env.admin)) : (undefined as never);
  const demoNova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.demo)) : (undefined as never);
  const servers: string[] = [];
  const instanceReservations: string[] = [];
  const freepool = uniqueName('lh-heal-freepool');
  const pool = uniqueName('heal');
  const hostIds: Record<string, string> = {};
  const forced: string[] = [];
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  let reservationId = '';

  const members = (name: string): Promise<readonly string[] | null> => aggregateMembers(nova, name);
  const gone = (id: string): Promise<boolean> => serverGone(nova, id);
  /** The hosts whose child provider has an inventory of the resource class, with its total. */
  const inventories = async (resourceClass: string): Promise<Record<string, number>> => {
    const found: Record<string, number> = {};
    for (const host of HOSTS) {
      const child = await placement.findResourceProvider(`blazar_${host}`);
      const total = child === null ? undefined : (await placement.getInventories(child.uuid)).inventories[resourceClass]?.total;
      if (total !== undefined) found[host] = total;
    }
    return found;
  };
  const forceDown = async (host: string): Promise<string> => {
    const serviceId = await computeServiceId(nova, host);
    forced.push(serviceId);
    await nova.updateService(serviceId, { forced_down: true });
    return serviceId;
  };

  beforeAll(async () => {
    system = await startSystem({
      env: {
        ...cloudSystemEnv(env),
        LEASEHOLD_FREEPOOL_NAME: freepool,
        LEASEHOLD_DEFAULT_PROJECT_ID: env.demoProjectId,
        LEASEHOLD_NOVA_NOTIFICATIONS_URL: env.amqpUrl,
        LEASEHOLD_HOST_POLLING_SECONDS: '0',
        LEASEHOLD_RECONCILE_SECONDS: '0',
        LEASEHOLD_HEALING_CHECK_SECONDS: '1',
      },
    });
    client = api(system.url);
  }, 60_000);

  afterAll(async () => {
    for (const serviceId of forced) await nova.updateService(serviceId, { forced_down: false }).catch(() => undefined);
    await system?.stop();
    for (const id of servers) await ignoreNotFound(nova.deleteServer(id)).catch(() => undefined);
    await eventually(
      'the servers gone',
      async () => ((await Promise.all(servers.map(gone))).every(Boolean) ? true : undefined),
      60_000,
    ).catch(() => undefined);
    // whatever a failure left behind: the reservation's aggregate, this test's freepool, the child providers
    for (const name of [`reservation-${reservationId}`, freepool]) {
      const found = await nova.findAggregate(name).catch(() => null);
      if (found === null) continue;
      for (const member of found.hosts) await ignoreNotFound(nova.removeAggregateHost(found.id, member)).catch(() => undefined);
      await ignoreNotFound(nova.deleteAggregate(found.id)).catch(() => undefined);
    }
    for (const host of HOSTS) await emptyChildProvider(placement, host).catch(() => undefined);
    for (const id of instanceReservations) {
      await ignoreNotFound(nova.deleteFlavor(id)).catch(() => undefined);
      await ignoreNotFound(placement.deleteResourceClass(reservationCustomName(id))).catch(() => undefined);
    }
  }, 120_000);

  it('registers both computes and the reactor enrolls them', { timeout: 90_000 }, async () => {
    for (const host of HOSTS) {
      const created = await client.post('/v1/os-hosts', { name: host, pool });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      hostIds[host] = created.body.host.id;
    }
    await eventually(
      'both hosts in the freepool',
      async () => {
        const current = (await members(freepool)) ?? [];
        return HOSTS.every((h) => current.includes(h)) ? true : undefined;
      },
      60_000,
    );
  });

  it(
    'moves the lease to the other compute when its compute is forced down, and the failed one back to the freepool',
    { timeout: 150_000 },
    async () => {
      const end = new Date(Date.now() + 3_600_000).toISOString().slice(0, 16).replace('T', ' ');
      const created = await client.post('/v1/leases', {
        name: uniqueName('lh-heal-lease'),
        start_date: 'now',
        end_date: end,
        reservations: [
          {
            resource_type: 'physical:host',
            min: 1,
            max: 1,
            hypervisor_properties: '',
            resource_properties: JSON.stringify(['==', '$pool', pool]),
          },
        ],
        events: [],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const leaseId: string = created.body.lease.id;
      reservationId = created.body.lease.reservations[0].id;
      const aggregate = `reservation-${reservationId}`;
      await eventually(
        'the lease ACTIVE',
        async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'ACTIVE' ? true : undefined),
        90_000,
      );
      const [held] = (await members(aggregate)) ?? [];
      const other = HOSTS.find((h) => h !== held);
      expect(held !== undefined && other !== undefined).toBe(true);

      const serviceId = await forceDown(held ?? '');

      await eventually(
        'the replacement in the aggregate, the failed host in the freepool',
        async () => {
          const [inAggregate, inFreepool] = [await members(aggregate), await members(freepool)];
          return inAggregate?.length === 1 && inAggregate[0] === other && inFreepool?.includes(held ?? '') === true ? true : undefined;
        },
        60_000,
      );
      const lease = (await client.get(`/v1/leases/${leaseId}`)).body.lease;
      expect(lease).toMatchObject({ status: 'ACTIVE', degraded: true });
      expect(lease.reservations[0]).toMatchObject({ status: 'active', resources_changed: true, missing_resources: false });
      // the log's account: the host went down (from Nova's notification), the reservation was healed, the cloud caught up
      const downEvents = ledgerEvents(system.dataDir, `host-${hostIds[held ?? '']}`).filter((e) => e.type === 'Host.WentDown');
      expect(downEvents[0]?.data).toMatchObject({ reasons: ['forced_down'], source: 'notification' });
      // the reactor records the outcome once its cloud calls are done, a moment after the membership is seen
      const types = await eventually(
        'Reservation.UpdateApplied in the ledger',
        async () => {
          const all = ledgerEvents(system.dataDir, `lease-${leaseId}`).map((e) => e.type);
          return all.includes('Reservation.UpdateApplied') ? all : undefined;
        },
        30_000,
      );
      expect(types.slice(types.indexOf('Reservation.Healed'))).toEqual(['Reservation.Healed', 'Reservation.UpdateApplied']);

      await nova.updateService(serviceId, { forced_down: false });
      const ended = await client.put(`/v1/leases/${leaseId}`, { end_date: 'now' });
      expect(ended.status, JSON.stringify(ended.body)).toBe(200);
      await eventually(
        'the lease TERMINATED',
        async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'TERMINATED' ? true : undefined),
        90_000,
      );
      expect([...((await members(freepool)) ?? [])].sort()).toEqual([...HOSTS].sort());
      expect(await members(aggregate)).toBeNull();
    },
  );

  it(
    "moves an instance lease's slot off a compute forced down: its server there is deleted, the inventory follows",
    { timeout: 180_000 },
    async () => {
      const end = new Date(Date.now() + 3_600_000).toISOString().slice(0, 16).replace('T', ' ');
      const size = { vcpus: 1, memory_mb: 256, disk_gb: 1 };
      const created = await client.post('/v1/leases', {
        name: uniqueName('lh-heal-instances'),
        start_date: 'now',
        end_date: end,
        reservations: [instanceReservation(1, size, { resource_properties: JSON.stringify(['==', '$pool', pool]) })],
        events: [],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const leaseId: string = created.body.lease.id;
      const instanceReservationId: string = created.body.lease.reservations[0].id;
      instanceReservations.push(instanceReservationId);
      const resourceClass = reservationCustomName(instanceReservationId);
      await eventually(
        'the lease ACTIVE',
        async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'ACTIVE' ? true : undefined),
        90_000,
      );
      const before = await inventories(resourceClass);
      const [held] = Object.keys(before);
      const other = HOSTS.find((h) => h !== held);
      expect(before).toEqual({ [held ?? '']: 1 });

      // demo boots into its slot with the reservation's flavor, as docs/openstack.md says
      const { id } = await demoNova.createServer({
        name: uniqueName('lh-heal-vm'),
        imageRef: env.imageId,
        flavorRef: instanceReservationId,
        networks: 'none',
      });
      servers.push(id);
      const booted = await eventually(
        'the server ACTIVE',
        async () => {
          const server = await nova.getServer(id);
          return server.status === 'BUILD' ? undefined : server;
        },
        60_000,
      );
      expect(booted).toMatchObject({ status: 'ACTIVE', 'OS-EXT-SRV-ATTR:host': held });

      const serviceId = await forceDown(held ?? '');
      await eventually(
        'the slot on the other compute, none left on the failed one',
        async () => {
          const now = await inventories(resourceClass);
          return now[other ?? ''] === 1 && now[held ?? ''] === undefined ? true : undefined;
        },
        90_000,
      );
      expect(await gone(id)).toBe(true);
      const lease = (await client.get(`/v1/leases/${leaseId}`)).body.lease;
      expect(lease.reservations[0]).toMatchObject({ status: 'active', resources_changed: true, missing_resources: false });
      const applied = await eventually(
        'Reservation.UpdateApplied in the ledger',
        async () => {
          const all = ledgerEvents(system.dataDir, `lease-${leaseId}`).filter((e) => e.type === 'Reservation.UpdateApplied');
          return all.length > 0 ? all : undefined;
        },
        30_000,
      );
      expect(JSON.stringify(applied.map((e) => e.data))).toContain('"reason":"host no longer in the reservation"');

      await nova.updateService(serviceId, { forced_down: false });
      const ended = await client.put(`/v1/leases/${leaseId}`, { end_date: 'now' });
      expect(ended.status, JSON.stringify(ended.body)).toBe(200);
      await eventually(
        'the lease TERMINATED',
        async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'TERMINATED' ? true : undefined),
        90_000,
      );
      expect(await inventories(resourceClass)).toEqual({});
    },
  );

  it('unregisters both computes', { timeout: 90_000 }, async () => {
    for (const host of HOSTS) {
      const deleted = await client.delete(`/v1/os-hosts/${hostIds[host]}`);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    }
    await eventually(
      'the hosts out of the freepool',
      async () => (((await members(freepool)) ?? []).length === 0 ? true : undefined),
      60_000,
    );
  });
});
