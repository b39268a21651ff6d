/**
 * Healing on the real cloud, through the whole system (api + projector + reactor, LEASEHOLD_CLOUD=
 * openstack): two fake computes are registered through the API and enrolled in a freepool; an active
 * host lease holds one of them; forcing that compute down in Nova makes Nova emit service.update, the
 * reactor's consumer records Host.WentDown, the API's healing pass replaces the host in the
 * reservation, and the reactor moves the replacement into the reservation's aggregate and the failed
 * host back into the freepool (checked through Nova's API). The computes are restored in afterAll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NovaClient, PlacementClient, ignoreNotFound } from '../../../libs/plugins/src/openstack/index.js';
import { ledgerEvents } from '../../helpers/api-fixtures.js';
import { api } from '../../helpers/http.js';
import { type RunningSystem, startSystem } from '../../helpers/system.js';
import { OPENSTACK_ENV_FILE, eventually, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

/** Also used by other test files, which run before or after this one, never at the same time. */
const HOSTS = ['fake-host-2', 'fake-host-3'];

describe.skipIf(!OPENSTACK_ENV_FILE)('healing a host lease when Nova reports its compute down (api + projector + reactor)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const nova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
  const placement = OPENSTACK_ENV_FILE ? new PlacementClient(sessionFor(env.admin)) : (undefined as never);
  const freepool = uniqueName('lh-heal-freepool');
  const pool = uniqueName('heal');
  const hostIds: Record<string, string> = {};
  const forced: string[] = [];
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  let reservationId = '';

  const members = async (name: string): Promise<readonly string[] | null> => (await nova.findAggregate(name))?.hosts ?? null;

  beforeAll(async () => {
    system = await startSystem({
      env: {
        LEASEHOLD_CLOUD: 'openstack',
        LEASEHOLD_OPENSTACK_AUTH_URL: env.service.authUrl,
        LEASEHOLD_OPENSTACK_USERNAME: env.service.username,
        LEASEHOLD_OPENSTACK_PASSWORD: env.service.password,
        LEASEHOLD_OPENSTACK_PROJECT_NAME: env.service.projectName,
        LEASEHOLD_OPENSTACK_REGION_NAME: env.service.regionName ?? '',
        LEASEHOLD_FREEPOOL_NAME: freepool,
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
    // whatever a failure left behind: the reservation's aggregate, this test's freepool, the child providers
    for (const name of [`reservation-${reservationId}`, freepool]) {
      const found = await nova.findAggregate(name).catch(() => null);
      if (found === null) continue;
      for (const member of found.hosts) await ignoreNotFound(nova.removeAggregateHost(found.id, member)).catch(() => undefined);
      await ignoreNotFound(nova.deleteAggregate(found.id)).catch(() => undefined);
    }
    for (const host of HOSTS) {
      const child = await placement.findResourceProvider(`blazar_${host}`).catch(() => null);
      if (child !== null) await ignoreNotFound(placement.deleteResourceProvider(child.uuid)).catch(() => undefined);
    }
  });

  it('registers both computes and the reactor enrolls them', { timeout: 90_000 }, async () => {
    for (const host of HOSTS) {
      const created = await client.post('/v1/os-hosts', { name: host, pool });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      hostIds[host] = created.body.host.id;
    }
    await eventually('both hosts in the freepool', async () => {
      const current = (await members(freepool)) ?? [];
      return HOSTS.every((h) => current.includes(h)) ? true : undefined;
    }, 60_000);
  });

  it('moves the lease to the other compute when its compute is forced down, and the failed one back to the freepool', { timeout: 150_000 }, async () => {
    const end = new Date(Date.now() + 3_600_000).toISOString().slice(0, 16).replace('T', ' ');
    const created = await client.post('/v1/leases', {
      name: uniqueName('lh-heal-lease'),
      start_date: 'now',
      end_date: end,
      reservations: [{ resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: JSON.stringify(['==', '$pool', pool]) }],
      events: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const leaseId: string = created.body.lease.id;
    reservationId = created.body.lease.reservations[0].id;
    const aggregate = `reservation-${reservationId}`;
    await eventually('the lease ACTIVE', async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'ACTIVE' ? true : undefined), 90_000);
    const [held] = (await members(aggregate)) ?? [];
    const other = HOSTS.find((h) => h !== held);
    expect(held !== undefined && other !== undefined).toBe(true);

    const [service] = await nova.listServices({ binary: 'nova-compute', host: held });
    if (service === undefined) throw new Error(`no nova-compute on ${held}`);
    forced.push(service.id);
    await nova.updateService(service.id, { forced_down: true });

    await eventually('the replacement in the aggregate, the failed host in the freepool', async () => {
      const [inAggregate, inFreepool] = [await members(aggregate), await members(freepool)];
      return inAggregate?.length === 1 && inAggregate[0] === other && inFreepool?.includes(held ?? '') === true ? true : undefined;
    }, 60_000);
    const lease = (await client.get(`/v1/leases/${leaseId}`)).body.lease;
    expect(lease).toMatchObject({ status: 'ACTIVE', degraded: true });
    expect(lease.reservations[0]).toMatchObject({ status: 'active', resources_changed: true, missing_resources: false });
    // the log's account: the host went down (from Nova's notification), the reservation was healed, the cloud caught up
    const downEvents = ledgerEvents(system.dataDir, `host-${hostIds[held ?? '']}`).filter((e) => e.type === 'Host.WentDown');
    expect(downEvents[0]?.data).toMatchObject({ reasons: ['forced_down'], source: 'notification' });
    const types = ledgerEvents(system.dataDir, `lease-${leaseId}`).map((e) => e.type);
    expect(types.slice(types.indexOf('Reservation.Healed'))).toEqual(['Reservation.Healed', 'Reservation.UpdateApplied']);

    await nova.updateService(service.id, { forced_down: false });
    const ended = await client.put(`/v1/leases/${leaseId}`, { end_date: 'now' });
    expect(ended.status, JSON.stringify(ended.body)).toBe(200);
    await eventually('the lease TERMINATED', async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'TERMINATED' ? true : undefined), 90_000);
    expect([...((await members(freepool)) ?? [])].sort()).toEqual([...HOSTS].sort());
    expect(await members(aggregate)).toBeNull();
  });

  it('unregisters both computes', { timeout: 90_000 }, async () => {
    for (const host of HOSTS) {
      const deleted = await client.delete(`/v1/os-hosts/${hostIds[host]}`);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    }
    await eventually('the hosts out of the freepool', async () => (((await members(freepool)) ?? []).length === 0 ? true : undefined), 60_000);
  });
});
