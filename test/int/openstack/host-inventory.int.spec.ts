/**
 * Host and floating-IP registration through the built API with LEASEHOLD_CLOUD=openstack: a host's facts
 * come from the real Nova, a floating IP is checked against the real Neutron. Nothing here changes the
 * cloud but the servers it boots to be refused over (enrollment is the reactor's, see
 * host-enrollment.int.spec.ts), so no reactor runs.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { NovaClient, ignoreNotFound, isNotFound } from '#plugins/openstack/index.js';
import { api } from '../../helpers/http.js';
import { type RunningSystem, startSystem } from '../../helpers/system.js';
import { OPENSTACK_ENV_FILE, cloudSystemEnv, eventually, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

describe.skipIf(!OPENSTACK_ENV_FILE)('host and floating-IP registration against the real Nova and Neutron', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  let system: RunningSystem;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    system = await startSystem({ apps: ['api', 'projector'], env: cloudSystemEnv(env) });
    client = api(system.url);
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('registers fake-host-1 with what Nova reports: vcpus, memory, disk, type, version, cpu info, service host and zone', async () => {
    const hypervisor = await new NovaClient(sessionFor(env.admin)).findHypervisor('fake-host-1');
    const created = await client.post('/v1/os-hosts', { name: 'fake-host-1', gpu: 'true' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.host).toMatchObject({
      hypervisor_hostname: 'fake-host-1',
      service_name: 'fake-host-1',
      vcpus: hypervisor?.vcpus,
      memory_mb: hypervisor?.memory_mb,
      local_gb: hypervisor?.local_gb,
      hypervisor_type: 'fake',
      hypervisor_version: hypervisor?.hypervisor_version,
      availability_zone: 'nova',
      // every key but the name is an extra capability, as upstream
      gpu: 'true',
    });
    expect(JSON.parse(created.body.host.cpu_info as string)).toEqual(hypervisor?.cpu_info);
    const shown = await client.get(`/v1/os-hosts/${created.body.host.id as string}`);
    expect(shown.body.host).toMatchObject({ vcpus: hypervisor?.vcpus, availability_zone: 'nova' });
    expect((await client.delete(`/v1/os-hosts/${created.body.host.id as string}`)).status).toBe(204);
  });

  describe('a host with servers (upstream HostHavingServers)', () => {
    // the compute least used by the other files; outside every freepool while no reactor runs
    const HOST = 'fake-host-3';
    const nova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
    const servers: string[] = [];
    const hostIds: string[] = [];
    let store: SqliteEventStore;

    const boot = async (): Promise<string> => {
      const { id } = await nova.createServer({
        name: uniqueName('lh-having-servers'),
        imageRef: env.imageId,
        flavorRef: env.flavorId,
        networks: 'none',
        availabilityZone: `nova:${HOST}`,
      });
      servers.push(id);
      const server = await eventually(
        'the server to leave BUILD',
        async () => {
          const s = await nova.getServer(id);
          return s.status === 'BUILD' ? undefined : s;
        },
        90_000,
      );
      expect(server).toMatchObject({ status: 'ACTIVE', 'OS-EXT-SRV-ATTR:host': HOST });
      return id;
    };

    const remove = async (id: string): Promise<void> => {
      await nova.deleteServer(id);
      await eventually(
        'the server to be gone',
        () =>
          nova.getServer(id).then(
            () => undefined,
            (error: unknown) => {
              if (isNotFound(error)) return true;
              throw error;
            },
          ),
        60_000,
      );
    };

    const refusal = (id: string) => ({ error_code: 409, error_message: `Servers [${id}] found for host ${HOST}`, error_name: 409 });

    beforeAll(() => {
      store = SqliteEventStore.open({ file: join(system.dataDir, 'events.sqlite') });
    });

    afterAll(async () => {
      for (const id of servers) await ignoreNotFound(nova.deleteServer(id)).catch(() => undefined);
      for (const id of servers)
        await eventually(
          'a test server to be gone',
          () =>
            nova.getServer(id).then(
              () => undefined,
              () => true,
            ),
          60_000,
        ).catch(() => undefined);
      for (const id of hostIds) await client.delete(`/v1/os-hosts/${id}`).catch(() => undefined);
      await store?.close();
    }, 150_000);

    it('refuses to register it with 409 and records nothing; registers it once the servers are gone', async () => {
      const serverId = await boot();
      const head = await store.headPosition();
      const refused = await client.post('/v1/os-hosts', { name: HOST });
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual(refusal(serverId));
      expect(await store.headPosition()).toBe(head);
      expect(
        (await client.get('/v1/os-hosts')).body.hosts.map((h: { hypervisor_hostname: string }) => h.hypervisor_hostname),
      ).not.toContain(HOST);

      await remove(serverId);
      const created = await client.post('/v1/os-hosts', { name: HOST });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      hostIds.push(created.body.host.id as string);
    }, 150_000);

    it('refuses to delete it with 409 while a server runs on it, the host staying registered; deletes it once the server is gone', async () => {
      const hostId = hostIds[0] ?? '';
      const serverId = await boot();
      const head = await store.headPosition();
      const refused = await client.delete(`/v1/os-hosts/${hostId}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual(refusal(serverId));
      expect(await store.headPosition()).toBe(head);
      expect((await client.get(`/v1/os-hosts/${hostId}`)).status).toBe(200);

      await remove(serverId);
      expect((await client.delete(`/v1/os-hosts/${hostId}`)).status).toBe(204);
      hostIds.length = 0;
    }, 150_000);
  });

  it('refuses a name Nova does not know with 404 and Blazar’s error body', async () => {
    const name = uniqueName('no-such-hypervisor');
    const refused = await client.post('/v1/os-hosts', { name });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error_code: 404, error_message: `Host ${name} not found in Nova`, error_name: 404 });
  });

  it('refuses a host field in the body (Nova reports them) with 400 naming it, before asking Nova', async () => {
    const refused = await client.post('/v1/os-hosts', { name: 'fake-host-1', vcpus: '2', gpu: 'true' });
    expect(refused.status).toBe(400);
    expect(refused.body.error_message).toBe("vcpus cannot be set at registration: the host's fields come from Nova");
  });

  it('refuses a body without a name with 400', async () => {
    const refused = await client.post('/v1/os-hosts', { gpu: 'true' });
    expect(refused.status).toBe(400);
    expect(refused.body.error_message).toBe('Missing parameter name');
  });

  it('answers 503 with a clear message when the cloud cannot be reached, and records nothing', async () => {
    const unreachable = await startSystem({
      apps: ['api'],
      env: cloudSystemEnv(env, { LEASEHOLD_OPENSTACK_AUTH_URL: 'http://127.0.0.1:9/v3' }),
    });
    try {
      const client503 = api(unreachable.url);
      const refused = await client503.post('/v1/os-hosts', { name: 'fake-host-1' });
      expect(refused.status).toBe(503);
      expect(refused.body.error_message).toMatch(/^Nova is unavailable, nothing was changed; try again later \(.*no answer/);
      const fip = await client503.post('/v1/floatingips', { floating_network_id: env.publicNetworkId, floating_ip_address: '172.24.4.11' });
      expect(fip.status).toBe(503);
      expect(fip.body.error_message).toMatch(/^Neutron is unavailable/);
      expect((await client503.get('/v1/os-hosts')).body.hosts).toEqual([]);
    } finally {
      await unreachable.stop();
    }
  }, 60_000);

  describe('floating IPs checked with Neutron', () => {
    const register = (address: string, network = env.publicNetworkId) =>
      client.post('/v1/floatingips', { floating_network_id: network, floating_ip_address: address });

    it('accepts an address in the public subnet outside its allocation pool, with the subnet id', async () => {
      const created = await register('172.24.4.10');
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.floatingip).toMatchObject({
        floating_network_id: env.publicNetworkId,
        floating_ip_address: '172.24.4.10',
        subnet_id: env.publicSubnetId,
      });
      expect((await client.delete(`/v1/floatingips/${created.body.floatingip.id as string}`)).status).toBe(204);
    });

    it('refuses an address inside the allocation pool (NeutronUsesFloatingIP)', async () => {
      const refused = await register('172.24.4.150');
      expect(refused.status).toBe(400);
      expect(refused.body.error_message).toBe(
        `The floating IP 172.24.4.150 is used in allocation_pools or gateway_ip in subnet ${env.publicSubnetId} .`,
      );
    });

    it('refuses the gateway (NeutronUsesFloatingIP)', async () => {
      const refused = await register('172.24.4.1');
      expect(refused.status).toBe(400);
      expect(refused.body.error_message).toContain('gateway_ip');
    });

    it('refuses an address no subnet of the network holds with 404 (FloatingIPSubnetNotFound)', async () => {
      const refused = await register('10.9.9.9');
      expect(refused.status).toBe(404);
      expect(refused.body.error_message).toBe('Valid subnet for the floating IP 10.9.9.9 is not found.');
    });

    it('refuses an unknown network with 400 (FloatingIPNetworkNotFound)', async () => {
      const network = '00000000-0000-4000-8000-000000000000';
      const refused = await register('172.24.4.10', network);
      expect(refused.status).toBe(400);
      expect(refused.body.error_message).toBe(`Network ${network} not found`);
    });

    it('refuses a pool address of another network’s subnet only by that subnet (private network 10.0.0.0/24)', async () => {
      const refused = await register('172.24.4.10', env.privateNetworkId);
      expect(refused.status).toBe(404);
    });
  });
});
