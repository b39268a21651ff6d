/**
 * virtual:instance and flavor:instance reservations through HTTP against the running system: slots
 * carved from reservable hosts (capacity x allocation ratios), affinity placements, exclusion of
 * whole-host bookings (with the cleaning time), update rules before and after the start, the
 * reactor's work at the start and on an amount increase, and leases mixing every type admitted
 * whole or not at all. Every refused write is also checked to leave the ledger as it was.
 *
 * Hosts are grouped by an extra capability `pool` that the reservations query, and every test uses
 * its own day, so tests do not see each other's bookings.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INSTANCE_RESERVATION_KEYS, TIMESTAMP, UUID, addMinutes, ledgerEvents, pinnedHost, tDate } from '../helpers/api-fixtures.js';
import { type InstanceSize, api, blazarDate, floatingIpReservation, instanceReservation } from '../helpers/http.js';
import { type Client, blazarError, describeBody, leaseClient } from '../helpers/lease-client.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

/** `2033-02-DD HH:MM`: each test books its own day. */
const on = (day: number, time: string): string => `2033-02-${String(day).padStart(2, '0')} ${time}`;

const pool = (name: string): string => JSON.stringify(['==', '$pool', name]);

const SMALL: InstanceSize = { vcpus: 1, memory_mb: 1024, disk_gb: 10 };
const MEDIUM: InstanceSize = { vcpus: 2, memory_mb: 2048, disk_gb: 20 };

const MAX_AMOUNT_MESSAGE = 'Malformed parameter amount (must be between 1 and 2147483647)';
const AFFINITY_MESSAGE = 'Malformed parameter affinity (must be a bool value or None)';

const slotShortage = (available: number, matching: number, requested: number): string =>
  `Not enough hosts available: ${available} such instance(s) fit on the ${matching} matching host(s) for the whole lease, ${requested} requested`;
const noHostOfThatSize = (requested: number): string =>
  `Not enough hosts available: no reservable host matches the requested properties and size for the whole lease, ${requested} requested`;
const hostShortage = (matching: number, free: number, requested: number): string =>
  `Not enough hosts available: ${matching} reservable host${matching === 1 ? ' matches' : 's match'} the requested properties and ${free} of them ${free === 1 ? 'is' : 'are'} free for the whole lease (cleaning time included), ${requested} requested (min)`;

