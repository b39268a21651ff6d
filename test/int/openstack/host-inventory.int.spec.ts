/**
 * Host and floating-IP registration through the built API with LEASEHOLD_CLOUD=openstack: a host's facts
 * come from the real Nova, a floating IP is checked against the real Neutron. Nothing here changes the
 * cloud (enrollment is the reactor's, see host-enrollment.int.spec.ts), so no reactor runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NovaClient } from '../../../libs/plugins/src/openstack/index.js';
import { api } from '../../helpers/http.js';
import { type RunningSystem, startSystem } from '../../helpers/system.js';
import { OPENSTACK_ENV_FILE, type OpenStackTestEnv, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

/** What the API needs to act as Leasehold's service user on this cloud. */
const openStackApiEnv = (env: OpenStackTestEnv, overrides: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  LEASEHOLD_CLOUD: 'openstack',
  LEASEHOLD_OPENSTACK_AUTH_URL: env.service.authUrl,
  LEASEHOLD_OPENSTACK_USERNAME: env.service.username,
  LEASEHOLD_OPENSTACK_PASSWORD: env.service.password,
  LEASEHOLD_OPENSTACK_PROJECT_NAME: env.service.projectName,
  LEASEHOLD_OPENSTACK_REGION_NAME: env.service.regionName ?? '',
  ...overrides,
});

describe.skipIf(!OPENSTACK_ENV_FILE)('host and floating-IP registration against the real Nova and Neutron', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  let system: RunningSystem;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    system = await startSystem({ apps: ['api', 'projector'], env: openStackApiEnv(env) });
    client = api(system.url);
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('registers fake-host-1 with what Nova reports: vcpus, memory, disk, type, version, cpu info, service host and zone', async () => {
    const hypervisor = await new NovaClient(sessionFor(env.admin)).findHypervisor('fake-host-1');
    const created = await client.post('/v1/os-hosts', { name: 'fake-host-1', vcpus: '2', gpu: 'true' });
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
      // every key but the name is an extra capability, as upstream: `vcpus` in the body does not override Nova's
      gpu: 'true',
    });
    expect(JSON.parse(created.body.host.cpu_info as string)).toEqual(hypervisor?.cpu_info);
    expect(created.body.host.vcpus).toBeGreaterThan(2);
    const shown = await client.get(`/v1/os-hosts/${created.body.host.id as string}`);
    expect(shown.body.host).toMatchObject({ vcpus: hypervisor?.vcpus, availability_zone: 'nova' });
    expect((await client.delete(`/v1/os-hosts/${created.body.host.id as string}`)).status).toBe(204);
  });

  it('refuses a name Nova does not know with 404 and Blazar’s error body', async () => {
    const name = uniqueName('no-such-hypervisor');
    const refused = await client.post('/v1/os-hosts', { name });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error_code: 404, error_message: `Host ${name} not found in Nova`, error_name: 404 });
  });

  it('refuses a body without a name with 400', async () => {
    const refused = await client.post('/v1/os-hosts', { gpu: 'true' });
    expect(refused.status).toBe(400);
    expect(refused.body.error_message).toBe('Missing parameter name');
  });

  it('answers 503 with a clear message when the cloud cannot be reached, and records nothing', async () => {
    const unreachable = await startSystem({ apps: ['api'], env: openStackApiEnv(env, { LEASEHOLD_OPENSTACK_AUTH_URL: 'http://127.0.0.1:9/v3' }) });
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
      expect(refused.body.error_message).toBe(`The floating IP 172.24.4.150 is used in allocation_pools or gateway_ip in subnet ${env.publicSubnetId} .`);
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
