/**
 * Leases holding network segments (`resource_type: "network"`, Chameleon's network plugin) against the running system:
 * the reservation's shape, one segment per reservation chosen by the queries, no segment in two overlapping
 * reservations (cleaning time included), refusals with counter-offers and nothing written, updates re-checked,
 * admission atomic with the lease's other reservations, the networks quota, availability, GraphQL and history.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_KEYS, RESERVATION_KEYS, UUID, ledgerCount } from '../helpers/api-fixtures.js';
import { graphqlClient, LEASE_FIELDS } from '../helpers/graphql.js';
import { type JsonResponse, api, blazarDate, hostReservation } from '../helpers/http.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const CLEANING_MINUTES = 30;
const NETWORK_KEYS = [
  // what every reservation shows first
  ...RESERVATION_KEYS.slice(0, RESERVATION_KEYS.indexOf('hypervisor_properties')),
  'network_name',
  'network_description',
  'network_properties',
  'resource_properties',
  'before_end',
  'network_id',
  'end_action',
];
const PHYSNET3 = '["==", "$physical_network", "physnet3"]';

let system: RunningSystem;
let http: ReturnType<typeof api>;
const describeBody = (response: JsonResponse): string => `${response.status} ${JSON.stringify(response.body)}`;

afterEach((context) => {
  if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
});

beforeAll(async () => {
  system = await startSystem({ apps: ['api', 'projector'], env: { LEASEHOLD_CLEANING_TIME_MINUTES: String(CLEANING_MINUTES) } });
  http = api(system.url);
});

afterAll(async () => {
  await system?.stop();
});

const register = async (segmentId: number, physicalNetwork = 'physnet1', extra: Record<string, unknown> = {}): Promise<string> => {
  const response = await http.post('/v1/networks', {
    network_type: 'vlan',
    physical_network: physicalNetwork,
    segment_id: segmentId,
    ...extra,
  });
  expect(response.status, describeBody(response)).toBe(201);
  return response.body.network.id as string;
};

const network = (extra: Record<string, unknown> = {}) => ({ resource_type: 'network', network_name: 'mynet', ...extra });

const lease = (name: string, start: number, end: number, reservations: readonly unknown[]) => ({
  name,
  start_date: blazarDate(start),
  end_date: blazarDate(end),
  reservations,
});

const created = async (body: unknown): Promise<any> => {
  const response = await http.post('/v1/leases', body);
  expect(response.status, describeBody(response)).toBe(201);
  return response.body.lease;
};

/** A write that must be refused with `status` in Blazar's error body, appending nothing. */
const refused = async (send: () => Promise<JsonResponse>, status: number, message: RegExp): Promise<any> => {
  const before = ledgerCount(system.dataDir);
  const response = await send();
  expect(response.status, describeBody(response)).toBe(status);
  expect(response.body).toMatchObject({ error_code: status, error_name: status, error_message: expect.stringMatching(message) });
  expect(ledgerCount(system.dataDir), 'a refused write appends nothing').toBe(before);
  return response.body;
};

const heldBy = async (reservationId: string): Promise<string[]> => {
  const { allocations } = (await http.get('/v1/networks/allocations')).body;
  return allocations.filter((a: any) => a.reservations.some((r: any) => r.id === reservationId)).map((a: any) => a.resource_id);
};

