/**
 * Issue 17 line 3 through the whole system on the real cloud (api + projector + reactor,
 * LEASEHOLD_CLOUD=openstack, LEASEHOLD_PREEMPTIBLE=true): a host registered through the API is open
 * to preemptible servers while no reservation holds it. Another project's server with the preemptible
 * flavor (docs/openstack.md, "Preemptible servers") lands on it, a regular server still cannot; when a
 * host lease takes the host, the preemptible server is shut down, then deleted, and the lease's history
 * says so; while the lease holds the host no preemptible server lands there, and after its end they do again.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PREEMPTIBLE_NAME } from '#plugins/reservation-names.js';
import { reservationAggregateName, reservationCustomName } from '#plugins/openstack/effects/index.js';
import { NovaClient, PlacementClient, type Server, ignoreNotFound } from '#plugins/openstack/index.js';
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
  uniqueName,
} from './openstack.fixtures.js';

/** Also reserved by other test files, which run before or after this one, never at the same time. */
const HOST = 'fake-host-1';

describe.skipIf(!OPENSTACK_ENV_FILE)(
  'preemptible servers on a free freepool host, reaped when a lease takes it (api + projector + reactor)',
  () => {
    const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
    const nova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
    const placement = OPENSTACK_ENV_FILE ? new PlacementClient(sessionFor(env.admin)) : (undefined as never);
    const otherNova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.other)) : (undefined as never);
    const freepool = uniqueName('lh-pre-freepool');
    const flavorName = uniqueName('lh-preemptible');
    const servers: string[] = [];
    let flavorId = '';
    let system: RunningSystem;
    let client: ReturnType<typeof api>;
    let hostId = '';
    let leaseId = '';
    let reservationId = '';
    let instanceReservationId = '';
    let preemptible: Server;

    /** Boots through `as` (a tenant's own token) and waits, as the admin sees it (with the host), until it leaves BUILD. */
    const boot = async (as: NovaClient, what: string, flavorRef: string, availabilityZone?: string): Promise<Server> => {
      const spec = { name: uniqueName(`lh-pre-${what}`), imageRef: env.imageId, flavorRef, networks: 'none' as const };
      const { id } = await as.createServer(availabilityZone === undefined ? spec : { ...spec, availabilityZone });
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

    const childTraits = async (): Promise<readonly string[]> => {
      const child = await placement.findResourceProvider(`blazar_${HOST}`);
      return child === null ? [] : (await placement.getProviderTraits(child.uuid)).traits;
    };

    beforeAll(async () => {
      // what docs/openstack.md tells the operator to make: a public flavor asking for one unit of the class and requiring both traits
      const flavor = await nova.createFlavor({ name: flavorName, vcpus: 1, ram: 512, disk: 1, isPublic: true });
      flavorId = flavor.id;
      await nova.setFlavorExtraSpecs(flavorId, {
        [`resources:${PREEMPTIBLE_NAME}`]: '1',
        [`trait:${PREEMPTIBLE_NAME}`]: 'required',
        'trait:CUSTOM_BLAZAR_FREEPOOL': 'required',
      });
      system = await startSystem({
        env: {
          ...cloudSystemEnv(env),
          LEASEHOLD_FREEPOOL_NAME: freepool,
          LEASEHOLD_DEFAULT_PROJECT_ID: env.demoProjectId,
          LEASEHOLD_HOST_POLLING_SECONDS: '0',
          LEASEHOLD_RECONCILE_SECONDS: '0',
          LEASEHOLD_PREEMPTIBLE: 'true',
          LEASEHOLD_PREEMPTIBLE_GRACE_SECONDS: '30',
        },
      });
      client = api(system.url);
    }, 60_000);

    afterEach((context) => {
      if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
    });

    afterAll(async () => {
      await system?.stop();
      for (const id of servers) await ignoreNotFound(nova.deleteServer(id)).catch(() => undefined);
      await eventually(
        'the servers gone',
        async () => ((await Promise.all(servers.map((id) => serverGone(nova, id)))).every(Boolean) ? true : undefined),
        60_000,
      ).catch(() => undefined);
      if (flavorId !== '') await ignoreNotFound(nova.deleteFlavor(flavorId)).catch(() => undefined);
      for (const name of [reservationAggregateName(reservationId), freepool]) {
        const found = await nova.findAggregate(name).catch(() => null);
        if (found === null) continue;
        for (const member of found.hosts) await ignoreNotFound(nova.removeAggregateHost(found.id, member)).catch(() => undefined);
        await ignoreNotFound(nova.deleteAggregate(found.id)).catch(() => undefined);
      }
      const root = await placement.findResourceProvider(HOST).catch(() => null);
      const trait = reservationCustomName(reservationId);
      if (root !== null)
        await placement.updateProviderTraits(root.uuid, (traits) => traits.filter((t) => t !== trait)).catch(() => undefined);
      const flavor = instanceReservationId === '' ? null : await nova.getFlavor(instanceReservationId).catch(() => null);
      if (flavor !== null) await ignoreNotFound(nova.deleteFlavor(flavor.id)).catch(() => undefined);
      await emptyChildProvider(placement, HOST).catch(() => undefined);
      if (instanceReservationId !== '')
        await ignoreNotFound(placement.deleteResourceClass(reservationCustomName(instanceReservationId))).catch(() => undefined);
    }, 120_000);

    it(
      'enrolls the registered host open to preemptible servers: the class and the trait on its child provider',
      { timeout: 90_000 },
      async () => {
        const created = await client.post('/v1/os-hosts', { name: HOST, rack: 'pre' });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        hostId = created.body.host.id;
        await eventually(
          'the host in the freepool',
          async () => ((await aggregateMembers(nova, freepool))?.includes(HOST) === true ? true : undefined),
          60_000,
        );
        await eventually(
          'the preemptible trait on the child provider',
          async () => ((await childTraits()).includes(PREEMPTIBLE_NAME) ? true : undefined),
          30_000,
        );
        const child = await placement.findResourceProvider(`blazar_${HOST}`);
        expect((await placement.getInventories(child?.uuid ?? '')).inventories[PREEMPTIBLE_NAME]).toMatchObject({
          total: 1000,
          max_unit: 1,
          reserved: 0,
        });
      },
    );

    it('lands a preemptible server on the free freepool host, and still refuses a regular one there', { timeout: 120_000 }, async () => {
      preemptible = await boot(otherNova, 'preemptible', flavorId);
      expect(preemptible.status, JSON.stringify(preemptible.fault ?? null)).toBe('ACTIVE');
      // the only host whose child provider offers the class: steering, not luck
      expect(preemptible['OS-EXT-SRV-ATTR:host']).toBe(HOST);
      const regular = await boot(nova, 'regular-forced', env.flavorId, `nova:${HOST}`);
      expect(regular.status).toBe('ERROR');
      expect(regular.fault?.message).toContain('No valid host');
    });

    it(
      'a lease taking the host stops, then deletes the preemptible server before the host moves, and records it',
      { timeout: 150_000 },
      async () => {
        const created = await client.post('/v1/leases', {
          name: uniqueName('lh-pre-lease'),
          start_date: 'now',
          end_date: blazarDate(60),
          reservations: [pinnedHost(HOST)],
          events: [],
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        leaseId = created.body.lease.id;
        reservationId = created.body.lease.reservations[0].id;
        await eventually(
          'the lease ACTIVE',
          async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'ACTIVE' ? true : undefined),
          90_000,
        );
        expect(await serverGone(nova, preemptible.id)).toBe(true);
        expect(await aggregateMembers(nova, reservationAggregateName(reservationId))).toEqual([HOST]);

        const history = await eventually(
          'the reap in the lease history',
          async () => {
            const entries = (await client.get(`/v1/leases/${leaseId}/history`)).body.history as {
              type: string;
              data: Record<string, unknown>;
            }[];
            return entries.some((e) => e.type === 'lease.preemptible_server_reaped') ? entries : undefined;
          },
          30_000,
        );
        const reaped = history.filter((e) => e.type === 'lease.preemptible_server_reaped');
        expect(reaped.map((e) => e.data)).toEqual([
          expect.objectContaining({ reservation_id: reservationId, host_id: hostId, host: HOST, flavor: flavorName, stopped: true }),
        ]);
        // another tenant's server: its id and project are in the stored event, not in what the lease's owner reads
        expect(reaped[0]?.data).not.toHaveProperty('project_id');
        expect(reaped[0]?.data).not.toHaveProperty('server_id');
        expect(
          ledgerEvents(system.dataDir, `lease-${leaseId}`).find((e) => e.type === 'Lease.PreemptibleServerReaped')?.data,
        ).toMatchObject({ serverId: preemptible.id, projectId: env.otherProjectId });
        // in the ledger: reaped (stopped first, then deleted) before the host left the freepool, in the start's outcome
        const start = ledgerEvents(system.dataDir, `lease-${leaseId}`).find(
          (e) => e.type === 'Reservation.EffectsApplied' && e.data.phase === 'start',
        );
        const operations = (start?.data.effects as { operation: string; aggregate?: string }[]).map((e) =>
          e.aggregate === undefined ? e.operation : `${e.operation} ${e.aggregate}`,
        );
        const reapAt = operations.indexOf('preemptible.reap');
        expect(reapAt).toBeGreaterThan(operations.indexOf(`aggregate.add_host ${reservationAggregateName(reservationId)}`));
        expect(reapAt).toBeLessThan(operations.indexOf(`aggregate.remove_host ${freepool}`));
        expect(operations.indexOf('preemptible.close')).toBeLessThan(reapAt);
      },
    );

    it('while the lease holds the host no preemptible server lands on it; after its end they do again', { timeout: 150_000 }, async () => {
      expect(await childTraits()).not.toContain(PREEMPTIBLE_NAME);
      const refused = await boot(otherNova, 'preemptible-during-lease', flavorId);
      expect(refused.status).toBe('ERROR');
      expect(refused.fault?.message).toContain('No valid host');

      const ended = await client.put(`/v1/leases/${leaseId}`, { end_date: 'now' });
      expect(ended.status, JSON.stringify(ended.body)).toBe(200);
      await eventually(
        'the lease TERMINATED',
        async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'TERMINATED' ? true : undefined),
        90_000,
      );
      expect(await aggregateMembers(nova, freepool)).toContain(HOST);
      expect(await childTraits()).toContain(PREEMPTIBLE_NAME);
      const again = await boot(otherNova, 'preemptible-after-lease', flavorId);
      expect(again.status, JSON.stringify(again.fault ?? null)).toBe('ACTIVE');
      expect(again['OS-EXT-SRV-ATTR:host']).toBe(HOST);
      await nova.deleteServer(again.id);
      await eventually('the server gone', async () => ((await serverGone(nova, again.id)) ? true : undefined), 60_000);
    });

    it(
      'an instance lease on the host reaps its preemptible servers too, and its end opens the host again',
      { timeout: 150_000 },
      async () => {
        const victim = await boot(otherNova, 'preemptible-before-instances', flavorId);
        expect(victim['OS-EXT-SRV-ATTR:host']).toBe(HOST);
        const created = await client.post('/v1/leases', {
          name: uniqueName('lh-pre-instances'),
          start_date: 'now',
          end_date: blazarDate(60),
          reservations: [instanceReservation(1, { vcpus: 1, memory_mb: 256, disk_gb: 1 })],
          events: [],
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const instanceLeaseId: string = created.body.lease.id;
        instanceReservationId = created.body.lease.reservations[0].id;
        await eventually(
          'the lease ACTIVE',
          async () => ((await client.get(`/v1/leases/${instanceLeaseId}`)).body.lease.status === 'ACTIVE' ? true : undefined),
          90_000,
        );
        expect(await serverGone(nova, victim.id)).toBe(true);
        expect(await childTraits()).not.toContain(PREEMPTIBLE_NAME);
        const history = (await client.get(`/v1/leases/${instanceLeaseId}/history`)).body.history as {
          type: string;
          data: Record<string, unknown>;
        }[];
        expect(history.filter((e) => e.type === 'lease.preemptible_server_reaped').map((e) => e.data)).toEqual([
          expect.objectContaining({ reservation_id: instanceReservationId, host_id: hostId, stopped: true }),
        ]);

        const ended = await client.put(`/v1/leases/${instanceLeaseId}`, { end_date: 'now' });
        expect(ended.status, JSON.stringify(ended.body)).toBe(200);
        await eventually(
          'the lease TERMINATED',
          async () => ((await client.get(`/v1/leases/${instanceLeaseId}`)).body.lease.status === 'TERMINATED' ? true : undefined),
          90_000,
        );
        expect(await childTraits()).toContain(PREEMPTIBLE_NAME);
      },
    );

    it('unregistering the host takes its preemptible class and trait away', { timeout: 90_000 }, async () => {
      const deleted = await client.delete(`/v1/os-hosts/${hostId}`);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
      await eventually(
        'the host out of the freepool',
        async () => ((await aggregateMembers(nova, freepool))?.includes(HOST) === false ? true : undefined),
        60_000,
      );
      const child = await placement.findResourceProvider(`blazar_${HOST}`);
      expect((await placement.getInventories(child?.uuid ?? '')).inventories).toEqual({});
      expect(await childTraits()).toEqual([]);
    });
  },
);
