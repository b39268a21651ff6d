/**
 * Network reservations through the whole system on the real cloud (api + projector + reactor, LEASEHOLD_CLOUD=openstack,
 * the API in auth mode `none` as demo's project): segment vlan physnet1 150 registered through the API (checked unused
 * with Neutron), leased; at the start the provider network exists in demo's project on that segment; the tenant adds a
 * subnet, a router interface and a port; ending the lease removes them all (the router stays, without the interface)
 * and the segment is leased again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NeutronClient, type OpenStackSession, ignoreNotFound, isNotFound } from '#plugins/openstack/index.js';
import { api, blazarDate } from '../../helpers/http.js';
import { type RunningSystem, startSystem } from '../../helpers/system.js';
import { OPENSTACK_ENV_FILE, cloudSystemEnv, eventually, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

const SEGMENT = 150;

/** Neutron calls NeutronClient does not make (routers, ports), as the tenant makes them. */
const tenantNeutron = (session: OpenStackSession) => {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
    (await session.request<T>('network', method, `/v2.0${path}`, body === undefined ? {} : { body })).body;
  return {
    createRouter: async (name: string) => (await call<{ router: { id: string } }>('POST', '/routers', { router: { name } })).router.id,
    deleteRouter: (id: string) => call('DELETE', `/routers/${id}`),
    addRouterInterface: (router: string, subnet: string) => call('PUT', `/routers/${router}/add_router_interface`, { subnet_id: subnet }),
    createPort: async (network: string) =>
      (await call<{ port: { id: string } }>('POST', '/ports', { port: { network_id: network } })).port.id,
    ports: async (query: string) => (await call<{ ports: { id: string }[] }>('GET', `/ports?${query}`)).ports,
    network: (id: string) =>
      call<{ network: Record<string, unknown> }>('GET', `/networks/${id}`).then(
        ({ network }) => network,
        (error: unknown) => {
          if (isNotFound(error)) return null;
          throw error;
        },
      ),
  };
};