describe('a lease holding a network segment', () => {
  let segment: string;

  beforeAll(async () => {
    segment = await register(300, 'physnet3');
  });

  it("shows the reservation in Chameleon's shape, and the segment's allocation", async () => {
    const body = lease('net-a', 24 * 60, 26 * 60, [
      network({ network_description: 'lab', network_properties: PHYSNET3, resource_properties: '', before_end: 'notify' }),
    ]);
    const shown = await created(body);
    expect(Object.keys(shown)).toEqual(LEASE_KEYS);
    const [reservation] = shown.reservations;
    expect(Object.keys(reservation)).toEqual(NETWORK_KEYS);
    expect(reservation).toMatchObject({
      resource_type: 'network',
      status: 'pending',
      network_name: 'mynet',
      network_description: 'lab',
      network_properties: PHYSNET3,
      resource_properties: '',
      before_end: 'notify',
      network_id: null,
      end_action: 'delete_network',
    });
    expect(await heldBy(reservation.id)).toEqual([segment]);
    const one = (await http.get(`/v1/networks/${segment}/allocation`)).body.allocation;
    expect(one.reservations).toEqual([{ id: reservation.id, lease_id: shown.id, start_date: shown.start_date, end_date: shown.end_date }]);
    expect((await http.get(`/v1/leases/${shown.id}`)).body.lease).toEqual(shown);
  });

  it('refuses an overlapping lease, and one within the cleaning time, with counter-offers (409), writing nothing', async () => {
    const overlap = await refused(
      () => http.post('/v1/leases', lease('net-b', 25 * 60, 27 * 60, [network({ network_properties: PHYSNET3 })])),
      409,
      /^Not enough networks available: 1 segments match, 0 free for the whole lease, 1 requested/,
    );
    expect(overlap.alternatives.length).toBeGreaterThan(0);
    // the first counter-offer starts once the segment is free again, cleaning time included
    expect(overlap.alternatives[0].start_date).toBe(blazarDate(26 * 60 + CLEANING_MINUTES));
    await refused(
      () => http.post('/v1/leases', lease('net-c', 26 * 60 + 10, 28 * 60, [network({ network_properties: PHYSNET3 })])),
      409,
      /^Not enough networks available/,
    );
    await created(lease('net-d', 26 * 60 + CLEANING_MINUTES, 28 * 60, [network({ network_properties: PHYSNET3 })]));
  });

  it('admits a lease atomically: a host reservation it also asks for is not booked when its segment is refused', async () => {
    const host = await http.post('/v1/os-hosts', { name: 'net-host-1' });
    expect(host.status, describeBody(host)).toBe(201);
    await refused(
      () => http.post('/v1/leases', lease('net-mixed', 25 * 60, 26 * 60, [hostReservation(1), network({ network_properties: PHYSNET3 })])),
      409,
      /^Not enough networks available/,
    );
    const mixed = await created(lease('net-mixed', 40 * 60, 41 * 60, [hostReservation(1), network({ network_properties: PHYSNET3 })]));
    expect(mixed.reservations.map((r: any) => r.resource_type)).toEqual(['physical:host', 'network']);
  });

  it('re-checks updates: dates into another booking are refused (409), properties move a pending reservation', async () => {
    const first = await register(800, 'physnet8');
    const other = await register(801, 'physnet8', { speed: '10' });
    const on800 = network({ network_properties: '["==", "$segment_id", "800"]' });
    const shown = await created(lease('net-update', 50 * 60, 51 * 60, [on800]));
    const [reservation] = shown.reservations;
    expect(await heldBy(reservation.id)).toEqual([first]);
    const blocker = await created(lease('net-blocker', 52 * 60, 53 * 60, [on800]));
    expect(await heldBy(blocker.reservations[0].id)).toEqual([first]);
    await refused(() => http.put(`/v1/leases/${shown.id}`, { end_date: blazarDate(52 * 60 + 30) }), 409, /^Not enough networks available/);
    const moved = await http.put(`/v1/leases/${shown.id}`, {
      reservations: [{ id: reservation.id, network_properties: '', resource_properties: '["==", "$speed", "10"]' }],
    });
    expect(moved.status, describeBody(moved)).toBe(200);
    expect(moved.body.lease.reservations[0]).toMatchObject({ network_properties: '', resource_properties: '["==", "$speed", "10"]' });
    expect(await heldBy(reservation.id)).toEqual([other]);
    // now on the other segment, the lease may run into the blocker's hours
    const extended = await http.put(`/v1/leases/${shown.id}`, { end_date: blazarDate(52 * 60 + 30) });
    expect(extended.status, describeBody(extended)).toBe(200);
    expect(await heldBy(reservation.id)).toEqual([other]);
  });

  it("refuses bad input with 400 in Blazar's body, writing nothing", async () => {
    const bad = (reservation: Record<string, unknown>) => () => http.post('/v1/leases', lease('net-bad', 60 * 60, 61 * 60, [reservation]));
    await refused(bad({ resource_type: 'network' }), 400, /network_name/);
    await refused(bad(network({ network_name: '' })), 400, /network_name/);
    await refused(bad(network({ network_properties: '["==", "$segment_id"]' })), 400, /Malformed requirements/);
    await refused(bad(network({ before_end: 'snapshot' })), 400, /before_end/);
    await refused(bad(network({ network_name: 7 })), 400, /network_name/);
  });

  it('deleting a pending lease frees its segment, which may then be unregistered', async () => {
    const lone = await register(302, 'physnet4');
    const shown = await created(
      lease('net-delete', 70 * 60, 71 * 60, [network({ network_properties: '["==", "$physical_network", "physnet4"]' })]),
    );
    expect(await heldBy(shown.reservations[0].id)).toEqual([lone]);
    const refusedDelete = await http.delete(`/v1/networks/${lone}`);
    expect(refusedDelete.status, describeBody(refusedDelete)).toBe(409);
    expect((await http.delete(`/v1/leases/${shown.id}`)).status).toBe(204);
    expect(await heldBy(shown.reservations[0].id)).toEqual([]);
    expect((await http.delete(`/v1/networks/${lone}`)).status).toBe(204);
  });
});

