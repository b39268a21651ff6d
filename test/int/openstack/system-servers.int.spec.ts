/**
 * Issue 5 item 8 through the whole system on the real cloud (api + projector + reactor,
 * LEASEHOLD_CLOUD=openstack): leases made through Blazar's API for project demo let the demo user, with
 * its own Keystone session, boot servers the documented way (docs/openstack.md, "What a tenant does to
 * use a reservation"). A host reservation's server lands on the reserved host while demo's regular
 * servers cannot, and deleting the active lease deletes it; an instance reservation's flavor lands a
 * server on the allocated host up to the amount, and ending the lease early deletes server and flavor.
 * The API runs in auth mode `none` as demo's project (LEASEHOLD_DEFAULT_PROJECT_ID), so leases are demo's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservationAggregateName, reservationCustomName } from '#plugins/openstack/effects/index.js';
import { NovaClient, type OpenStackSession, PlacementClient, type Server, ignoreNotFound, isNotFound } from '#plugins/openstack/index.js';
import { ledgerEvents, pinnedHost } from '../../helpers/api-fixtures.js';
import { api, blazarDate, instanceReservation } from '../../helpers/http.js';
import { type RunningSystem, startSystem } from '../../helpers/system.js';
import {
  OPENSTACK_ENV_FILE,
  aggregateMembers,
  cloudSystemEnv,
  emptyChildProvider,
  eventually,
  openStackEnv,
  serverGone,
  sessionFor,
  setComputeStatus,
  traitImage,
  uniqueName,
} from './openstack.fixtures.js';

/** Also reserved by other test files, which run before or after this one, never at the same time. */
const HOST = 'fake-host-1';

