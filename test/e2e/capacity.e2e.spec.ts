/**
 * The capacity report and the allocations' slot detail through HTTP against the running system
 * (default configuration: cleaning time 0, allocation ratios 1): GET /v1/capacity counts, per zone and
 * step, the hosts reserved whole, by slots and free, the peak utilisation and the largest request still
 * admitted, which a lease of that size at that step then is; with `failure_domain`, how a lease's hosts
 * share racks; bad parameters are 400s in Blazar's error body. GET /v1/os-hosts/allocations shows
 * what each instance reservation holds on a host. Each test has its own availability zone and day in
 * 2035, so tests do not meet. Network segments are counted per type and physical network (a system of api
 * and projector: a network lease needs no reactor to be booked).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, instanceReservation } from '../helpers/http.js';
import { describeBody } from '../helpers/lease-client.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

type Client = ReturnType<typeof api>;

const on = (day: number, time: string): string => `2035-03-${String(day).padStart(2, '0')} ${time}`;
const inZone = (zone: string, min: number) => ({
  resource_type: 'physical:host',
  min,
  max: min,
  hypervisor_properties: '',
  resource_properties: `["=", "$zone", "${zone}"]`,
});
const SIZE = { vcpus: 2, memory_mb: 2048, disk_gb: 20 };

describe('capacity (api + projector + reactor)', () => {
  let system: RunningSystem;
  let client: Client;

  /** Hosts of 8 vcpus, 16 GB and 100 GB in their own zone, tagged with it, racks as given. */
  const registerHosts = async (zone: string, racks: readonly string[]): Promise<string[]> => {
    const ids: string[] = [];
    for (const [i, rack] of racks.entries()) {
      const response = await client.post('/v1/os-hosts', {
        name: `${zone}-${i}`,
        vcpus: 8,
        memory_mb: 16384,
        local_gb: 100,
        availability_zone: zone,
        zone,
        rack,
      });
      expect(response.status, describeBody(response)).toBe(201);
      ids.push(response.body.host.id);
    }
    return ids;
  };

  const lease = async (name: string, start: string, end: string, reservations: unknown[]) => {
    const response = await client.post('/v1/leases', { name, start_date: start, end_date: end, reservations });
    expect(response.status, describeBody(response)).toBe(201);
    return response.body.lease;
  };

  const report = (query: Record<string, string>) => client.get(`/v1/capacity?${new URLSearchParams(query).toString()}`);

  const pool = (
    body: { capacity: { pools: { availability_zone: string; resource_type: string; steps: unknown[] }[] } },
    zone: string,
    type: string,
  ) => body.capacity.pools.find((p) => p.availability_zone === zone && p.resource_type === type)?.steps;

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('counts per hour the hosts reserved whole and by slots, the free ones, the peak and the largest request, which is then admitted', async () => {
    await registerHosts('cap-a', ['r1', 'r1', 'r2']);
    await lease('cap-whole', on(1, '10:00'), on(1, '12:00'), [inZone('cap-a', 1)]);
    await lease('cap-slots', on(1, '11:00'), on(1, '13:00'), [
      instanceReservation(2, SIZE, { resource_properties: '["=", "$zone", "cap-a"]' }),
    ]);
    const answer = await report({ start: on(1, '09:00'), end: on(1, '14:00'), step: 'PT1H', duration: '60' });
    expect(answer.status, describeBody(answer)).toBe(200);
    expect(answer.body.capacity).toMatchObject({ start: on(1, '09:00'), end: on(1, '14:00'), step_minutes: 60, failure_domain: null });
    const hosts = pool(answer.body, 'cap-a', 'physical:host') as {
      start: string;
      hosts_enrolled: number;
      reserved_whole: number;
      reserved_by_slots: number;
      free: number;
      peak_utilisation: number;
      largest_request: { hosts: number; summary: string };
    }[];
    expect(
      hosts.map((s) => [
        s.start,
        s.hosts_enrolled,
        s.reserved_whole,
        s.reserved_by_slots,
        s.free,
        s.peak_utilisation,
        s.largest_request.hosts,
      ]),
    ).toEqual([
      [on(1, '09:00'), 3, 0, 0, 3, 0, 3],
      [on(1, '10:00'), 3, 1, 0, 2, 0.3333, 2],
      [on(1, '11:00'), 3, 1, 1, 1, 0.6667, 1],
      [on(1, '12:00'), 3, 0, 1, 2, 0.3333, 2],
      [on(1, '13:00'), 3, 0, 0, 3, 0, 3],
    ]);
    expect(hosts[1]?.largest_request.summary).toBe('2 hosts for 1 h');
    const slots = pool(answer.body, 'cap-a', 'virtual:instance') as { capacity: object; peak_reserved: object; peak_utilisation: number }[];
    expect(slots[2]).toMatchObject({
      capacity: { vcpus: 24, memory_mb: 49152, disk_gb: 300 },
      peak_reserved: { vcpus: 4, memory_mb: 4096, disk_gb: 40 },
      peak_utilisation: 0.1667,
    });
    // the largest request at 11:00 is admitted, one more host is not
    await lease('cap-largest', on(1, '11:00'), on(1, '12:00'), [inZone('cap-a', 1)]);
    const more = await client.post('/v1/leases', {
      name: 'cap-more',
      start_date: on(1, '11:00'),
      end_date: on(1, '12:00'),
      reservations: [inZone('cap-a', 1)],
    });
    expect(more.status, describeBody(more)).toBe(409);
  });

  it("names with failure_domain how many of a lease's hosts share one rack", async () => {
    await registerHosts('cap-f', ['rack-1', 'rack-1', 'rack-2']);
    const wide = await lease('cap-wide', on(2, '10:00'), on(2, '11:00'), [inZone('cap-f', 3)]);
    const answer = await report({ start: on(2, '00:00'), end: on(3, '00:00'), step: 'P1D', failure_domain: 'rack' });
    expect(answer.status, describeBody(answer)).toBe(200);
    expect(answer.body.capacity.leases).toContainEqual({
      lease_id: wide.id,
      hosts: 3,
      domains: 2,
      largest_share: { value: 'rack-1', hosts: 2 },
      unlabelled: 0,
    });
  });

  it('shows on GET /v1/os-hosts/allocations what each instance reservation holds on a host; a whole host is listed as upstream lists it', async () => {
    await registerHosts('cap-s', ['r']);
    const slots = await lease('cap-s-slots', on(4, '10:00'), on(4, '11:00'), [
      instanceReservation(3, SIZE, { resource_properties: '["=", "$zone", "cap-s"]' }),
    ]);
    const whole = await lease('cap-s-whole', on(4, '12:00'), on(4, '13:00'), [inZone('cap-s', 1)]);
    const allocations = await client.get('/v1/os-hosts/allocations');
    expect(allocations.status, describeBody(allocations)).toBe(200);
    const entries = allocations.body.allocations.flatMap((a: { reservations: { lease_id: string }[] }) => a.reservations);
    expect(entries.find((r: { lease_id: string }) => r.lease_id === slots.id)).toMatchObject({
      id: slots.reservations[0].id,
      slots: 3,
      vcpus: 6,
      memory_mb: 6144,
      disk_gb: 60,
    });
    const wholeEntry = entries.find((r: { lease_id: string }) => r.lease_id === whole.id);
    expect(Object.keys(wholeEntry)).toEqual(['id', 'lease_id', 'start_date', 'end_date']);
    expect(wholeEntry.id).toBe(whole.reservations[0].id);
  });

  it.each([
    [{ end: on(5, '00:00') }, 'Missing parameter start'],
    [{ start: 'now', end: on(5, '00:00') }, 'Malformed parameter start (a report needs a fixed date, not now)'],
    [{ start: on(5, '00:00'), end: on(4, '00:00') }, 'end must be later than start'],
    [
      { start: on(5, '00:00'), end: on(6, '00:00'), step: '0' },
      'Malformed parameter step (whole minutes from 1 to 5270400, as an integer or an ISO 8601 duration)',
    ],
    [
      { start: on(5, '00:00'), end: on(6, '00:00'), step: 'PT30S' },
      'Malformed parameter step (whole minutes from 1 to 5270400, as an integer or an ISO 8601 duration)',
    ],
    [
      { start: on(5, '00:00'), end: on(7, '00:00'), step: '1' },
      'Too many steps: at most 2000 steps of 1 minute(s) fit between start and end',
    ],
    [
      { start: on(5, '00:00'), end: on(6, '00:00'), duration: 'P1Y1' },
      'Malformed parameter duration (whole minutes from 1 to 5270400, as an integer or an ISO 8601 duration)',
    ],
  ])("refuses %j with a 400 in Blazar's error body", async (query, message) => {
    const answer = await report(query);
    expect(answer.status, describeBody(answer)).toBe(400);
    expect(answer.body).toEqual({ error_code: 400, error_message: message, error_name: 400 });
  });
});

