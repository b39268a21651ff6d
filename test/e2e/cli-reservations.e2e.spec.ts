/**
 * Instance and floating-IP reservations through the real clients (python3-blazarclient's
 * `openstack reservation ...` and the legacy `blazar`) against one running system (auth none),
 * asserting on what the client prints and on the allocation APIs. Hosts and the flavor catalog are
 * set up through the API (the clients have no commands for them); floating IPs through the client.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FLOATINGIP_RESERVATION_KEYS, INSTANCE_RESERVATION_KEYS, tDate } from '../helpers/api-fixtures.js';
import { type CliResult, blazar, failed, openstack, parseJson, parseLease, succeeded } from '../helpers/cli.js';
import { type JsonResponse, api } from '../helpers/http.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const describeBody = (response: JsonResponse): string => `${response.status} ${JSON.stringify(response.body)}`;

/** `2033-04-DD HH:MM`: each lease books its own day. */
const on = (day: number, time: string): string => `2033-04-${String(day).padStart(2, '0')} ${time}`;

const NET = '81fabec7-00ae-497a-b485-72f4bf187d3e';
const OTHER_NET = '81fabec7-00ae-497a-b485-72f4bf187d3f';

// each CLI run takes about a second of CPU, several under a loaded machine
describe('instance and floating-IP reservations through the real clients', { timeout: 120_000 }, () => {
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  const osc = (...args: string[]): Promise<CliResult> => openstack(system.url, 'reservation', ...args);
  const legacy = (...args: string[]): Promise<CliResult> => blazar(system.url, ...args);
  const hostNames: Record<string, string> = {};
  const fipIds: Record<string, string> = {};
  const addresses: Record<string, string> = {};

  /** Intermediate checks go through the API: each CLI run costs about a second of CPU. */
  const apiLease = async (id: string): Promise<any> => {
    const response = await client.get(`/v1/leases/${id}`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.lease;
  };
  const apiLeaseNames = async (): Promise<string[]> => (await client.get('/v1/leases')).body.leases.map((l: { name: string }) => l.name);

  const hostsOf = async (reservationId: string): Promise<string[]> => {
    const response = await client.get(`/v1/os-hosts/allocations?reservation_id=${reservationId}`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.allocations
      .filter((a: { reservations: unknown[] }) => a.reservations.length > 0)
      .map((a: { resource_id: string }) => hostNames[a.resource_id] ?? a.resource_id);
  };

  const addressesOf = async (reservationId: string): Promise<string[]> => {
    const response = await client.get(`/v1/floatingips/allocations?reservation_id=${reservationId}`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.allocations
      .filter((a: { reservations: unknown[] }) => a.reservations.length > 0)
      .map((a: { resource_id: string }) => addresses[a.resource_id] ?? a.resource_id)
      .sort();
  };

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
    for (const name of ['cli-1', 'cli-2']) {
      const response = await client.post('/v1/os-hosts', { name, vcpus: 4, memory_mb: 8192, local_gb: 100 });
      expect(response.status, describeBody(response)).toBe(201);
      hostNames[response.body.host.id] = name;
    }
    const flavor = await client.post('/v1/flavors', {
      flavor: { id: '3', name: 'm1.medium', vcpus: 2, ram: 4096, disk: 40, extra_specs: { 'hw_rng:allowed': 'True' } },
    });
    expect(flavor.status, describeBody(flavor)).toBe(201);
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
  });

  it('floatingip create NETWORK ADDRESS registers an address; floatingip list lists them', async () => {
    for (const address of ['172.24.4.2', '172.24.4.3', '172.24.4.4']) {
      const created = parseJson(await osc('floatingip', 'create', '-f', 'json', NET, address));
      expect(created).toMatchObject({ floating_network_id: NET, floating_ip_address: address, reservable: true });
      fipIds[address] = created.id;
      addresses[created.id] = address;
    }
    const listed = parseJson(await osc('floatingip', 'list', '-f', 'json'));
    expect(
      listed.sort((a: { floating_ip_address: string }, b: { floating_ip_address: string }) =>
        a.floating_ip_address.localeCompare(b.floating_ip_address),
      ),
    ).toEqual(
      ['172.24.4.2', '172.24.4.3', '172.24.4.4'].map((address) => ({
        id: fipIds[address],
        floating_ip_address: address,
        floating_network_id: NET,
      })),
    );
  });

  describe('openstack reservation lease ... with a virtual:instance reservation', () => {
    let leaseId: string;
    let rid: string;

    it('lease create --reservation resource_type=virtual:instance,...: the client\'s defaults (affinity "None", resource_properties "") are taken', async () => {
      const created = parseLease(
        await osc(
          'lease',
          'create',
          '-f',
          'json',
          '--reservation',
          'resource_type=virtual:instance,vcpus=1,memory_mb=1024,disk_gb=10,amount=2',
          '--start-date',
          on(1, '10:00'),
          '--end-date',
          on(1, '12:00'),
          'cli-inst',
        ),
      );
      expect(created).toMatchObject({
        name: 'cli-inst',
        status: 'PENDING',
        start_date: tDate(on(1, '10:00')),
        end_date: tDate(on(1, '12:00')),
      });
      const [reservation] = created.reservations;
      expect(Object.keys(reservation)).toEqual(INSTANCE_RESERVATION_KEYS);
      expect(reservation).toMatchObject({
        lease_id: created.id,
        resource_type: 'virtual:instance',
        status: 'pending',
        vcpus: 1,
        memory_mb: 1024,
        disk_gb: 10,
        amount: 2,
        affinity: null,
        resource_properties: '',
        flavor_id: reservation.id,
        aggregate_id: null,
        server_group_id: null,
      });
      leaseId = created.id;
      rid = reservation.id;
      expect(await hostsOf(rid)).toEqual(['cli-1']);
    });

    it('lease set --reservation id=<rid>,amount=3 adds a slot; affinity=False spreads them', async () => {
      expect(succeeded(await osc('lease', 'set', '--reservation', `id=${rid},amount=3`, 'cli-inst'))).toBe('Updated lease: cli-inst');
      expect((await apiLease(leaseId)).reservations[0]).toMatchObject({ id: rid, amount: 3, affinity: null });
      expect(await hostsOf(rid)).toEqual(['cli-1']);

      expect(succeeded(await osc('lease', 'set', '--reservation', `id=${rid},amount=2,affinity=False`, 'cli-inst'))).toBe(
        'Updated lease: cli-inst',
      );
      const shown = parseLease(await osc('lease', 'show', '-f', 'json', 'cli-inst'));
      expect(shown.reservations).toEqual([
        expect.objectContaining({ id: rid, amount: 2, affinity: false, vcpus: 1, memory_mb: 1024, disk_gb: 10 }),
      ]);
      expect(await hostsOf(rid)).toEqual(['cli-1', 'cli-2']);
    });

    it('lease set with a field of another type, or more instances than fit: the client prints the error', async () => {
      expect(failed(await osc('lease', 'set', '--reservation', `id=${rid},min=1`, 'cli-inst'))).toEqual([
        'ERROR: Parameter min cannot be set on a virtual:instance reservation',
      ]);
      expect(failed(await osc('lease', 'set', '--reservation', `id=${rid},amount=3`, 'cli-inst'))).toEqual([
        'ERROR: Not enough hosts available: 2 host(s) have room for one such instance (anti-affinity requires one host each) for the whole lease, 3 requested',
      ]);
      expect((await apiLease(leaseId)).reservations[0]).toMatchObject({ amount: 2, affinity: false });
    });

    it('lease delete frees the slots', async () => {
      expect(succeeded(await osc('lease', 'delete', 'cli-inst'))).toBe('Deleted lease: cli-inst');
      expect(await apiLeaseNames()).not.toContain('cli-inst');
      expect(await hostsOf(rid)).toEqual([]);
    });
  });

  it('lease create of more instances than fit: the 409 message', async () => {
    const result = await osc(
      'lease',
      'create',
      '--reservation',
      'resource_type=virtual:instance,vcpus=1,memory_mb=1024,disk_gb=10,amount=9',
      '--start-date',
      on(2, '10:00'),
      '--end-date',
      on(2, '12:00'),
      'cli-too-many',
    );
    expect(failed(result)).toEqual([
      'ERROR: Not enough hosts available: 8 such instance(s) fit on the 2 matching host(s) for the whole lease, 9 requested',
    ]);
    expect(await apiLeaseNames()).not.toContain('cli-too-many');
  });

  describe('flavor:instance', () => {
    it('the installed client (3.5.0) cannot send resource_type=flavor:instance: it fails before any request', async () => {
      // its --reservation parser has no defaults for flavor:instance and raises KeyError('resource_type')
      const result = await osc(
        'lease',
        'create',
        '--reservation',
        'resource_type=flavor:instance,flavor_id=3,amount=1',
        '--start-date',
        on(3, '10:00'),
        '--end-date',
        on(3, '12:00'),
        'cli-flavor',
      );
      expect(failed(result)).toEqual(["'resource_type'"]);
      expect(await apiLeaseNames()).not.toContain('cli-flavor');
    });

    it('a flavor:instance lease as the client would send it (flavor_id=3 as an integer): lease show and lease set work', async () => {
      const response = await client.post('/v1/leases', {
        name: 'cli-flavor',
        start_date: on(3, '10:00'),
        end_date: on(3, '12:00'),
        reservations: [{ resource_type: 'flavor:instance', flavor_id: 3, amount: 1, affinity: 'None' }],
        events: [],
        before_end_date: null,
      });
      expect(response.status, describeBody(response)).toBe(201);
      const rid = response.body.lease.reservations[0].id;

      const shown = parseLease(await osc('lease', 'show', '-f', 'json', 'cli-flavor'));
      expect(shown.reservations).toEqual([
        expect.objectContaining({
          id: rid,
          resource_type: 'flavor:instance',
          vcpus: 2,
          memory_mb: 4096,
          disk_gb: 40,
          amount: 1,
          affinity: null,
          flavor_id: rid,
          resource_properties:
            '{"id": "3", "name": "m1.medium", "ram": 4096, "disk": 40, "swap": "", "OS-FLV-EXT-DATA:ephemeral": 0, "OS-FLV-DISABLED:disabled": false, "vcpus": 2, "os-flavor-access:is_public": true, "rxtx_factor": 1.0, "extra_specs": {"hw_rng:allowed": "True"}}',
        }),
      ]);
      expect(await hostsOf(rid)).toEqual(['cli-1']);

      expect(succeeded(await osc('lease', 'set', '--reservation', `id=${rid},amount=3`, 'cli-flavor'))).toBe('Updated lease: cli-flavor');
      expect((await apiLease(response.body.lease.id)).reservations[0]).toMatchObject({ amount: 3, vcpus: 2 });
      expect(await hostsOf(rid)).toEqual(['cli-1', 'cli-2']);
    });
  });

  describe('openstack reservation lease ... with a virtual:floatingip reservation', () => {
    let leaseId: string;
    let rid: string;

    it('lease create --reservation \'resource_type=virtual:floatingip,network_id=...,amount=2,required_floatingips=["172.24.4.2"]\'', async () => {
      const created = parseLease(
        await osc(
          'lease',
          'create',
          '-f',
          'json',
          '--reservation',
          `resource_type=virtual:floatingip,network_id=${NET},amount=2,required_floatingips=["172.24.4.2"]`,
          '--start-date',
          on(4, '10:00'),
          '--end-date',
          on(4, '12:00'),
          'cli-fip',
        ),
      );
      const [reservation] = created.reservations;
      expect(Object.keys(reservation)).toEqual(FLOATINGIP_RESERVATION_KEYS);
      expect(reservation).toMatchObject({
        lease_id: created.id,
        resource_type: 'virtual:floatingip',
        status: 'pending',
        network_id: NET,
        amount: 2,
        required_floatingips: ['172.24.4.2'],
      });
      leaseId = created.id;
      rid = reservation.id;
      expect(await addressesOf(rid)).toEqual(['172.24.4.2', '172.24.4.3']);
    });

    it("lease set: amount=3 takes the last address; network_id and required_floatingips are refused with the server's message", async () => {
      expect(succeeded(await osc('lease', 'set', '--reservation', `id=${rid},amount=3`, 'cli-fip'))).toBe('Updated lease: cli-fip');
      expect(await addressesOf(rid)).toEqual(['172.24.4.2', '172.24.4.3', '172.24.4.4']);
      expect(failed(await osc('lease', 'set', '--reservation', `id=${rid},network_id=${OTHER_NET}`, 'cli-fip'))).toEqual([
        'ERROR: network_id cannot be updated',
      ]);
      expect(failed(await osc('lease', 'set', '--reservation', `id=${rid},required_floatingips=["172.24.4.4"]`, 'cli-fip'))).toEqual([
        'ERROR: required_floatingips can only be cleared (set to [])',
      ]);
      expect(succeeded(await osc('lease', 'set', '--reservation', `id=${rid},required_floatingips=[]`, 'cli-fip'))).toBe(
        'Updated lease: cli-fip',
      );
      expect((await apiLease(leaseId)).reservations[0]).toMatchObject({ amount: 3, network_id: NET, required_floatingips: [] });
    });

    it('floatingip delete of a reserved address fails; after lease delete it succeeds', async () => {
      const id = fipIds['172.24.4.4'] as string;
      expect(failed(await osc('floatingip', 'delete', id))).toEqual([
        `ERROR: Can't delete floating IP ${id}. The floating IP is reserved.`,
      ]);
      expect(succeeded(await osc('lease', 'delete', 'cli-fip'))).toBe('Deleted lease: cli-fip');
      expect(await addressesOf(rid)).toEqual([]);
      expect(succeeded(await osc('floatingip', 'delete', id))).toBe(`Deleted floatingip: ${id}`);
      expect((await client.get(`/v1/floatingips/${id}`)).status).toBe(404);
    });
  });

  it('one lease mixing physical:host, virtual:instance and virtual:floatingip (all the client can send)', async () => {
    const created = parseLease(
      await osc(
        'lease',
        'create',
        '-f',
        'json',
        '--reservation',
        'resource_type=physical:host,min=1,max=1,hypervisor_properties=["==","$hypervisor_hostname","cli-2"],resource_properties=',
        '--reservation',
        'resource_type=virtual:instance,vcpus=1,memory_mb=2048,disk_gb=20,amount=2,affinity=True',
        '--reservation',
        `resource_type=virtual:floatingip,network_id=${NET},amount=1,required_floatingips=["172.24.4.3"]`,
        '--start-date',
        on(5, '10:00'),
        '--end-date',
        on(5, '12:00'),
        'cli-mixed',
      ),
    );
    expect(created.reservations.map((r: { resource_type: string }) => r.resource_type)).toEqual([
      'physical:host',
      'virtual:instance',
      'virtual:floatingip',
    ]);
    const [host, instances, fip] = created.reservations;
    expect(instances).toMatchObject({ vcpus: 1, amount: 2, affinity: true });
    expect(await hostsOf(host.id)).toEqual(['cli-2']);
    expect(await hostsOf(instances.id)).toEqual(['cli-1']);
    expect(await addressesOf(fip.id)).toEqual(['172.24.4.3']);

    // instances fit (cli-1 has two vcpus left) but the floating IP is taken: nothing at all is booked
    const again = await osc(
      'lease',
      'create',
      '--reservation',
      'resource_type=virtual:instance,vcpus=1,memory_mb=1024,disk_gb=10,amount=1',
      '--reservation',
      `resource_type=virtual:floatingip,network_id=${NET},amount=1,required_floatingips=["172.24.4.3"]`,
      '--start-date',
      on(5, '11:00'),
      '--end-date',
      on(5, '13:00'),
      'cli-mixed-2',
    );
    // the refusal offers the earliest window of the same length in which the same lease fits, and the client prints it
    expect(failed(again)).toEqual([
      `ERROR: Not enough floating IPs available: 172.24.4.3 already reserved for this period. Earliest alternative: ${on(5, '12:00')} to ${on(5, '14:00')}.`,
    ]);
    expect(await apiLeaseNames()).not.toContain('cli-mixed-2');
    for (const path of ['/v1/os-hosts/allocations', '/v1/floatingips/allocations']) {
      const allocations = (await client.get(path)).body.allocations;
      const onDay = allocations
        .flatMap((a: { reservations: { lease_id: string; start_date: string }[] }) => a.reservations)
        .filter((r: { start_date: string }) => r.start_date.startsWith('2033-04-05'));
      expect(new Set(onDay.map((r: { lease_id: string }) => r.lease_id))).toEqual(new Set([created.id]));
    }
  });

  describe('the legacy blazar CLI', () => {
    let rid: string;

    it('lease-create --reservation resource_type=virtual:instance,...; lease-show -f json', async () => {
      const created = parseLease(
        await legacy(
          'lease-create',
          '-f',
          'json',
          '--reservation',
          'resource_type=virtual:instance,vcpus=1,memory_mb=1024,disk_gb=10,amount=1',
          '--reservation',
          `resource_type=virtual:floatingip,network_id=${NET},amount=1`,
          '--start-date',
          on(6, '10:00'),
          '--end-date',
          on(6, '12:00'),
          'bz-inst',
        ),
      );
      expect(created.reservations).toEqual([
        expect.objectContaining({
          resource_type: 'virtual:instance',
          vcpus: 1,
          memory_mb: 1024,
          disk_gb: 10,
          amount: 1,
          affinity: null,
          resource_properties: '',
        }),
        expect.objectContaining({ resource_type: 'virtual:floatingip', network_id: NET, amount: 1, required_floatingips: [] }),
      ]);
      rid = created.reservations[0].id;
      expect(await hostsOf(rid)).toEqual(['cli-1']);
      expect(await addressesOf(created.reservations[1].id)).toEqual(['172.24.4.2']);
      expect(parseLease(await legacy('lease-show', '-f', 'json', 'bz-inst')).reservations).toEqual(created.reservations);
    });

    it('lease-update --reservation id=<rid>,amount=5; lease-delete', async () => {
      expect(succeeded(await legacy('lease-update', '--reservation', `id=${rid},amount=5`, 'bz-inst'))).toBe('Updated lease: bz-inst');
      const lease = (await client.get('/v1/leases')).body.leases.find((l: { name: string }) => l.name === 'bz-inst');
      expect(lease.reservations[0]).toMatchObject({ id: rid, amount: 5 });
      // four 1-vcpu slots per host, packed
      expect(await hostsOf(rid)).toEqual(['cli-1', 'cli-2']);
      expect(succeeded(await legacy('lease-delete', 'bz-inst'))).toBe('Deleted lease: bz-inst');
      expect(await hostsOf(rid)).toEqual([]);
    });
  });
});