describe.skipIf(!OPENSTACK_ENV_FILE)(
  "a tenant's servers in leases made through the API on the real Nova (api + projector + reactor)",
  () => {
    const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
    const admin = OPENSTACK_ENV_FILE ? sessionFor(env.admin) : (undefined as never);
    const nova = OPENSTACK_ENV_FILE ? new NovaClient(admin) : (undefined as never);
    const placement = OPENSTACK_ENV_FILE ? new PlacementClient(admin) : (undefined as never);
    const demo = OPENSTACK_ENV_FILE ? sessionFor(env.demo) : (undefined as never);
    const demoNova = OPENSTACK_ENV_FILE ? new NovaClient(demo) : (undefined as never);
    const otherHosts = OPENSTACK_ENV_FILE ? env.computeHosts.filter((h) => h !== HOST) : [];
    const freepool = uniqueName('lh-srv-freepool');
    const servers: string[] = [];
    const images: string[] = [];
    const reservationIds: string[] = [];
    let system: RunningSystem;
    let client: ReturnType<typeof api>;
    let hostId = '';

    const members = (name: string): Promise<readonly string[] | null> => aggregateMembers(nova, name);
    const gone = (id: string): Promise<boolean> => serverGone(nova, id);
    const flavorGone = async (id: string): Promise<boolean> =>
      nova.getFlavor(id).then(
        () => false,
        (error: unknown) => isNotFound(error),
      );

    /** As a tenant would: through Nova with demo's own token; the state as the admin sees it (with the host). */
    const boot = async (what: string, imageRef: string, flavorRef: string): Promise<Server> => {
      const { id } = await demoNova.createServer({ name: uniqueName(`lh-srv-${what}`), imageRef, flavorRef, networks: 'none' });
      servers.push(id);
      return eventually(
        `the ${what} server to leave BUILD`,
        async () => {
          const server = await nova.getServer(id);
          return server.status === 'BUILD' ? undefined : server;
        },
        60_000,
      );
    };

    /** What docs/openstack.md tells a host reservation's tenant to do: an image of its own that requires the reservation's trait. */
    const tenantImage = (session: OpenStackSession, reservationId: string): Promise<string> =>
      traitImage(session, reservationCustomName(reservationId), 'lh-srv-image', images);

    const setService = (host: string, status: 'enabled' | 'disabled'): Promise<void> =>
      setComputeStatus(nova, host, status, 'leasehold system-servers test');

    const createLease = async (reservation: Record<string, unknown>): Promise<{ leaseId: string; reservation: Record<string, any> }> => {
      const created = await client.post('/v1/leases', {
        name: uniqueName('lh-srv-lease'),
        start_date: 'now',
        end_date: blazarDate(60),
        reservations: [reservation],
        events: [],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.lease.project_id).toBe(env.demoProjectId);
      reservationIds.push(created.body.lease.reservations[0].id);
      return { leaseId: created.body.lease.id, reservation: created.body.lease.reservations[0] };
    };

    /** The reactor's record of the end: the lease's `Lease.Ended`, then the cloud steps of its end. */
    const endEffects = async (leaseId: string): Promise<readonly Record<string, unknown>[]> => {
      const events = await eventually(
        'Lease.Ended in the ledger',
        async () => {
          const all = ledgerEvents(system.dataDir, `lease-${leaseId}`);
          return all.some((e) => e.type === 'Lease.Ended') ? all : undefined;
        },
        90_000,
      );
      expect(events.filter((e) => e.type === 'Reservation.EffectsFailed')).toEqual([]);
      return events
        .filter((e) => e.type === 'Reservation.EffectsApplied' && e.data.phase === 'end')
        .flatMap((e) => e.data.effects as Record<string, unknown>[]);
    };

    const activeLease = async (leaseId: string): Promise<Record<string, any>> =>
      eventually(
        'the lease ACTIVE',
        async () => {
          const lease = (await client.get(`/v1/leases/${leaseId}`)).body.lease;
          return lease.status === 'ACTIVE' ? lease : undefined;
        },
        60_000,
      );

    beforeAll(async () => {
      system = await startSystem({
        env: {
          ...cloudSystemEnv(env),
          LEASEHOLD_FREEPOOL_NAME: freepool,
          LEASEHOLD_DEFAULT_PROJECT_ID: env.demoProjectId,
          LEASEHOLD_HOST_POLLING_SECONDS: '0',
          LEASEHOLD_RECONCILE_SECONDS: '0',
        },
      });
      client = api(system.url);
    }, 60_000);

    afterAll(async () => {
      for (const host of otherHosts) await setService(host, 'enabled').catch(() => undefined);
      await system?.stop();
      // whatever a failure left behind, the servers first: their allocations hold the provider and the resource class
      for (const id of servers) await ignoreNotFound(nova.deleteServer(id)).catch(() => undefined);
      await eventually(
        'the servers gone',
        async () => ((await Promise.all(servers.map(gone))).every(Boolean) ? true : undefined),
        60_000,
      ).catch(() => undefined);
      for (const id of images) await ignoreNotFound(admin.request('image', 'DELETE', `/v2/images/${id}`)).catch(() => undefined);
      for (const name of [...reservationIds.map(reservationAggregateName), freepool]) {
        const found = await nova.findAggregate(name).catch(() => null);
        if (found === null) continue;
        for (const member of found.hosts) await ignoreNotFound(nova.removeAggregateHost(found.id, member)).catch(() => undefined);
        await ignoreNotFound(nova.deleteAggregate(found.id)).catch(() => undefined);
      }
      const root = await placement.findResourceProvider(HOST).catch(() => null);
      const custom = new Set(reservationIds.map(reservationCustomName));
      if (root !== null)
        await placement.updateProviderTraits(root.uuid, (traits) => traits.filter((t) => !custom.has(t))).catch(() => undefined);
      await emptyChildProvider(placement, HOST).catch(() => undefined);
      for (const id of reservationIds) {
        await ignoreNotFound(nova.deleteFlavor(id)).catch(() => undefined);
        await ignoreNotFound(placement.deleteTrait(reservationCustomName(id))).catch(() => undefined);
        await ignoreNotFound(placement.deleteResourceClass(reservationCustomName(id))).catch(() => undefined);
      }
    }, 120_000);

    it('registers the host from Nova and the reactor enrolls it in the freepool', { timeout: 60_000 }, async () => {
      const created = await client.post('/v1/os-hosts', { name: HOST });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      hostId = created.body.host.id;
      await eventually(
        'the host in the freepool',
        async () => ((await members(freepool))?.includes(HOST) === true ? true : undefined),
        45_000,
      );
    });

    it(
      "a host lease's server lands on the reserved host, demo's regular servers cannot, and deleting the active lease deletes it",
      { timeout: 150_000 },
      async () => {
        const { leaseId, reservation } = await createLease(pinnedHost(HOST));
        expect(reservation.end_action).toBe('delete_servers_on_hosts');
        await activeLease(leaseId);
        expect(await members(reservationAggregateName(reservation.id))).toEqual([HOST]);

        const reserved = await boot('host-res', await tenantImage(demo, reservation.id), env.flavorId);
        expect(reserved).toMatchObject({ status: 'ACTIVE', 'OS-EXT-SRV-ATTR:host': HOST, tenant_id: env.demoProjectId });

        // with every other compute disabled, the reserved host is the only one left: a regular server must not get it
        for (const host of otherHosts) await setService(host, 'disabled');
        let regular: Server;
        try {
          regular = await boot('regular', env.imageId, env.flavorId);
        } finally {
          for (const host of otherHosts) await setService(host, 'enabled');
        }
        expect(regular.status).toBe('ERROR');
        expect(regular.fault?.message).toContain('No valid host');
        await nova.deleteServer(regular.id);
        await eventually('the refused server gone', async () => ((await gone(regular.id)) ? true : undefined), 30_000);

        const deleted = await client.delete(`/v1/leases/${leaseId}`);
        expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
        expect(await endEffects(leaseId)).toContainEqual({ operation: 'servers.delete', host: HOST, servers: 1 });
        expect(await gone(reserved.id)).toBe(true);
        expect(await members(freepool)).toContain(HOST);
        expect(await members(reservationAggregateName(reservation.id))).toBeNull();
        expect((await client.get(`/v1/leases/${leaseId}`)).status).toBe(404);
      },
    );

    it(
      "an instance lease's flavor lands demo's server on the allocated host up to the amount; the end deletes server and flavor",
      { timeout: 150_000 },
      async () => {
        const { leaseId, reservation } = await createLease(instanceReservation(1, { vcpus: 1, memory_mb: 256, disk_gb: 1 }));
        const active = await activeLease(leaseId);
        const flavorId: string = active.reservations[0].flavor_id;
        expect(flavorId).toBe(reservation.id);

        const server = await boot('inst-res', env.imageId, flavorId);
        expect(server).toMatchObject({ status: 'ACTIVE', 'OS-EXT-SRV-ATTR:host': HOST, tenant_id: env.demoProjectId });
        const beyond = await boot('inst-beyond', env.imageId, flavorId);
        expect(beyond.status).toBe('ERROR');
        expect(beyond.fault?.message).toContain('No valid host');
        await nova.deleteServer(beyond.id);
        await eventually('the refused server gone', async () => ((await gone(beyond.id)) ? true : undefined), 30_000);

        const ended = await client.put(`/v1/leases/${leaseId}`, { end_date: 'now' });
        expect(ended.status, JSON.stringify(ended.body)).toBe(200);
        expect(await endEffects(leaseId)).toContainEqual({ operation: 'servers.delete', flavor_id: flavorId, servers: 1 });
        await eventually(
          'the lease TERMINATED',
          async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'TERMINATED' ? true : undefined),
          30_000,
        );
        expect(await gone(server.id)).toBe(true);
        expect(await flavorGone(flavorId)).toBe(true);
        expect(await members(freepool)).toContain(HOST);
      },
    );

    it('unregistering the host takes it out of the freepool', { timeout: 60_000 }, async () => {
      const deleted = await client.delete(`/v1/os-hosts/${hostId}`);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
      await eventually(
        'the host out of the freepool',
        async () => ((await members(freepool))?.includes(HOST) === false ? true : undefined),
        45_000,
      );
    });
  },
);