describe.skipIf(!OPENSTACK_ENV_FILE)(
  'a network segment leased through the API becomes the tenant’s provider network exactly during the lease',
  () => {
    const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
    const admin = OPENSTACK_ENV_FILE ? new NeutronClient(sessionFor(env.admin)) : (undefined as never);
    const adminRaw = OPENSTACK_ENV_FILE ? tenantNeutron(sessionFor(env.admin)) : (undefined as never);
    const demo = OPENSTACK_ENV_FILE ? new NeutronClient(sessionFor(env.demo)) : (undefined as never);
    const demoRaw = OPENSTACK_ENV_FILE ? tenantNeutron(sessionFor(env.demo)) : (undefined as never);
    const routers: string[] = [];
    let system: RunningSystem;
    let client: ReturnType<typeof api>;
    let segmentId = '';

    const onSegment = async (): Promise<string[]> =>
      (await admin.listNetworks({ provider: { networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: SEGMENT } })).map((n) => n.id);
    const leaseOf = async (id: string): Promise<any> => (await client.get(`/v1/leases/${id}`)).body.lease;

    beforeAll(async () => {
      system = await startSystem({
        env: cloudSystemEnv(env, {
          LEASEHOLD_DEFAULT_PROJECT_ID: env.demoProjectId,
          LEASEHOLD_HOST_POLLING_SECONDS: '0',
          LEASEHOLD_RECONCILE_SECONDS: '0',
        }),
      });
      client = api(system.url);
    }, 60_000);

    afterAll(async () => {
      await system?.stop();
      // whatever a failure left behind on the segment, and the tenant's router
      for (const id of await onSegment().catch(() => [])) {
        for (const subnet of await admin.listSubnets({ network_id: id }).catch(() => [])) {
          for (const router of routers) await demoRaw.deleteRouter(router).catch(() => undefined);
          await ignoreNotFound(admin.deleteSubnet(subnet.id)).catch(() => undefined);
        }
        await ignoreNotFound(admin.deleteNetwork(id)).catch(() => undefined);
      }
      for (const router of routers) await demoRaw.deleteRouter(router).catch(() => undefined);
    });

    it('registers vlan physnet1 150 once Neutron shows no network on it', async () => {
      expect(await onSegment()).toEqual([]);
      const created = await client.post('/v1/networks', { network_type: 'vlan', physical_network: 'physnet1', segment_id: SEGMENT });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      segmentId = created.body.network.id;
      // registering only records it: no network exists before a lease starts
      expect(await onSegment()).toEqual([]);
    });

    it(
      "creates the network in demo's project at the start; the end removes the tenant's subnet, router interface and port with it",
      { timeout: 180_000 },
      async () => {
        const started = Date.now();
        const name = uniqueName('lh-net-lease');
        const created = await client.post('/v1/leases', {
          name,
          start_date: 'now',
          end_date: blazarDate(60),
          reservations: [{ resource_type: 'network', network_name: name, network_description: 'through the API' }],
          events: [],
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const leaseId: string = created.body.lease.id;
        const active = await eventually(
          'the lease ACTIVE with its network',
          async () => {
            const lease = await leaseOf(leaseId);
            return lease.status === 'ACTIVE' && lease.reservations[0].network_id !== null ? lease : undefined;
          },
          60_000,
        );
        const networkId: string = active.reservations[0].network_id;
        expect(await onSegment()).toEqual([networkId]);
        expect(await adminRaw.network(networkId)).toMatchObject({
          name,
          description: 'through the API',
          project_id: env.demoProjectId,
          'provider:network_type': 'vlan',
          'provider:physical_network': 'physnet1',
          'provider:segmentation_id': SEGMENT,
        });

        // the tenant builds on it with its own credentials
        const subnet = await demo.createSubnet({ network_id: networkId, cidr: '10.150.1.0/24', name: 'lab' });
        const router = await demoRaw.createRouter(uniqueName('lh-router'));
        routers.push(router);
        await demoRaw.addRouterInterface(router, subnet.id);
        const port = await demoRaw.createPort(networkId);

        // "now" is the current minute and the end must come after the start: wait for the next minute
        await eventually(
          'the minute after the start',
          async () => (Math.floor(Date.now() / 60_000) > Math.floor(started / 60_000) ? true : undefined),
          65_000,
        );
        const ended = await client.put(`/v1/leases/${leaseId}`, { end_date: 'now' });
        expect(ended.status, JSON.stringify(ended.body)).toBe(200);
        await eventually('the lease TERMINATED', async () => ((await leaseOf(leaseId)).status === 'TERMINATED' ? true : undefined), 90_000);

        expect(await adminRaw.network(networkId)).toBeNull();
        expect(await onSegment()).toEqual([]);
        expect(await adminRaw.ports(`device_id=${router}`)).toEqual([]);
        expect(await adminRaw.ports(`network_id=${networkId}`)).toEqual([]);
        expect((await demo.listSubnets({ network_id: networkId })).map((s) => s.id)).not.toContain(subnet.id);
        expect(port).toEqual(expect.any(String));
        const history = JSON.stringify((await client.get(`/v1/leases/${leaseId}/history`)).body);
        for (const operation of [
          'network.create',
          'network.router_interface.remove',
          'network.port.delete',
          'network.subnet.delete',
          'network.delete',
        ]) {
          expect(history).toContain(`"operation":"${operation}"`);
        }
      },
    );

    it('leases the segment again once the end freed it, and unregisters it when no lease holds it', async () => {
      const again = await client.post('/v1/leases', {
        name: uniqueName('lh-net-again'),
        start_date: blazarDate(120),
        end_date: blazarDate(180),
        reservations: [{ resource_type: 'network', network_name: uniqueName('lh-net') }],
        events: [],
      });
      expect(again.status, JSON.stringify(again.body)).toBe(201);
      expect((await client.get(`/v1/networks/${segmentId}/allocation`)).body.allocation.reservations.map((r: any) => r.lease_id)).toEqual([
        again.body.lease.id,
      ]);
      expect((await client.delete(`/v1/leases/${again.body.lease.id}`)).status).toBe(204);
      expect((await client.delete(`/v1/networks/${segmentId}`)).status).toBe(204);
    });
  },
);