/** Helpers bound to one running system. */
const bind = (system: () => RunningSystem, client: () => Client) => {
  const hostIds: Record<string, string> = {};
  const hostNames: Record<string, string> = {};

  const { rejected, createLease, refusedLease, showLease, updateLease, refusedUpdate } = leaseClient(system, client);

  const registerHost = async (
    name: string,
    capacity: { vcpus: number; memory_mb: number; local_gb: number },
    poolName: string,
  ): Promise<void> => {
    const response = await client().post('/v1/os-hosts', { name, ...capacity, pool: poolName });
    expect(response.status, describeBody(response)).toBe(201);
    hostIds[name] = response.body.host.id;
    hostNames[response.body.host.id] = name;
  };

  /** Names of the hosts holding the reservation, in host id order, from GET /v1/os-hosts/allocations. */
  const hostsOf = async (reservationId: string): Promise<string[]> => {
    const response = await client().get(`/v1/os-hosts/allocations?reservation_id=${reservationId}`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.allocations
      .filter((a: { reservations: unknown[] }) => a.reservations.length > 0)
      .map((a: { resource_id: string }) => hostNames[a.resource_id] ?? `unknown host ${a.resource_id}`);
  };

  /** Every allocation (of leases not yet ended) whose window starts on the given request date's day. */
  const allocationsOnDay = async (path: string, requestDate: string): Promise<unknown[]> => {
    const response = await client().get(path);
    expect(response.status, describeBody(response)).toBe(200);
    const day = requestDate.slice(0, 10);
    return response.body.allocations.flatMap((a: { reservations: { start_date: string }[] }) =>
      a.reservations.filter((r) => r.start_date.startsWith(day)),
    );
  };

  return { hostIds, rejected, registerHost, createLease, refusedLease, showLease, updateLease, refusedUpdate, hostsOf, allocationsOnDay };
};

const BIG = { vcpus: 4, memory_mb: 8192, local_gb: 100 };

describe('instance reservations (api + projector + reactor, default configuration)', () => {
  let system: RunningSystem;
  let client: Client;
  const { hostIds, rejected, registerHost, createLease, refusedLease, showLease, updateLease, refusedUpdate, hostsOf, allocationsOnDay } =
    bind(
      () => system,
      () => client,
    );

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
    // registration order = host id order, which placement ties are broken by
    for (const name of ['crud-1', 'crud-2']) await registerHost(name, BIG, 'crud');
    for (const name of ['aff-1', 'aff-2', 'aff-3']) await registerHost(name, BIG, 'aff');
    await registerHost('cap-1', { vcpus: 4, memory_mb: 4096, local_gb: 40 }, 'cap');
    await registerHost('excl-1', BIG, 'excl');
    for (const name of ['act-1', 'act-2']) await registerHost(name, BIG, 'act');
    for (const name of ['mix-1', 'mix-2']) await registerHost(name, BIG, 'mix');
    await registerHost('nr-1', BIG, 'nr');
    const hidden = await client.put(`/v1/os-hosts/${hostIds['nr-1']}`, { reservable: false });
    expect(hidden.status, describeBody(hidden)).toBe(200);
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
  });

  describe('virtual:instance: create, show, list, delete', () => {
    let lease: any;

    it("POST: 201, the reservation with exactly upstream's instance fields in their order; slots packed on one host", async () => {
      const start = on(1, '10:00');
      const end = on(1, '12:00');
      lease = await createLease('inst-crud', start, end, [instanceReservation(2, MEDIUM, { resource_properties: pool('crud') })]);
      expect(lease).toMatchObject({ name: 'inst-crud', status: 'PENDING', start_date: tDate(start), end_date: tDate(end) });
      const [reservation] = lease.reservations;
      expect(Object.keys(reservation)).toEqual(INSTANCE_RESERVATION_KEYS);
      expect(reservation).toEqual({
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.toSatisfy((v: unknown) => v === null || (typeof v === 'string' && TIMESTAMP.test(v)), 'null or a timestamp'),
        id: expect.stringMatching(UUID),
        lease_id: lease.id,
        resource_id: expect.stringMatching(UUID),
        resource_type: 'virtual:instance',
        status: 'pending',
        missing_resources: false,
        resources_changed: false,
        vcpus: 2,
        memory_mb: 2048,
        disk_gb: 20,
        amount: 2,
        affinity: null,
        resource_properties: '["==","$pool","crud"]',
        flavor_id: reservation.id,
        aggregate_id: null,
        server_group_id: null,
        end_action: 'delete_servers_using_flavor',
      });
      expect(reservation.resource_id).not.toBe(reservation.id);
      // two 2-vcpu instances fill the first 4-vcpu host
      expect(await hostsOf(reservation.id)).toEqual(['crud-1']);
      const allocation = await client.get(`/v1/os-hosts/${hostIds['crud-1']}/allocation?reservation_id=${reservation.id}`);
      expect(allocation.body.allocation).toEqual({
        resource_id: hostIds['crud-1'],
        // upstream's four keys, then what the slots take on this host
        reservations: [
          {
            id: reservation.id,
            lease_id: lease.id,
            start_date: tDate(start),
            end_date: tDate(end),
            slots: 2,
            vcpus: 4,
            memory_mb: 4096,
            disk_gb: 40,
          },
        ],
      });
    });

    it('GET shows the same lease (fields in the same order); GET /v1/leases lists it', async () => {
      const shown = await showLease(lease.id);
      expect(shown).toEqual(lease);
      expect(Object.keys(shown.reservations[0])).toEqual(INSTANCE_RESERVATION_KEYS);
      const listed = await client.get('/v1/leases');
      expect(listed.status).toBe(200);
      expect(listed.body.leases.find((l: { id: string }) => l.id === lease.id)).toEqual(lease);
    });

    it("the allocations of leases not yet ended include the instance slots' host", async () => {
      const response = await client.get('/v1/os-hosts/allocations');
      const entry = response.body.allocations.find((a: { resource_id: string }) => a.resource_id === hostIds['crud-1']);
      expect(entry.reservations).toContainEqual({
        id: lease.reservations[0].id,
        lease_id: lease.id,
        start_date: tDate(on(1, '10:00')),
        end_date: tDate(on(1, '12:00')),
        slots: 2,
        vcpus: 4,
        memory_mb: 4096,
        disk_gb: 40,
      });
    });

    it('DELETE: 204, then 404; the slots are free: the host can be reserved whole for that window', async () => {
      await refusedLease('inst-crud-host', on(1, '10:00'), on(1, '12:00'), [pinnedHost('crud-1')], 409, hostShortage(1, 0, 1));
      const deleted = await client.delete(`/v1/leases/${lease.id}`);
      expect(deleted.status, describeBody(deleted)).toBe(204);
      const gone = await client.get(`/v1/leases/${lease.id}`);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(blazarError(404, `Object with {'lease_id': '${lease.id}'} not found`));
      expect(await hostsOf(lease.reservations[0].id)).toEqual([]);
      const whole = await createLease('inst-crud-host', on(1, '10:00'), on(1, '12:00'), [pinnedHost('crud-1')]);
      expect(await hostsOf(whole.reservations[0].id)).toEqual(['crud-1']);
    });
  });

  describe('virtual:instance: refused requests (400), nothing written', () => {
    const refuse = (reservation: Record<string, unknown>, message: string) =>
      refusedLease('inst-bad', on(2, '10:00'), on(2, '12:00'), [reservation], 400, message);
    const valid = instanceReservation(1, SMALL, { resource_properties: pool('crud') });
    const without = (key: string): Record<string, unknown> => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key));

    it.each(['vcpus', 'memory_mb', 'disk_gb', 'amount'])('without %s: Missing parameter', async (key) => {
      await refuse(without(key), `Missing parameter ${key}`);
    });

    it('amount 0 or beyond 2^31-1, vcpus 0, memory_mb 0, disk_gb -1, a non-integer: Malformed parameter', async () => {
      await refuse({ ...valid, amount: 0 }, MAX_AMOUNT_MESSAGE);
      await refuse({ ...valid, amount: 2 ** 31 }, MAX_AMOUNT_MESSAGE);
      await refuse({ ...valid, vcpus: 0 }, 'Malformed parameter vcpus (must be an integer >= 1)');
      await refuse({ ...valid, memory_mb: 0 }, 'Malformed parameter memory_mb (must be an integer >= 1)');
      await refuse({ ...valid, disk_gb: -1 }, 'Malformed parameter disk_gb (must be an integer >= 0)');
      await refuse({ ...valid, vcpus: 1.5 }, 'Malformed parameter vcpus');
      await refuse({ ...valid, memory_mb: 'lots' }, 'Malformed parameter memory_mb');
    });

    it('resource_properties that are not a query: Malformed requirements / Malformed parameter', async () => {
      await refuse({ ...valid, resource_properties: 'pool=crud' }, 'Malformed requirements pool=crud');
      await refuse({ ...valid, resource_properties: '["==", "$pool", 1]' }, "Malformed requirements ['==', '$pool', 1]");
      await refuse({ ...valid, resource_properties: 5 }, 'Malformed parameter resource_properties');
    });

    it('affinity other than true/false/null/"True"/"False"/"None": Malformed parameter affinity', async () => {
      for (const affinity of ['maybe', 1, 'yes', []]) await refuse({ ...valid, affinity }, AFFINITY_MESSAGE);
    });
  });

  describe('flavor:instance', () => {
    let lease: any;

    it('POST /v1/flavors (admin): the catalog flavors the reservations name', async () => {
      const medium = await client.post('/v1/flavors', {
        flavor: {
          id: 'lh-medium',
          name: 'lh.medium',
          vcpus: 2,
          ram: 4096,
          disk: 30,
          'OS-FLV-EXT-DATA:ephemeral': 10,
          extra_specs: { 'hw_rng:allowed': 'True' },
        },
      });
      expect(medium.status, describeBody(medium)).toBe(201);
      const small = await client.post('/v1/flavors', { flavor: { id: '3', name: 'm1.small', vcpus: 1, ram: 2048, disk: 20 } });
      expect(small.status, describeBody(small)).toBe(201);
    });

    it('POST: sizes copied from the flavor (disk = disk + ephemeral), resource_properties = json.dumps of the Nova flavor', async () => {
      const start = on(3, '10:00');
      lease = await createLease('flv', start, on(3, '12:00'), [
        { resource_type: 'flavor:instance', flavor_id: 'lh-medium', amount: 2 },
        // what python-blazarclient sends for flavor_id=3: an integer, and affinity "None"
        { resource_type: 'flavor:instance', flavor_id: 3, amount: 1, affinity: 'None' },
      ]);
      const [medium, small] = lease.reservations;
      expect(Object.keys(medium)).toEqual(INSTANCE_RESERVATION_KEYS);
      expect(medium).toMatchObject({
        lease_id: lease.id,
        resource_type: 'flavor:instance',
        status: 'pending',
        missing_resources: false,
        resources_changed: false,
        vcpus: 2,
        memory_mb: 4096,
        disk_gb: 40,
        amount: 2,
        affinity: null,
        resource_properties:
          '{"id": "lh-medium", "name": "lh.medium", "ram": 4096, "disk": 30, "swap": "", "OS-FLV-EXT-DATA:ephemeral": 10, "OS-FLV-DISABLED:disabled": false, "vcpus": 2, "os-flavor-access:is_public": true, "rxtx_factor": 1.0, "extra_specs": {"hw_rng:allowed": "True"}}',
        flavor_id: medium.id,
        aggregate_id: null,
        server_group_id: null,
      });
      expect(small).toMatchObject({
        resource_type: 'flavor:instance',
        vcpus: 1,
        memory_mb: 2048,
        disk_gb: 20,
        amount: 1,
        affinity: null,
        resource_properties:
          '{"id": "3", "name": "m1.small", "ram": 2048, "disk": 20, "swap": "", "OS-FLV-EXT-DATA:ephemeral": 0, "OS-FLV-DISABLED:disabled": false, "vcpus": 1, "os-flavor-access:is_public": true, "rxtx_factor": 1.0, "extra_specs": {}}',
        flavor_id: small.id,
      });
      // no property query: any reservable host; the first host takes both 2-vcpu instances, the next one the third
      expect(await hostsOf(medium.id)).toEqual(['crud-1']);
      expect(await hostsOf(small.id)).toEqual(['crud-2']);
      expect(await showLease(lease.id)).toEqual(lease);
    });

    it("resource_properties is exactly Python's json.dumps: non-ASCII escaped, floats with a decimal point, swap as a number, a private flavor", async () => {
      const odd = await client.post('/v1/flavors', {
        flavor: {
          id: 'lh-odd',
          name: 'größer',
          vcpus: 1,
          ram: 512,
          disk: 1,
          swap: 512,
          rxtx_factor: 2.5,
          'os-flavor-access:is_public': false,
          extra_specs: { 'quota:cpu_shares': '1024' },
        },
      });
      expect(odd.status, describeBody(odd)).toBe(201);
      const lease = await createLease('flv-odd', on(23, '10:00'), on(23, '12:00'), [
        { resource_type: 'flavor:instance', flavor_id: 'lh-odd', amount: 1 },
      ]);
      expect(lease.reservations[0]).toMatchObject({
        vcpus: 1,
        memory_mb: 512,
        disk_gb: 1,
        resource_properties:
          '{"id": "lh-odd", "name": "gr\\u00f6\\u00dfer", "ram": 512, "disk": 1, "swap": 512, "OS-FLV-EXT-DATA:ephemeral": 0, "OS-FLV-DISABLED:disabled": false, "vcpus": 1, "os-flavor-access:is_public": false, "rxtx_factor": 2.5, "extra_specs": {"quota:cpu_shares": "1024"}}',
      });
    });

    it('an unknown flavor: 400 Flavor <id> could not be found.; missing flavor_id or amount: 400', async () => {
      const refuse = (reservation: Record<string, unknown>, message: string) =>
        refusedLease('flv-bad', on(3, '13:00'), on(3, '14:00'), [reservation], 400, message);
      await refuse({ resource_type: 'flavor:instance', flavor_id: 'nope', amount: 1 }, 'Flavor nope could not be found.');
      await refuse({ resource_type: 'flavor:instance', flavor_id: 42, amount: 1 }, 'Flavor 42 could not be found.');
      await refuse({ resource_type: 'flavor:instance', amount: 1 }, 'Missing parameter flavor_id');
      await refuse({ resource_type: 'flavor:instance', flavor_id: 'lh-medium' }, 'Missing parameter amount');
      await refuse({ resource_type: 'flavor:instance', flavor_id: 'lh-medium', amount: 0 }, MAX_AMOUNT_MESSAGE);
      await refuse({ resource_type: 'flavor:instance', flavor_id: 'lh-medium', amount: 1, affinity: 'maybe' }, AFFINITY_MESSAGE);
    });

    it('more instances than fit: 409 with the counts', async () => {
      // lh.medium (2 vcpus, 4096 MB, 40 GB): 2 on each 8 GB host, 1 on cap-1; 11 hosts, none used that day
      await refusedLease(
        'flv-big',
        on(4, '10:00'),
        on(4, '12:00'),
        [{ resource_type: 'flavor:instance', flavor_id: 'lh-medium', amount: 22 }],
        409,
        slotShortage(21, 11, 22),
      );
    });

    it('update before the start: amount changes; the same flavor_id is accepted; another flavor_id 409; instance sizes 400', async () => {
      const [medium] = lease.reservations;
      const updated = await updateLease(lease.id, { reservations: [{ id: medium.id, amount: 1, flavor_id: 'lh-medium' }] });
      expect(updated.reservations[0]).toMatchObject({ id: medium.id, amount: 1, vcpus: 2, memory_mb: 4096, disk_gb: 40 });
      expect(await hostsOf(medium.id)).toEqual(['crud-1']);

      await refusedUpdate(
        lease.id,
        { reservations: [{ id: medium.id, flavor_id: '3' }] },
        409,
        'flavor_id cannot be updated; make a new reservation for another flavor',
      );
      for (const [field, value] of [
        ['vcpus', 1],
        ['memory_mb', 1024],
        ['disk_gb', 5],
        ['resource_properties', ''],
        ['network_id', '9a0e7c3e-5d1c-4a55-b1d6-6b8f3c2a1e01'],
        ['min', 1],
      ] as const) {
        await refusedUpdate(
          lease.id,
          { reservations: [{ id: medium.id, [field]: value }] },
          400,
          `Parameter ${field} cannot be set on a flavor:instance reservation`,
        );
      }
      await refusedUpdate(lease.id, { reservations: [{ id: medium.id, amount: 0 }] }, 400, MAX_AMOUNT_MESSAGE);
      expect((await showLease(lease.id)).reservations[0]).toEqual(updated.reservations[0]);
      // the flavor id as the client sends an int-like one: the same flavor
      const small = lease.reservations[1];
      const same = await updateLease(lease.id, { reservations: [{ id: small.id, flavor_id: 3, amount: 2 }] });
      expect(same.reservations[1]).toMatchObject({ id: small.id, amount: 2, vcpus: 1 });
    });
  });

  describe('affinity: true on one host, false on distinct hosts, null packed', () => {
    const aff = (amount: number, affinity: unknown) => instanceReservation(amount, SMALL, { affinity, resource_properties: pool('aff') });

    it('true: all on one host; false: one per host; null: packed onto the fewest hosts', async () => {
      const together = await createLease('aff-true', on(5, '10:00'), on(5, '12:00'), [aff(3, true)]);
      expect(together.reservations[0].affinity).toBe(true);
      expect(await hostsOf(together.reservations[0].id)).toEqual(['aff-1']);

      const apart = await createLease('aff-false', on(6, '10:00'), on(6, '12:00'), [aff(3, false)]);
      expect(apart.reservations[0].affinity).toBe(false);
      expect(await hostsOf(apart.reservations[0].id)).toEqual(['aff-1', 'aff-2', 'aff-3']);

      // four 1-vcpu instances per 4-vcpu host
      const packed = await createLease('aff-null', on(7, '10:00'), on(7, '12:00'), [aff(6, null)]);
      expect(packed.reservations[0].affinity).toBe(null);
      expect(await hostsOf(packed.reservations[0].id)).toEqual(['aff-1', 'aff-2']);
    });

    it('the client\'s strings "True", "False", "None" are accepted and shown as true, false, null; hosts already used are preferred', async () => {
      const lease = await createLease('aff-strings', on(8, '10:00'), on(8, '12:00'), [aff(2, 'True'), aff(2, 'False'), aff(1, 'None')]);
      expect(lease.reservations.map((r: { affinity: unknown }) => r.affinity)).toEqual([true, false, null]);
      const [first, second, third] = lease.reservations.map((r: { id: string }) => r.id);
      expect(await hostsOf(first)).toEqual(['aff-1']);
      expect(await hostsOf(second)).toEqual(['aff-1', 'aff-2']);
      expect(await hostsOf(third)).toEqual(['aff-1']);
    });

    it('shortages: 409 with what could fit under the affinity', async () => {
      const when = [on(9, '10:00'), on(9, '12:00')] as const;
      await refusedLease(
        'aff-false-4',
        ...when,
        [aff(4, false)],
        409,
        'Not enough hosts available: 3 host(s) have room for one such instance (anti-affinity requires one host each) for the whole lease, 4 requested',
      );
      await refusedLease(
        'aff-true-5',
        ...when,
        [aff(5, true)],
        409,
        'Not enough hosts available: at most 4 such instance(s) fit on any single host (affinity requires one host) for the whole lease, 5 requested',
      );
      await refusedLease('aff-null-13', ...when, [aff(13, null)], 409, slotShortage(12, 3, 13));
    });

    it('affinity true needs one host with room for all: free slots spread over hosts do not do', async () => {
      const when = [on(10, '10:00'), on(10, '12:00')] as const;
      const a = await createLease('aff-frag-a', ...when, [aff(2, null)]);
      const b = await createLease('aff-frag-b', ...when, [aff(3, true)]);
      const c = await createLease('aff-frag-c', ...when, [aff(3, true)]);
      expect([await hostsOf(a.reservations[0].id), await hostsOf(b.reservations[0].id), await hostsOf(c.reservations[0].id)]).toEqual([
        ['aff-1'],
        ['aff-2'],
        ['aff-3'],
      ]);
      // free now: 2 on aff-1, 1 on aff-2, 1 on aff-3
      await refusedLease(
        'aff-frag-d',
        ...when,
        [aff(3, true)],
        409,
        'Not enough hosts available: at most 2 such instance(s) fit on any single host (affinity requires one host) for the whole lease, 3 requested',
      );
      const d = await createLease('aff-frag-e', ...when, [aff(3, false)]);
      expect(await hostsOf(d.reservations[0].id)).toEqual(['aff-1', 'aff-2', 'aff-3']);
    });
  });

  describe("capacity: a host's vcpus, memory and disk are never exceeded at any instant", () => {
    const cap = (amount: number, size: InstanceSize) => instanceReservation(amount, size, { resource_properties: pool('cap') });

    it('vcpus: exactly the 4 of the host are accepted, one more is refused; deleting frees them', async () => {
      const when = [on(11, '10:00'), on(11, '12:00')] as const;
      const full = await createLease('cap-vcpus', ...when, [cap(4, { vcpus: 1, memory_mb: 512, disk_gb: 5 })]);
      expect(await hostsOf(full.reservations[0].id)).toEqual(['cap-1']);
      await refusedLease('cap-vcpus-more', ...when, [cap(1, { vcpus: 1, memory_mb: 512, disk_gb: 5 })], 409, slotShortage(0, 1, 1));
      expect((await client.delete(`/v1/leases/${full.id}`)).status).toBe(204);
      const after = await createLease('cap-vcpus-more', ...when, [cap(1, { vcpus: 1, memory_mb: 512, disk_gb: 5 })]);
      expect(await hostsOf(after.reservations[0].id)).toEqual(['cap-1']);
    });

    it('memory: 2 x 2048 MB of 4096 accepted, a third refused', async () => {
      const when = [on(12, '10:00'), on(12, '12:00')] as const;
      await createLease('cap-ram', ...when, [cap(2, { vcpus: 1, memory_mb: 2048, disk_gb: 5 })]);
      await refusedLease('cap-ram-more', ...when, [cap(1, { vcpus: 1, memory_mb: 2048, disk_gb: 5 })], 409, slotShortage(0, 1, 1));
    });

    it('disk: 2 x 20 GB of 40 accepted, a third refused', async () => {
      const when = [on(13, '10:00'), on(13, '12:00')] as const;
      await createLease('cap-disk', ...when, [cap(2, { vcpus: 1, memory_mb: 512, disk_gb: 20 })]);
      await refusedLease('cap-disk-more', ...when, [cap(1, { vcpus: 1, memory_mb: 512, disk_gb: 1 })], 409, slotShortage(0, 1, 1));
    });

    it('one request beyond the host: 409 with how many fit; an instance larger than any host: 409 no host matches', async () => {
      const when = [on(14, '10:00'), on(14, '12:00')] as const;
      await refusedLease('cap-5', ...when, [cap(5, { vcpus: 1, memory_mb: 512, disk_gb: 5 })], 409, slotShortage(4, 1, 5));
      await refusedLease('cap-huge', ...when, [cap(1, { vcpus: 5, memory_mb: 512, disk_gb: 5 })], 409, noHostOfThatSize(1));
      await refusedLease('cap-huge-ram', ...when, [cap(1, { vcpus: 1, memory_mb: 4097, disk_gb: 5 })], 409, noHostOfThatSize(1));
      await refusedLease('cap-huge-disk', ...when, [cap(1, { vcpus: 1, memory_mb: 512, disk_gb: 41 })], 409, noHostOfThatSize(1));
    });

    it('usage is the peak over time, not the sum: back-to-back leases share the host; an overlap of two full halves does not fit', async () => {
      const half = { vcpus: 2, memory_mb: 512, disk_gb: 5 };
      await createLease('cap-peak-a', on(15, '10:00'), on(15, '11:00'), [cap(1, half)]);
      await createLease('cap-peak-b', on(15, '11:00'), on(15, '12:00'), [cap(1, half)]);
      // 2 vcpus at every instant of 10:00-12:00: one more 2-vcpu instance fits across both
      await createLease('cap-peak-c', on(15, '10:00'), on(15, '12:00'), [cap(1, half)]);
      await refusedLease('cap-peak-d', on(15, '10:30'), on(15, '10:45'), [cap(1, half)], 409, slotShortage(0, 1, 1));
      // the end is exclusive: a lease from 12:00 sees a free host
      const after = await createLease('cap-peak-e', on(15, '12:00'), on(15, '13:00'), [cap(2, half)]);
      expect(await hostsOf(after.reservations[0].id)).toEqual(['cap-1']);
    });
  });

  describe('a host is either reserved whole or carries slots, never both at once', () => {
    const slot = () => instanceReservation(1, SMALL, { resource_properties: pool('excl') });

    it('host reserved 10:00-12:00: slots overlapping it are refused, slots before and after are accepted', async () => {
      await createLease('excl-host', on(16, '10:00'), on(16, '12:00'), [pinnedHost('excl-1')]);
      await refusedLease('excl-slot-overlap', on(16, '11:00'), on(16, '13:00'), [slot()], 409, slotShortage(0, 1, 1));
      await refusedLease('excl-slot-inside', on(16, '10:30'), on(16, '11:00'), [slot()], 409, slotShortage(0, 1, 1));
      const after = await createLease('excl-slot-after', on(16, '12:00'), on(16, '13:00'), [slot()]);
      const before = await createLease('excl-slot-before', on(16, '09:00'), on(16, '10:00'), [slot()]);
      expect([await hostsOf(after.reservations[0].id), await hostsOf(before.reservations[0].id)]).toEqual([['excl-1'], ['excl-1']]);
    });

    it('slots 10:00-12:00: the host cannot be reserved whole over them, only next to them', async () => {
      await createLease('excl-slot', on(17, '10:00'), on(17, '12:00'), [slot()]);
      await refusedLease('excl-host-overlap', on(17, '11:00'), on(17, '13:00'), [pinnedHost('excl-1')], 409, hostShortage(1, 0, 1));
      const after = await createLease('excl-host-after', on(17, '12:00'), on(17, '13:00'), [pinnedHost('excl-1')]);
      expect(await hostsOf(after.reservations[0].id)).toEqual(['excl-1']);
    });

    it('a host carrying slots cannot be deleted, nor change a capability their resource_properties use: 409', async () => {
      const id = hostIds['aff-1'] as string;
      await rejected(() => client.delete(`/v1/os-hosts/${id}`), 409, `Can't delete host ${id}. The host is reserved.`);
      await rejected(
        () => client.put(`/v1/os-hosts/${id}`, { pool: 'elsewhere' }),
        409,
        `Can't update extra capability pool of host ${id}: it is used by a current or future reservation`,
      );
      const other = await client.put(`/v1/os-hosts/${id}`, { rack: 'r7' });
      expect(other.status, describeBody(other)).toBe(200);
    });

    it('a host that is not reservable carries no slots', async () => {
      const when = [on(24, '10:00'), on(24, '12:00')] as const;
      const nr = instanceReservation(1, SMALL, { resource_properties: pool('nr') });
      await refusedLease('nr-slot', ...when, [nr], 409, noHostOfThatSize(1));
      const shown = await client.put(`/v1/os-hosts/${hostIds['nr-1']}`, { reservable: true });
      expect(shown.status, describeBody(shown)).toBe(200);
      const lease = await createLease('nr-slot', ...when, [nr]);
      expect(await hostsOf(lease.reservations[0].id)).toEqual(['nr-1']);
    });

    it("within one lease too: a host reserved whole cannot also take the lease's slots, in either order", async () => {
      const when = [on(18, '10:00'), on(18, '12:00')] as const;
      await refusedLease('excl-both', ...when, [pinnedHost('excl-1'), slot()], 409, slotShortage(0, 1, 1));
      await refusedLease('excl-both-rev', ...when, [slot(), pinnedHost('excl-1')], 409, hostShortage(1, 0, 1));
    });
  });

  describe('virtual:instance: update before the start', () => {
    let lease: any;
    let rid: string;

    it('affinity, amount, sizes and resource_properties may all change; the slots follow', async () => {
      lease = await createLease('upd', on(19, '10:00'), on(19, '12:00'), [
        instanceReservation(2, MEDIUM, { resource_properties: pool('crud') }),
      ]);
      rid = lease.reservations[0].id;
      expect(await hostsOf(rid)).toEqual(['crud-1']);

      const apart = await updateLease(lease.id, { reservations: [{ id: rid, affinity: false }] });
      expect(apart.reservations[0]).toMatchObject({ id: rid, affinity: false, amount: 2, status: 'pending' });
      expect(await hostsOf(rid)).toEqual(['crud-1', 'crud-2']);

      const resized = await updateLease(lease.id, {
        reservations: [{ id: rid, amount: 1, vcpus: 4, memory_mb: 4096, disk_gb: 50, affinity: 'None' }],
      });
      expect(resized.reservations[0]).toMatchObject({ id: rid, amount: 1, vcpus: 4, memory_mb: 4096, disk_gb: 50, affinity: null });
      expect(await hostsOf(rid)).toEqual(['crud-1']);

      const moved = await updateLease(lease.id, {
        reservations: [{ id: rid, resource_properties: pool('aff'), vcpus: 1, memory_mb: 1024, disk_gb: 10, amount: 3, affinity: 'True' }],
      });
      expect(moved.reservations[0]).toMatchObject({
        id: rid,
        resource_properties: '["==","$pool","aff"]',
        vcpus: 1,
        memory_mb: 1024,
        disk_gb: 10,
        amount: 3,
        affinity: true,
      });
      expect(Object.keys(moved.reservations[0])).toEqual(INSTANCE_RESERVATION_KEYS);
      expect(await hostsOf(rid)).toEqual(['aff-1']);
      expect(await showLease(lease.id)).toEqual(moved);
    });

    it("new lease dates move the slots' window", async () => {
      await updateLease(lease.id, { end_date: on(19, '13:00') });
      const allocation = await client.get(`/v1/os-hosts/${hostIds['aff-1']}/allocation?reservation_id=${rid}`);
      expect(allocation.body.allocation.reservations).toEqual([
        {
          id: rid,
          lease_id: lease.id,
          start_date: tDate(on(19, '10:00')),
          end_date: tDate(on(19, '13:00')),
          slots: 3,
          vcpus: 3,
          memory_mb: 3072,
          disk_gb: 30,
        },
      ]);
    });

    it('a shortage: 409, the reservation keeps its slots', async () => {
      const before = await showLease(lease.id);
      await refusedUpdate(lease.id, { reservations: [{ id: rid, amount: 13, affinity: null }] }, 409, slotShortage(12, 3, 13));
      await refusedUpdate(
        lease.id,
        { reservations: [{ id: rid, amount: 5 }] },
        409,
        'Not enough hosts available: at most 4 such instance(s) fit on any single host (affinity requires one host) for the whole lease, 5 requested',
      );
      expect(await showLease(lease.id)).toEqual(before);
      expect(await hostsOf(rid)).toEqual(['aff-1']);
    });

    it('fields of other reservation types: 400; resource_type cannot change: 409; malformed values: 400', async () => {
      const fields: [string, unknown][] = [
        ['min', 1],
        ['max', 2],
        ['hypervisor_properties', ''],
        ['before_end', 'default'],
        ['flavor_id', 'lh-medium'],
        ['network_id', '9a0e7c3e-5d1c-4a55-b1d6-6b8f3c2a1e01'],
        ['required_floatingips', []],
      ];
      for (const [field, value] of fields) {
        await refusedUpdate(
          lease.id,
          { reservations: [{ id: rid, [field]: value }] },
          400,
          `Parameter ${field} cannot be set on a virtual:instance reservation`,
        );
      }
      await refusedUpdate(
        lease.id,
        { reservations: [{ id: rid, resource_type: 'physical:host' }] },
        409,
        'resource_type cannot be updated',
      );
      await refusedUpdate(lease.id, { reservations: [{ id: rid, affinity: 'sometimes' }] }, 400, AFFINITY_MESSAGE);
      await refusedUpdate(lease.id, { reservations: [{ id: rid, amount: 0 }] }, 400, MAX_AMOUNT_MESSAGE);
      await refusedUpdate(lease.id, { reservations: [{ id: rid, vcpus: 0 }] }, 400, 'Malformed parameter vcpus (must be an integer >= 1)');
      await refusedUpdate(lease.id, { reservations: [{ id: rid, memory_mb: 'x' }] }, 400, 'Malformed parameter memory_mb');
    });
  });

  describe('a lease mixing reservation types is admitted whole or not at all', () => {
    const NET = '9a0e7c3e-5d1c-4a55-b1d6-6b8f3c2a1e01';
    const slots = (amount: number) => instanceReservation(amount, MEDIUM, { resource_properties: pool('mix') });

    it("host + instance + flavor + floating IP in one lease: each booked, none on another's resources", async () => {
      for (const address of ['192.0.2.1', '192.0.2.2']) {
        const registered = await client.post('/v1/floatingips', { floating_network_id: NET, floating_ip_address: address });
        expect(registered.status, describeBody(registered)).toBe(201);
      }
      const lease = await createLease('mix-ok', on(20, '10:00'), on(20, '12:00'), [
        pinnedHost('mix-1'),
        slots(2),
        { resource_type: 'flavor:instance', flavor_id: '3', amount: 1 },
        floatingIpReservation(NET, 1),
      ]);
      expect(lease.reservations.map((r: { resource_type: string }) => r.resource_type)).toEqual([
        'physical:host',
        'virtual:instance',
        'flavor:instance',
        'virtual:floatingip',
      ]);
      const [host, instances, flavor, fip] = lease.reservations;
      expect(await hostsOf(host.id)).toEqual(['mix-1']);
      // mix-1 is reserved whole by the same lease
      expect(await hostsOf(instances.id)).toEqual(['mix-2']);
      expect(await hostsOf(flavor.id)).toEqual(['crud-1']);
      expect(fip).toMatchObject({ network_id: NET, amount: 1, required_floatingips: [] });
      const fipAllocations = await allocationsOnDay('/v1/floatingips/allocations', on(20, '10:00'));
      expect(fipAllocations).toEqual([
        { id: fip.id, lease_id: lease.id, start_date: tDate(on(20, '10:00')), end_date: tDate(on(20, '12:00')) },
      ]);
    });

    it("an update of several reservations is applied whole or not at all; each type refuses the others' fields", async () => {
      const lease = (await client.get('/v1/leases')).body.leases.find((l: { name: string }) => l.name === 'mix-ok');
      const [host, instances, , fip] = lease.reservations;
      await refusedUpdate(
        lease.id,
        {
          reservations: [
            { id: instances.id, amount: 1 },
            { id: fip.id, amount: 3 },
          ],
        },
        409,
        'Not enough floating IPs available: 2 registered on the network, 2 free for the whole lease, 3 requested',
      );
      expect(await showLease(lease.id)).toEqual(lease);
      expect(await hostsOf(instances.id)).toEqual(['mix-2']);
      for (const [field, value] of [
        ['amount', 2],
        ['vcpus', 1],
        ['affinity', true],
        ['network_id', NET],
        ['flavor_id', '3'],
      ] as const) {
        await refusedUpdate(
          lease.id,
          { reservations: [{ id: host.id, [field]: value }] },
          400,
          `Parameter ${field} cannot be set on a physical:host reservation`,
        );
      }
      const both = await updateLease(lease.id, {
        reservations: [
          { id: instances.id, amount: 1 },
          { id: fip.id, amount: 2 },
        ],
      });
      expect(both.reservations.map((r: { amount?: number }) => r.amount)).toEqual([undefined, 1, 1, 2]);
    });

    it('the last reservation fails: 409, and nothing of the others was booked (the same lease then fits)', async () => {
      const when = [on(21, '10:00'), on(21, '12:00')] as const;
      const reservations = (fips: number) => [
        pinnedHost('mix-1'),
        slots(2),
        { resource_type: 'flavor:instance', flavor_id: '3', amount: 1 },
        floatingIpReservation(NET, fips),
      ];
      await refusedLease(
        'mix-fail',
        ...when,
        reservations(3),
        409,
        'Not enough floating IPs available: 2 registered on the network, 2 free for the whole lease, 3 requested',
      );
      expect(await allocationsOnDay('/v1/os-hosts/allocations', when[0])).toEqual([]);
      expect(await allocationsOnDay('/v1/floatingips/allocations', when[0])).toEqual([]);
      expect((await client.get('/v1/leases')).body.leases.map((l: { name: string }) => l.name)).not.toContain('mix-fail');

      const lease = await createLease('mix-fits', ...when, reservations(2));
      expect(lease.reservations).toHaveLength(4);
    });

    it('a failing instance reservation after a host and floating IPs: 409, the floating IPs and host stay free', async () => {
      const when = [on(22, '10:00'), on(22, '12:00')] as const;
      // mix-1 is taken whole by the lease itself: 2 instances fit on mix-2
      await refusedLease('mix-fail-2', ...when, [floatingIpReservation(NET, 2), pinnedHost('mix-1'), slots(3)], 409, slotShortage(2, 2, 3));
      await refusedLease('mix-fail-3', ...when, [floatingIpReservation(NET, 2), slots(4), pinnedHost('mix-2')], 409, hostShortage(1, 0, 1));
      expect(await allocationsOnDay('/v1/os-hosts/allocations', when[0])).toEqual([]);
      expect(await allocationsOnDay('/v1/floatingips/allocations', when[0])).toEqual([]);
      await createLease('mix-fits-2', ...when, [floatingIpReservation(NET, 2), pinnedHost('mix-1'), pinnedHost('mix-2')]);
    });
  });

  // last: the reactor acts on this lease while it runs, and refused writes elsewhere compare ledger counts
  describe('an ACTIVE lease (started "now" by the reactor)', () => {
    let lease: any;
    const ids: Record<'apart' | 'packed' | 'flavor' | 'together', string> = { apart: '', packed: '', flavor: '', together: '' };
    let aggregateId: number;
    let endDate: string;
    const act = (amount: number, affinity: unknown) => instanceReservation(amount, MEDIUM, { affinity, resource_properties: pool('act') });
    const reservation = (view: any, id: string): any => view.reservations.find((r: { id: string }) => r.id === id);

    const waitFor = (what: string, accept: (view: any) => boolean): Promise<any> =>
      eventually(
        async () => {
          const view = await showLease(lease.id);
          return accept(view) ? view : undefined;
        },
        20_000,
        `${what} of lease ${lease.id}`,
      );

    it('at creation aggregate_id and server_group_id are null; once ACTIVE the start effects have set them', async () => {
      endDate = blazarDate(90);
      lease = await createLease('act', 'now', endDate, [
        act(1, false),
        act(1, null),
        { resource_type: 'flavor:instance', flavor_id: 'lh-medium', amount: 1 },
        instanceReservation(1, SMALL, { affinity: true, resource_properties: pool('aff') }),
      ]);
      [ids.apart, ids.packed, ids.flavor, ids.together] = lease.reservations.map((r: { id: string }) => r.id);
      for (const r of lease.reservations) expect(r).toMatchObject({ status: 'pending', aggregate_id: null, server_group_id: null });
      expect(await hostsOf(ids.apart)).toEqual(['act-1']);
      expect(await hostsOf(ids.packed)).toEqual(['act-1']);
      expect(await hostsOf(ids.flavor)).toEqual(['crud-1']);
      expect(await hostsOf(ids.together)).toEqual(['aff-1']);

      // the before-end action is 30 minutes away: once ACTIVE the reactor is idle
      const active = await waitFor('ACTIVE', (view) => view.status === 'ACTIVE');
      expect(active.reservations.map((r: { status: string }) => r.status)).toEqual(['active', 'active', 'active', 'active']);
      const [apart, packed, flavor, together] = [ids.apart, ids.packed, ids.flavor, ids.together].map((id) => reservation(active, id));
      // an explicit affinity gets a server group; aggregates are Nova's integer ids, one per reservation
      expect(apart).toMatchObject({ aggregate_id: expect.any(Number), server_group_id: expect.stringMatching(UUID) });
      expect(packed).toMatchObject({ aggregate_id: expect.any(Number), server_group_id: null });
      expect(flavor).toMatchObject({ aggregate_id: expect.any(Number), server_group_id: null });
      expect(together).toMatchObject({ aggregate_id: expect.any(Number), server_group_id: expect.stringMatching(UUID) });
      expect(new Set([apart.aggregate_id, packed.aggregate_id, flavor.aggregate_id, together.aggregate_id]).size).toBe(4);
      expect(apart.server_group_id).not.toBe(together.server_group_id);
      aggregateId = apart.aggregate_id;
      expect(Object.keys(apart)).toEqual(INSTANCE_RESERVATION_KEYS);

      // the private flavor of a flavor:instance reservation: the source's sizes (disk and ephemeral apart) and extra specs
      const started = ledgerEvents(system.dataDir, `lease-${lease.id}`).find(
        (e) => e.type === 'Reservation.EffectsApplied' && e.data.reservationId === ids.flavor && e.data.phase === 'start',
      );
      expect(started?.data.effects).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            operation: 'flavor.create',
            flavor_id: ids.flavor,
            vcpus: 2,
            ram: 4096,
            disk: 30,
            ephemeral: 10,
            is_public: false,
          }),
          expect.objectContaining({
            operation: 'flavor.set_extra_specs',
            flavor_id: ids.flavor,
            extra_specs: {
              'hw_rng:allowed': 'True',
              'aggregate_instance_extra_specs:reservation': ids.flavor,
              [`resources:CUSTOM_RESERVATION_${ids.flavor.toUpperCase().replace(/-/g, '_')}`]: '1',
            },
          }),
        ]),
      );
    });

    it("once ACTIVE only amount may change, and only upward: 409; flavor_id 409; other types' fields 400", async () => {
      const changeOf = (fields: string) => `Only amount can be changed once the reservation has started (not ${fields})`;
      await refusedUpdate(lease.id, { reservations: [{ id: ids.apart, vcpus: 1 }] }, 409, changeOf('vcpus'));
      await refusedUpdate(
        lease.id,
        { reservations: [{ id: ids.apart, memory_mb: 1024, disk_gb: 10 }] },
        409,
        changeOf('memory_mb, disk_gb'),
      );
      await refusedUpdate(lease.id, { reservations: [{ id: ids.apart, resource_properties: '' }] }, 409, changeOf('resource_properties'));
      await refusedUpdate(lease.id, { reservations: [{ id: ids.apart, affinity: true }] }, 409, changeOf('affinity'));
      await refusedUpdate(lease.id, { reservations: [{ id: ids.packed, affinity: 'False', amount: 2 }] }, 409, changeOf('affinity'));
      await refusedUpdate(lease.id, { reservations: [{ id: ids.flavor, affinity: false }] }, 409, changeOf('affinity'));
      await refusedUpdate(
        lease.id,
        { reservations: [{ id: ids.flavor, flavor_id: '3' }] },
        409,
        'flavor_id cannot be updated; make a new reservation for another flavor',
      );
      await refusedUpdate(
        lease.id,
        { reservations: [{ id: ids.apart, min: 1 }] },
        400,
        'Parameter min cannot be set on a virtual:instance reservation',
      );
      await refusedUpdate(lease.id, { reservations: [{ id: ids.apart, amount: 0 }] }, 400, MAX_AMOUNT_MESSAGE);
    });

    it('amount up: more slots at once, and the reactor acts it out (Reservation.UpdateApplied); down again: 409', async () => {
      const updated = await updateLease(lease.id, { reservations: [{ id: ids.apart, amount: 2 }] });
      expect(reservation(updated, ids.apart)).toMatchObject({ amount: 2, status: 'active', affinity: false });
      expect(await hostsOf(ids.apart)).toEqual(['act-1', 'act-2']);

      const applied = await eventually(
        async () =>
          ledgerEvents(system.dataDir, `lease-${lease.id}`).find(
            (e) => e.type === 'Reservation.UpdateApplied' && e.data.reservationId === ids.apart,
          ),
        20_000,
        'Reservation.UpdateApplied',
      );
      expect(applied.data).toMatchObject({ leaseId: lease.id, reservationId: ids.apart, sequence: expect.any(Number) });
      // the new host joins the reservation's aggregate with an inventory of one slot
      expect(applied.data.effects).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ operation: 'aggregate.add_host', host: 'act-2' }),
          expect.objectContaining({ operation: 'inventory.set', resource_provider: 'blazar_act-2', total: 1 }),
        ]),
      );
      expect(ledgerEvents(system.dataDir, `lease-${lease.id}`).filter((e) => e.type === 'Reservation.UpdateFailed')).toEqual([]);
      const shown = await showLease(lease.id);
      expect(reservation(shown, ids.apart)).toMatchObject({ amount: 2, status: 'active', aggregate_id: aggregateId });
      expect(shown.status).toBe('ACTIVE');

      await refusedUpdate(
        lease.id,
        { reservations: [{ id: ids.apart, amount: 1 }] },
        409,
        'The amount of a started reservation can only grow (from 2)',
      );
    });

    it('flavor:instance amount up once ACTIVE: one more slot, acted out by the reactor', async () => {
      const updated = await updateLease(lease.id, { reservations: [{ id: ids.flavor, amount: 2 }] });
      expect(reservation(updated, ids.flavor)).toMatchObject({ amount: 2, status: 'active', vcpus: 2, memory_mb: 4096, disk_gb: 40 });
      expect(await hostsOf(ids.flavor)).toEqual(['crud-1']);
      const applied = await eventually(
        async () =>
          ledgerEvents(system.dataDir, `lease-${lease.id}`).find(
            (e) => e.type === 'Reservation.UpdateApplied' && e.data.reservationId === ids.flavor,
          ),
        20_000,
        'Reservation.UpdateApplied of the flavor reservation',
      );
      expect(applied.data.effects).toContainEqual(
        expect.objectContaining({ operation: 'inventory.set', resource_provider: 'blazar_crud-1', total: 2 }),
      );
    });

    it('affinity true once ACTIVE: more instances only on its own host, however much room other hosts have', async () => {
      const filler = await createLease('aff-fill', blazarDate(5), blazarDate(60), [
        instanceReservation(3, SMALL, { affinity: true, resource_properties: pool('aff') }),
      ]);
      expect(await hostsOf(filler.reservations[0].id)).toEqual(['aff-1']);
      // aff-1 has room for 1 more over the lease; aff-2 and aff-3 are empty but the instance already runs on aff-1
      await refusedUpdate(
        lease.id,
        { reservations: [{ id: ids.together, amount: 2 }] },
        409,
        'Not enough hosts available: at most 1 such instance(s) fit on any single host (affinity requires one host) for the whole lease, 2 requested',
      );
    });

    it('the end may move earlier, the slots follow; it cannot move past where the hosts are booked next: 409', async () => {
      const earlier = addMinutes(endDate, -10);
      const shortened = await updateLease(lease.id, { end_date: earlier });
      expect(shortened).toMatchObject({ status: 'ACTIVE', end_date: tDate(earlier) });
      expect(shortened.reservations.map((r: { status: string }) => r.status)).toEqual(['active', 'active', 'active', 'active']);
      const allocation = await client.get(`/v1/os-hosts/${hostIds['act-2']}/allocation?reservation_id=${ids.apart}`);
      expect(allocation.body.allocation.reservations).toEqual([
        {
          id: ids.apart,
          lease_id: lease.id,
          start_date: lease.start_date,
          end_date: tDate(earlier),
          slots: 1,
          vcpus: 2,
          memory_mb: 2048,
          disk_gb: 20,
        },
      ]);

      const next = await createLease('act-next', endDate, addMinutes(endDate, 60), [act(4, null)]);
      expect(await hostsOf(next.reservations[0].id)).toEqual(['act-1', 'act-2']);
      await refusedUpdate(
        lease.id,
        { end_date: addMinutes(endDate, 30) },
        409,
        'Not enough hosts available: the hosts of this started reservation cannot keep its instances over the new dates',
      );
      expect((await showLease(lease.id)).end_date).toBe(tDate(earlier));
    });

    it('amount up beyond the free slots: 409, the reservation keeps what it has', async () => {
      // act-1 and act-2 each hold one slot of the other reservation: one more 2-vcpu slot on each
      await refusedUpdate(lease.id, { reservations: [{ id: ids.packed, amount: 4 }] }, 409, slotShortage(2, 2, 4));
      expect(reservation(await showLease(lease.id), ids.packed).amount).toBe(1);
      expect(await hostsOf(ids.packed)).toEqual(['act-1']);
    });

    it('DELETE of the ACTIVE lease frees its slots: all of act-1 and act-2 can be reserved again', async () => {
      await refusedLease('act-full', blazarDate(10), blazarDate(60), [act(4, null)], 409, slotShortage(1, 2, 4));
      const deleted = await client.delete(`/v1/leases/${lease.id}`);
      expect(deleted.status, describeBody(deleted)).toBe(204);
      for (const id of Object.values(ids)) expect(await hostsOf(id)).toEqual([]);
      // starts after the test has ended: nothing for the reactor to do meanwhile
      const again = await createLease('act-full', blazarDate(10), blazarDate(60), [act(4, null)]);
      expect(await hostsOf(again.reservations[0].id)).toEqual(['act-1', 'act-2']);
    });
  });
});