describe('network reservations across the API', () => {
  it('counts segments held at once against the networks quota (403), writing nothing', async () => {
    await register(400, 'physnet5');
    await register(401, 'physnet5');
    const project = 'leasehold-admin-project';
    const set = await http.put(`/v1/quotas/${project}`, { networks: 1 });
    expect(set.status, describeBody(set)).toBe(200);
    expect(set.body.quota.limits.networks).toBe(1);
    const physnet5 = network({ network_properties: '["==", "$physical_network", "physnet5"]' });
    await created(lease('quota-1', 80 * 60, 82 * 60, [physnet5]));
    await refused(
      () => http.post('/v1/leases', lease('quota-2', 81 * 60, 83 * 60, [physnet5])),
      403,
      /network segments held at once limit 1, this lease would make it 2/,
    );
    await created(lease('quota-3', 83 * 60, 84 * 60, [physnet5]));
    expect((await http.put(`/v1/quotas/${project}`, { networks: null })).status).toBe(200);
  });

  it('answers availability for a network reservation: the windows where a segment is free', async () => {
    await register(500, 'physnet6');
    const physnet6 = network({ network_properties: '["==", "$physical_network", "physnet6"]' });
    await created(lease('avail-1', 90 * 60, 92 * 60, [physnet6]));
    const response = await http.post('/v1/availability', {
      not_before: blazarDate(89 * 60),
      not_after: blazarDate(96 * 60),
      duration: 'PT2H',
      reservations: [physnet6],
    });
    expect(response.status, describeBody(response)).toBe(200);
    const windows = JSON.stringify(response.body);
    expect(windows).toContain(blazarDate(92 * 60 + CLEANING_MINUTES));
  });

  it('shows the reservation in GraphQL as REST does, and in the lease history', async () => {
    await register(600, 'physnet7');
    const shown = await created(
      lease('gql-1', 100 * 60, 101 * 60, [network({ network_properties: '["==", "$physical_network", "physnet7"]' })]),
    );
    const reply = await graphqlClient(system.url)(`query ($id: ID!) { lease(id: $id) { ${LEASE_FIELDS} } }`, { id: shown.id });
    expect(reply.errors).toBeUndefined();
    const rest = (await http.get(`/v1/leases/${shown.id}`)).body.lease;
    expect(reply.data.lease.reservations).toEqual(rest.reservations);
    const history = await http.get(`/v1/leases/${shown.id}/history`);
    expect(history.status, describeBody(history)).toBe(200);
    expect(JSON.stringify(history.body)).toContain('"resource_type":"network"');
  });
});

describe('a network lease run by the whole standalone system (api + projector + reactor)', () => {
  let full: RunningSystem;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    full = await startSystem();
    client = api(full.url);
  });

  afterAll(async () => {
    await full?.stop();
  });

  const leaseOf = async (id: string): Promise<any> => (await client.get(`/v1/leases/${id}`)).body.lease;
  const minuteOf = (ms: number): number => Math.floor(ms / 60_000);

  it('creates the network at the start (its id in the view), removes it at the end, frees the segment and bills segment-hours', async () => {
    const registered = await client.post('/v1/networks', { network_type: 'vlan', physical_network: 'physnet1', segment_id: 150 });
    expect(registered.status, describeBody(registered)).toBe(201);
    const segment = registered.body.network.id;
    const started = Date.now();
    const created = await client.post('/v1/leases', {
      name: 'net-run',
      start_date: 'now',
      end_date: blazarDate(60),
      reservations: [network({ network_name: 'tenant-net', network_description: 'for the run' })],
    });
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id;
    const active = await eventually(async () => {
      const shown = await leaseOf(leaseId);
      return shown.status === 'ACTIVE' && shown.reservations[0].network_id !== null ? shown : undefined;
    }, 30_000);
    expect(active.reservations[0]).toMatchObject({ status: 'active', network_name: 'tenant-net', network_id: expect.stringMatching(UUID) });

    // "now" is the current minute and the end must come after the start: wait for the next minute
    await eventually(async () => (minuteOf(Date.now()) > minuteOf(started) ? true : undefined), 65_000);
    const ended = await client.put(`/v1/leases/${leaseId}`, { end_date: 'now' });
    expect(ended.status, describeBody(ended)).toBe(200);
    const terminated = await eventually(async () => {
      const shown = await leaseOf(leaseId);
      return shown.status === 'TERMINATED' ? shown : undefined;
    }, 30_000);
    expect(terminated.reservations[0]).toMatchObject({ status: 'deleted', network_id: active.reservations[0].network_id });

    const history = JSON.stringify((await client.get(`/v1/leases/${leaseId}/history`)).body);
    expect(history).toContain('"operation":"network.create"');
    expect(history).toContain('"operation":"network.delete"');

    // the segment is free again: a lease over the rest of the window takes it
    const again = await client.post('/v1/leases', {
      name: 'net-again',
      start_date: 'now',
      end_date: blazarDate(30),
      reservations: [network()],
    });
    expect(again.status, describeBody(again)).toBe(201);
    expect((await client.get(`/v1/networks/${segment}/allocation`)).body.allocation.reservations.map((r: any) => r.lease_id)).toContain(
      again.body.lease.id,
    );

    const usage = await client.get(
      `/v1/usage?start=${encodeURIComponent(blazarDate(-60))}&end=${encodeURIComponent(blazarDate(60))}&group_by=lease`,
    );
    expect(usage.status, describeBody(usage)).toBe(200);
    const line = usage.body.usage.lines.find((l: any) => l.lease_id === leaseId);
    expect(line).toMatchObject({ resource_type: 'network', host_hours: 0, floating_ip_hours: 0 });
    expect(line.network_hours).toBeGreaterThan(0);
    expect(line.network_hours).toBeLessThanOrEqual(2 / 60 + 0.01);
  }, 180_000);
});
