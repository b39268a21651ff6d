/**
 * Issue 5 item 8 for floating IPs, through the whole system on the real cloud (api + projector +
 * reactor, LEASEHOLD_CLOUD=openstack): an address registered through Blazar's API (checked with
 * Neutron) and leased for project demo exists in Neutron, in demo's project and tagged with the
 * reservation, exactly while the lease is active; ending the lease early releases it, and the address
 * can be leased again. The API runs in auth mode `none` as demo's project (LEASEHOLD_DEFAULT_PROJECT_ID).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floatingIpReservationTag } from '#plugins/floating-ip/openstack/floating-ip.openstack-effects.js';
import { type FloatingIp, NeutronClient, ignoreNotFound } from '#plugins/openstack/index.js';
import { ledgerEvents } from '../../helpers/api-fixtures.js';
import { api, blazarDate, floatingIpReservation } from '../../helpers/http.js';
import { type RunningSystem, startSystem } from '../../helpers/system.js';
import { OPENSTACK_ENV_FILE, cloudSystemEnv, eventually, openStackEnv, sessionFor, uniqueName } from './openstack.fixtures.js';

describe.skipIf(!OPENSTACK_ENV_FILE)(
  'a floating IP leased through the API exists in Neutron exactly during the lease (api + projector + reactor)',
  () => {
    const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
    const neutron = OPENSTACK_ENV_FILE ? new NeutronClient(sessionFor(env.admin)) : (undefined as never);
    let system: RunningSystem;
    let client: ReturnType<typeof api>;
    let address = '';
    let floatingIpId = '';

    const inNeutron = async (): Promise<readonly FloatingIp[]> =>
      neutron.listFloatingIps({ floating_network_id: env.publicNetworkId, floating_ip_address: address });

    const leaseStatus = async (leaseId: string): Promise<string> => (await client.get(`/v1/leases/${leaseId}`)).body.lease.status;

    beforeAll(async () => {
      // in the subnet, outside its allocation pool (.100-.200), held by nobody now
      const prefix = env.publicSubnetCidr.split('.').slice(0, 3).join('.');
      const taken = new Set(
        (await neutron.listFloatingIps({ floating_network_id: env.publicNetworkId })).map((f) => f.floating_ip_address),
      );
      const candidates = Array.from({ length: 97 }, (_, n) => `${prefix}.${n + 2}`).filter((a) => !taken.has(a));
      address = candidates[Math.floor(Math.random() * candidates.length)] ?? '';
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
      // whatever a failure left behind: only addresses a reservation made
      for (const fip of await inNeutron().catch(() => [])) {
        if (fip.description.startsWith('reservation:')) await ignoreNotFound(neutron.deleteFloatingIp(fip.id)).catch(() => undefined);
      }
    });

    it('registers the address after Neutron confirms it lies in a subnet, outside its pools', async () => {
      const created = await client.post('/v1/floatingips', { floating_network_id: env.publicNetworkId, floating_ip_address: address });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      floatingIpId = created.body.floatingip.id;
      // registering only records it: nothing exists in Neutron before a lease starts
      expect(await inNeutron()).toEqual([]);
    });

    it(
      "creates the address in demo's project at the start, tagged with the reservation, and releases it at the end",
      { timeout: 120_000 },
      async () => {
        const created = await client.post('/v1/leases', {
          name: uniqueName('lh-fip-lease'),
          start_date: 'now',
          end_date: blazarDate(60),
          reservations: [floatingIpReservation(env.publicNetworkId, 1, [address])],
          events: [],
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const leaseId: string = created.body.lease.id;
        const reservationId: string = created.body.lease.reservations[0].id;
        await eventually('the lease ACTIVE', async () => ((await leaseStatus(leaseId)) === 'ACTIVE' ? true : undefined), 60_000);

        const [fip, ...more] = await inNeutron();
        expect(more).toEqual([]);
        expect(fip).toMatchObject({
          project_id: env.demoProjectId,
          floating_ip_address: address,
          description: `reservation:${reservationId}`,
        });
        expect(fip?.tags).toContain(floatingIpReservationTag(reservationId));

        const ended = await client.put(`/v1/leases/${leaseId}`, { end_date: 'now' });
        expect(ended.status, JSON.stringify(ended.body)).toBe(200);
        await eventually('the lease TERMINATED', async () => ((await leaseStatus(leaseId)) === 'TERMINATED' ? true : undefined), 60_000);
        expect(await inNeutron()).toEqual([]);
        const outcomes = ledgerEvents(system.dataDir, `lease-${leaseId}`).filter((e) => e.type.startsWith('Reservation.Effects'));
        expect(outcomes.filter((e) => e.type !== 'Reservation.EffectsApplied')).toEqual([]);
        expect(outcomes.map((e) => e.data.phase)).toEqual(expect.arrayContaining(['start', 'end']));
      },
    );

    it('the released address can be leased again, and unregistered once free', { timeout: 60_000 }, async () => {
      const again = await client.post('/v1/leases', {
        name: uniqueName('lh-fip-again'),
        start_date: blazarDate(120),
        end_date: blazarDate(180),
        reservations: [floatingIpReservation(env.publicNetworkId, 1, [address])],
        events: [],
      });
      expect(again.status, JSON.stringify(again.body)).toBe(201);
      expect((await client.delete(`/v1/leases/${again.body.lease.id}`)).status).toBe(204);
      const deleted = await client.delete(`/v1/floatingips/${floatingIpId}`);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    });
  },
);