describe('capacity of network segments (api + projector)', () => {
  let system: RunningSystem;
  let client: Client;

  beforeAll(async () => {
    system = await startSystem({ apps: ['api', 'projector'] });
    client = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('counts per type and physical network and per step the segments registered, held at the start, booked, free and the peak', async () => {
    for (const segment of [
      { network_type: 'vlan', physical_network: 'physnet1', segment_id: 150 },
      { network_type: 'vlan', physical_network: 'physnet1', segment_id: 151 },
      { network_type: 'vxlan', segment_id: 5000 },
    ]) {
      const created = await client.post('/v1/networks', segment);
      expect(created.status, describeBody(created)).toBe(201);
    }
    for (const [name, start] of [
      ['cap-net-1', on(6, '10:00')],
      ['cap-net-2', on(6, '10:30')],
    ]) {
      const created = await client.post('/v1/leases', {
        name,
        start_date: start,
        end_date: on(6, '12:00'),
        reservations: [{ resource_type: 'network', network_name: name, network_properties: '["==", "$physical_network", "physnet1"]' }],
      });
      expect(created.status, describeBody(created)).toBe(201);
    }
    const answer = await client.get(`/v1/capacity?${new URLSearchParams({ start: on(6, '09:00'), end: on(6, '13:00') }).toString()}`);
    expect(answer.status, describeBody(answer)).toBe(200);
    const segments = (answer.body.capacity.pools as { resource_type: string }[]).filter((pool) => !('availability_zone' in pool));
    const step = (start: string, end: string, counts: number[], peak: number) => ({
      start: on(6, start),
      end: on(6, end),
      registered: counts[0],
      booked_at_start: counts[1],
      in_maintenance: 0,
      booked: counts[2],
      free: counts[3],
      peak_utilisation: peak,
    });
    expect(segments).toEqual([
      {
        resource_type: 'network',
        network_type: 'vlan',
        physical_network: 'physnet1',
        steps: [
          step('09:00', '10:00', [2, 0, 0, 2], 0),
          step('10:00', '11:00', [2, 1, 2, 0], 1),
          step('11:00', '12:00', [2, 2, 2, 0], 1),
          step('12:00', '13:00', [2, 0, 0, 2], 0),
        ],
      },
      {
        resource_type: 'network',
        network_type: 'vxlan',
        physical_network: null,
        steps: [
          step('09:00', '10:00', [1, 0, 0, 1], 0),
          step('10:00', '11:00', [1, 0, 0, 1], 0),
          step('11:00', '12:00', [1, 0, 0, 1], 0),
          step('12:00', '13:00', [1, 0, 0, 1], 0),
        ],
      },
    ]);
  });
});
