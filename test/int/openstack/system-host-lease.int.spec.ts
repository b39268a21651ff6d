/**
 * The whole system on the real cloud (LEASEHOLD_CLOUD=openstack): api + projector + reactor. A host
 * registered through Blazar's API is read from Nova and enrolled in a freepool by the reactor; a host
 * lease made through the API moves it into the reservation's aggregate at the start and back at the
 * end (checked through Nova's API); unregistering takes it out of the freepool again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NovaClient, PlacementClient, ignoreNotFound } from '#plugins/openstack/index.js';
import { api } from '../../helpers/http.js';
import { type RunningSystem, startSystem } from '../../helpers/system.js';
import {
  OPENSTACK_ENV_FILE,
  aggregateMembers,
  cloudSystemEnv,
  emptyChildProvider,
  eventually,
  openStackEnv,
  sessionFor,
  uniqueName,
} from './openstack.fixtures.js';

/** fake-host-1 is also reserved by the effects tests, which run before or after this file, never at the same time. */
const HOST = 'fake-host-1';

describe.skipIf(!OPENSTACK_ENV_FILE)('a host lease through the API on the real Nova (api + projector + reactor)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const nova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
  const placement = OPENSTACK_ENV_FILE ? new PlacementClient(sessionFor(env.admin)) : (undefined as never);
  // a freepool of this test's own, so the other tests' aggregates are never touched
  const freepool = uniqueName('lh-e2e-freepool');
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  let hostId = '';
  let reservationId = '';

  const members = (name: string): Promise<readonly string[] | null> => aggregateMembers(nova, name);

  beforeAll(async () => {
    system = await startSystem({
      env: {
        ...cloudSystemEnv(env),
        LEASEHOLD_FREEPOOL_NAME: freepool,
        LEASEHOLD_HOST_POLLING_SECONDS: '0',
        LEASEHOLD_RECONCILE_SECONDS: '0',
      },
    });
    client = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
    // whatever a failure left behind: the reservation's aggregate and trait, this test's freepool, the child provider
    for (const name of [`reservation-${reservationId}`, freepool]) {
      const found = await nova.findAggregate(name).catch(() => null);
      if (found === null) continue;
      for (const member of found.hosts) await ignoreNotFound(nova.removeAggregateHost(found.id, member)).catch(() => undefined);
      await ignoreNotFound(nova.deleteAggregate(found.id)).catch(() => undefined);
    }
    await emptyChildProvider(placement, HOST).catch(() => undefined);
  });

  it('registers the host from Nova and the reactor enrolls it in the freepool', { timeout: 90_000 }, async () => {
    const created = await client.post('/v1/os-hosts', { name: HOST, rack: 'r1' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const [hypervisor] = (await nova.listHypervisors()).filter((h) => h.hypervisor_hostname === HOST);
    expect(created.body.host).toMatchObject({
      hypervisor_hostname: HOST,
      vcpus: hypervisor?.vcpus,
      memory_mb: hypervisor?.memory_mb,
      rack: 'r1',
    });
    hostId = created.body.host.id;
    await eventually(
      'the host in the freepool',
      async () => ((await members(freepool))?.includes(HOST) === true ? true : undefined),
      60_000,
    );
    expect(await placement.findResourceProvider(`blazar_${HOST}`)).not.toBeNull();
  });

  it('a lease made through the API moves the host into its aggregate at the start and back at the end', { timeout: 150_000 }, async () => {
    const end = new Date(Date.now() + 3_600_000).toISOString().slice(0, 16).replace('T', ' ');
    const created = await client.post('/v1/leases', {
      name: uniqueName('lh-e2e-lease'),
      start_date: 'now',
      end_date: end,
      reservations: [
        { resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '["==", "$rack", "r1"]' },
      ],
      events: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const leaseId: string = created.body.lease.id;
    reservationId = created.body.lease.reservations[0].id;
    expect(created.body.lease.reservations[0].end_action).toBe('delete_servers_on_hosts');

    const active = await eventually(
      'the lease ACTIVE',
      async () => {
        const lease = (await client.get(`/v1/leases/${leaseId}`)).body.lease;
        return lease.status === 'ACTIVE' ? lease : undefined;
      },
      90_000,
    );
    expect(active.reservations[0].status).toBe('active');
    expect(await members(`reservation-${reservationId}`)).toEqual([HOST]);
    expect(await members(freepool)).not.toContain(HOST);

    const ended = await client.put(`/v1/leases/${leaseId}`, { end_date: 'now' });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    await eventually(
      'the lease TERMINATED',
      async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'TERMINATED' ? true : undefined),
      90_000,
    );
    expect(await members(freepool)).toContain(HOST);
    expect(await members(`reservation-${reservationId}`)).toBeNull();
  });

  it(
    'unregistering the host takes it out of the freepool and empties its child provider, which stays for nova-compute',
    { timeout: 90_000 },
    async () => {
      const deleted = await client.delete(`/v1/os-hosts/${hostId}`);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
      await eventually(
        'the host out of the freepool',
        async () => ((await members(freepool))?.includes(HOST) === false ? true : undefined),
        60_000,
      );
      const child = await eventually(
        'the child provider without the freepool trait',
        async () => {
          const found = await placement.findResourceProvider(`blazar_${HOST}`);
          return found !== null && !(await placement.getProviderTraits(found.uuid)).traits.includes('CUSTOM_BLAZAR_FREEPOOL')
            ? found
            : undefined;
        },
        30_000,
      );
      expect((await placement.getInventories(child.uuid)).inventories).toEqual({});
    },
  );
});