describe('instance reservations with allocation ratios (cpu 2, ram 1.5, disk 0.5) and a 30-minute cleaning time', () => {
  let system: RunningSystem;
  let client: Client;
  const { registerHost, createLease, refusedLease, hostsOf } = bind(
    () => system,
    () => client,
  );

  beforeAll(async () => {
    system = await startSystem({
      apps: ['api', 'projector'],
      env: {
        LEASEHOLD_CPU_ALLOCATION_RATIO: '2',
        LEASEHOLD_RAM_ALLOCATION_RATIO: '1.5',
        LEASEHOLD_DISK_ALLOCATION_RATIO: '0.5',
        LEASEHOLD_CLEANING_TIME_MINUTES: '30',
      },
    });
    client = api(system.url);
    // capacity for slots: 8 vcpus, 6144 MB, 20 GB
    await registerHost('tc-1', { vcpus: 4, memory_mb: 4096, local_gb: 40 }, 'cap');
    await registerHost('te-1', BIG, 'excl');
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
  });

  const cap = (amount: number, size: InstanceSize) => instanceReservation(amount, size, { resource_properties: pool('cap') });

  it('vcpus x 2: 8 one-vcpu instances on a 4-vcpu host, not 9', async () => {
    const when = [on(1, '10:00'), on(1, '12:00')] as const;
    const size = { vcpus: 1, memory_mb: 256, disk_gb: 1 };
    await refusedLease('r-cpu-9', ...when, [cap(9, size)], 409, slotShortage(8, 1, 9));
    const full = await createLease('r-cpu-8', ...when, [cap(8, size)]);
    expect(await hostsOf(full.reservations[0].id)).toEqual(['tc-1']);
    await refusedLease('r-cpu-1', ...when, [cap(1, size)], 409, slotShortage(0, 1, 1));
  });

  it('memory x 1.5: 3 instances of 2048 MB on a 4096 MB host, not 4', async () => {
    const when = [on(2, '10:00'), on(2, '12:00')] as const;
    const size = { vcpus: 1, memory_mb: 2048, disk_gb: 1 };
    await refusedLease('r-ram-4', ...when, [cap(4, size)], 409, slotShortage(3, 1, 4));
    await createLease('r-ram-3', ...when, [cap(3, size)]);
    await refusedLease('r-ram-1', ...when, [cap(1, { vcpus: 1, memory_mb: 1, disk_gb: 0 })], 409, slotShortage(0, 1, 1));
  });

  it('disk x 0.5: 2 instances of 10 GB on a 40 GB host, not 3; an instance of 21 GB fits nowhere', async () => {
    const when = [on(3, '10:00'), on(3, '12:00')] as const;
    const size = { vcpus: 1, memory_mb: 256, disk_gb: 10 };
    await refusedLease('r-disk-3', ...when, [cap(3, size)], 409, slotShortage(2, 1, 3));
    await refusedLease('r-disk-21', ...when, [cap(1, { vcpus: 1, memory_mb: 256, disk_gb: 21 })], 409, noHostOfThatSize(1));
    await createLease('r-disk-2', ...when, [cap(2, size)]);
  });

  describe('cleaning time between a whole-host booking and slots', () => {
    const slot = () => instanceReservation(1, SMALL, { resource_properties: pool('excl') });

    it('host reserved 10:00-12:00: slots must keep 30 minutes away on both sides', async () => {
      await createLease('c-host', on(4, '10:00'), on(4, '12:00'), [pinnedHost('te-1')]);
      await refusedLease('c-slot-after', on(4, '12:20'), on(4, '13:00'), [slot()], 409, slotShortage(0, 1, 1));
      await refusedLease('c-slot-before', on(4, '08:00'), on(4, '09:40'), [slot()], 409, slotShortage(0, 1, 1));
      const after = await createLease('c-slot-after-ok', on(4, '12:30'), on(4, '13:00'), [slot()]);
      const before = await createLease('c-slot-before-ok', on(4, '08:00'), on(4, '09:30'), [slot()]);
      expect([await hostsOf(after.reservations[0].id), await hostsOf(before.reservations[0].id)]).toEqual([['te-1'], ['te-1']]);
    });

    it('between slots there is no cleaning time: a full host from 10:00-12:00 is full again from 12:00', async () => {
      const full = instanceReservation(1, { vcpus: 8, memory_mb: 1024, disk_gb: 10 }, { resource_properties: pool('excl') });
      await createLease('c-slots-a', on(6, '10:00'), on(6, '12:00'), [full]);
      const next = await createLease('c-slots-b', on(6, '12:00'), on(6, '13:00'), [full]);
      expect(await hostsOf(next.reservations[0].id)).toEqual(['te-1']);
    });

    it('slots 10:00-12:00: the host can be reserved whole from 12:30, not from 12:20', async () => {
      await createLease('c-slot', on(5, '10:00'), on(5, '12:00'), [slot()]);
      await refusedLease('c-host-after', on(5, '12:20'), on(5, '14:00'), [pinnedHost('te-1')], 409, hostShortage(1, 0, 1));
      const after = await createLease('c-host-after-ok', on(5, '12:30'), on(5, '14:00'), [pinnedHost('te-1')]);
      expect(await hostsOf(after.reservations[0].id)).toEqual(['te-1']);
    });
  });
});
