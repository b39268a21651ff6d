/**
 * Maintenance windows on floating IPs and network segments through HTTP against the running system (static tokens,
 * default policy, cleaning time 0), by the same routes and rules as the hosts' (maintenance.e2e.spec.ts): an admin
 * schedules, lists and cancels windows; a lease never gets a resource for an instant inside one of its windows
 * (refused when it names the resource, given another when one is free), availability and counter-offers skip the
 * window, capacity counts a segment in maintenance, a cancellation restores the resource; a member is refused (403)
 * and bad input answers 400, both leaving the ledger as it was. Every test registers its own resources (addresses
 * on their own network, segments on their own physical network) and books its own day.
 */
import { describe, expect, it } from 'vitest';
import { T_DATE, UUID, dayAt, ledgerCount, tDate, policyDenied } from '../helpers/api-fixtures.js';
import { api, floatingIpReservation, heldBy } from '../helpers/http.js';
import { describeBody } from '../helpers/lease-client.js';
import { staticAuthSuite } from '../helpers/static-auth.js';

const IDENTITIES = {
  admin: { token: 'tok-admin', user_id: 'u-admin', project_id: 'project-admin', roles: ['admin'] },
  member: { token: 'tok-member', user_id: 'u-member', project_id: 'project-a', roles: ['member'] },
} as const;
const ADMIN = { 'X-Auth-Token': IDENTITIES.admin.token };
const MEMBER = { 'X-Auth-Token': IDENTITIES.member.token };

/** One external network per test: `3f0b6a52-...-0d1f6e2b7b<nn>`. */
const network = (n: number): string => `3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7b${String(n).padStart(2, '0')}`;

const suite = staticAuthSuite(IDENTITIES);
const client = () => api(suite.system.url);

const register = async (networkId: string, address: string): Promise<string> => {
  const response = await client().post('/v1/floatingips', { floating_network_id: networkId, floating_ip_address: address }, ADMIN);
  expect(response.status, describeBody(response)).toBe(201);
  return response.body.floatingip.id as string;
};

const schedule = (floatingIpId: string, body: unknown, headers: Record<string, string> = ADMIN) =>
  client().post(`/v1/floatingips/${floatingIpId}/maintenance`, body, headers);

const lease = (name: string, start: string, end: string, reservations: unknown[]) =>
  client().post('/v1/leases', { name, start_date: start, end_date: end, reservations }, ADMIN);

/** The floating IP ids a created lease holds. */
const heldAddresses = (leaseId: string): Promise<string[]> => heldBy(client(), '/v1/floatingips/allocations', leaseId, ADMIN);

describe('maintenance windows on floating IPs (api + projector + reactor)', () => {
  it('are scheduled, listed per address and over all addresses, in Blazar date form', async () => {
    const fipId = await register(network(1), '172.25.1.10');
    const [start, end] = [dayAt(40, '10:00'), dayAt(40, '14:00')];
    const created = await schedule(fipId, { start, end, reason: 'router swap' });
    expect(created.status, describeBody(created)).toBe(201);
    const window = {
      id: expect.stringMatching(UUID),
      floatingip_id: fipId,
      start_date: tDate(start),
      end_date: tDate(end),
      reason: 'router swap',
    };
    expect(created.body).toEqual({ maintenance_window: window });
    expect(Object.keys(created.body.maintenance_window)).toEqual(['id', 'floatingip_id', 'start_date', 'end_date', 'reason']);
    expect(created.body.maintenance_window.start_date).toMatch(T_DATE);
    const mine = await client().get(`/v1/floatingips/${fipId}/maintenance`, ADMIN);
    expect(mine.body).toEqual({ maintenance_windows: [created.body.maintenance_window] });
    const all = await client().get('/v1/floatingips/maintenance', ADMIN);
    expect(all.status).toBe(200);
    expect(all.body.maintenance_windows).toContainEqual(created.body.maintenance_window);
    const hosts = await client().get('/v1/os-hosts/maintenance', ADMIN);
    expect(hosts.body.maintenance_windows.map((w: { id: string }) => w.id)).not.toContain(created.body.maintenance_window.id);
  });

  it('keep an address from every new lease for any instant inside them; another free one is given instead', async () => {
    const net = network(2);
    const first = await register(net, '172.25.2.10');
    const second = await register(net, '172.25.2.11');
    const day = (time: string) => dayAt(42, time);
    expect((await schedule(first, { start: day('10:00'), end: day('14:00'), reason: 'router swap' })).status).toBe(201);

    const before = ledgerCount(suite.system.dataDir);
    const named = await lease('mwf-named', day('13:00'), day('15:00'), [floatingIpReservation(net, 1, ['172.25.2.10'])]);
    expect(named.status, describeBody(named)).toBe(409);
    expect(named.body.error_message).toContain('Not enough floating IPs available: 172.25.2.10 in maintenance during part of this period');
    expect(named.body.error_message).toContain(`Earliest alternative: ${day('14:00')} to ${day('16:00')}.`);
    expect(ledgerCount(suite.system.dataDir)).toBe(before);

    const byCount = await lease('mwf-count', day('09:00'), day('11:00'), [floatingIpReservation(net, 1)]);
    expect(byCount.status, describeBody(byCount)).toBe(201);
    expect(await heldAddresses(byCount.body.lease.id)).toEqual([second]);
    const both = await lease('mwf-both', day('12:00'), day('13:00'), [floatingIpReservation(net, 2)]);
    expect(both.status, `a count that needs the address in its window: ${describeBody(both)}`).toBe(409);

    const after = await lease('mwf-after', day('14:00'), day('16:00'), [floatingIpReservation(net, 1, ['172.25.2.10'])]);
    expect(after.status, describeBody(after)).toBe(201);
    expect(await heldAddresses(after.body.lease.id)).toEqual([first]);
    const early = await lease('mwf-early', day('08:00'), day('10:00'), [floatingIpReservation(net, 1, ['172.25.2.10'])]);
    expect(early.status, describeBody(early)).toBe(201);
    const moved = await client().put(`/v1/leases/${early.body.lease.id}`, { end_date: day('10:30') }, ADMIN);
    expect(moved.status, `an update reaching into the window: ${describeBody(moved)}`).toBe(409);
    const shown = await client().get(`/v1/leases/${early.body.lease.id}`, ADMIN);
    expect(shown.body.lease.end_date).toBe(tDate(day('10:00')));
  });

  it('show in availability as a gap, and a cancellation gives the address back', async () => {
    const net = network(3);
    const fipId = await register(net, '172.25.3.10');
    const day = (time: string) => dayAt(43, time);
    const search = () =>
      client().post(
        '/v1/availability',
        { reservations: [floatingIpReservation(net, 1)], duration: 'PT2H', not_before: day('09:00'), not_after: day('23:00'), limit: 1 },
        ADMIN,
      );
    expect((await search()).body.windows[0].start_date).toBe(day('09:00'));
    const created = await schedule(fipId, { start: day('10:00'), end: day('14:00'), reason: 'renumbering' });
    const windowId = created.body.maintenance_window.id as string;
    const during = await search();
    expect(during.status, describeBody(during)).toBe(200);
    expect(during.body.windows[0].start_date).toBe(day('14:00'));

    const cancelled = await client().delete(`/v1/floatingips/${fipId}/maintenance/${windowId}`, ADMIN);
    expect(cancelled.status, describeBody(cancelled)).toBe(204);
    expect((await client().get(`/v1/floatingips/${fipId}/maintenance`, ADMIN)).body).toEqual({ maintenance_windows: [] });
    expect((await search()).body.windows[0].start_date).toBe(day('09:00'));
    const inside = await lease('mwf-in', day('11:00'), day('13:00'), [floatingIpReservation(net, 1, ['172.25.3.10'])]);
    expect(inside.status, describeBody(inside)).toBe(201);
    expect((await client().delete(`/v1/floatingips/${fipId}/maintenance/${windowId}`, ADMIN)).status).toBe(404);
    const history = await client().get(`/v1/floatingips/${fipId}/history`, ADMIN);
    expect(history.body.history.map((entry: { type: string }) => entry.type)).toEqual(
      expect.arrayContaining(['floating_ip.maintenance_scheduled', 'floating_ip.maintenance_cancelled']),
    );
  });

  it('are refused to a member (403) for every route, nothing written', async () => {
    const fipId = await register(network(4), '172.25.4.10');
    const window = await schedule(fipId, { start: dayAt(44, '10:00'), end: dayAt(44, '11:00'), reason: 'r' });
    const before = ledgerCount(suite.system.dataDir);
    const post = await schedule(fipId, { start: dayAt(45, '10:00'), end: dayAt(45, '11:00'), reason: 'r' }, MEMBER);
    expect(post.body).toEqual(policyDenied('leasehold:floatingips:post_maintenance'));
    const remove = await client().delete(`/v1/floatingips/${fipId}/maintenance/${window.body.maintenance_window.id}`, MEMBER);
    expect(remove.body).toEqual(policyDenied('leasehold:floatingips:delete_maintenance'));
    const list = await client().get(`/v1/floatingips/${fipId}/maintenance`, MEMBER);
    expect(list.body).toEqual(policyDenied('leasehold:floatingips:get_maintenance'));
    expect((await client().get('/v1/floatingips/maintenance', MEMBER)).status).toBe(403);
    expect(ledgerCount(suite.system.dataDir)).toBe(before);
  });

  it("answer bad input with 400 (404 for an unknown address, 409 for an overlap) in Blazar's error body, nothing written", async () => {
    const fipId = await register(network(5), '172.25.5.10');
    const day = (time: string) => dayAt(46, time);
    expect((await schedule(fipId, { start: day('10:00'), end: day('12:00'), reason: 'r' })).status).toBe(201);
    const before = ledgerCount(suite.system.dataDir);
    const cases: [unknown, number, string][] = [
      [{ end: day('12:00'), reason: 'r' }, 400, 'Missing parameter start'],
      [{ start: day('10:00'), end: day('12:00'), reason: 'x'.repeat(256) }, 400, 'Malformed parameter reason (at most 255 characters)'],
      [{ start: 'tomorrow', end: day('12:00'), reason: 'r' }, 400, 'Malformed parameter start'],
      [{ start: day('14:00'), end: day('13:00'), reason: 'r' }, 400, 'The end must be later than the start.'],
      [{ start: '2020-01-01 10:00', end: '2020-01-01 12:00', reason: 'r' }, 400, 'must be in the future'],
      [{ start: day('15:00'), end: day('16:00'), reason: 'r', floatingip_id: fipId }, 400, 'Unknown parameter floatingip_id'],
      [{ start: day('11:00'), end: day('13:00'), reason: 'r' }, 409, 'Floating IP 172.25.5.10 already has maintenance window'],
    ];
    for (const [body, status, message] of cases) {
      const reply = await schedule(fipId, body);
      expect(reply.status, `${JSON.stringify(body)}: ${describeBody(reply)}`).toBe(status);
      expect(reply.body).toMatchObject({ error_code: status, error_name: status });
      expect(reply.body.error_message).toContain(message);
    }
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await schedule(unknown, { start: day('10:00'), end: day('12:00'), reason: 'r' })).status).toBe(404);
    expect((await client().get(`/v1/floatingips/${unknown}/maintenance`, ADMIN)).status).toBe(404);
    expect((await client().get('/v1/floatingips/not-an-id/maintenance', ADMIN)).status).toBe(404);
    expect((await client().delete(`/v1/floatingips/${fipId}/maintenance/no-such-window`, ADMIN)).status).toBe(404);
    expect((await client().delete(`/v1/floatingips/${fipId}/maintenance/${unknown}`, ADMIN)).status).toBe(404);
    expect(ledgerCount(suite.system.dataDir)).toBe(before);
  });
});

/** One physical network per test, so that a lease asking for any segment of it sees only the test's own. */
const physnet = (n: number): string => `mw-physnet-${n}`;
let nextTag = 3100;

const registerSegment = async (physicalNetwork: string): Promise<string> => {
  const body = { network_type: 'vlan', physical_network: physicalNetwork, segment_id: nextTag++ };
  const response = await client().post('/v1/networks', body, ADMIN);
  expect(response.status, describeBody(response)).toBe(201);
  return response.body.network.id as string;
};

const segmentOf = (name: string, where: string) => ({
  resource_type: 'network',
  network_name: name,
  network_properties: JSON.stringify(['==', '$physical_network', where]),
  resource_properties: '',
});

const pinnedSegment = (name: string, networkId: string) => ({
  ...segmentOf(name, ''),
  network_properties: JSON.stringify(['==', '$id', networkId]),
});

/** The segment ids a created lease holds. */
const heldSegments = (leaseId: string): Promise<string[]> => heldBy(client(), '/v1/networks/allocations', leaseId, ADMIN);

describe('maintenance windows on network segments (api + projector + reactor)', () => {
  const scheduleOn = (networkId: string, body: unknown, headers: Record<string, string> = ADMIN) =>
    client().post(`/v1/networks/${networkId}/maintenance`, body, headers);

  it('are scheduled and listed with the segment as network_id; a lease pinned to it is refused, one by properties gets another', async () => {
    const where = physnet(1);
    const first = await registerSegment(where);
    const second = await registerSegment(where);
    const day = (time: string) => dayAt(47, time);
    const created = await scheduleOn(first, { start: day('10:00'), end: day('14:00'), reason: 'switch upgrade' });
    expect(created.status, describeBody(created)).toBe(201);
    expect(Object.keys(created.body.maintenance_window)).toEqual(['id', 'network_id', 'start_date', 'end_date', 'reason']);
    expect(created.body.maintenance_window).toMatchObject({ network_id: first, start_date: tDate(day('10:00')) });
    expect((await client().get(`/v1/networks/${first}/maintenance`, ADMIN)).body).toEqual({
      maintenance_windows: [created.body.maintenance_window],
    });
    expect((await client().get('/v1/networks/maintenance', ADMIN)).body.maintenance_windows).toContainEqual(
      created.body.maintenance_window,
    );

    const before = ledgerCount(suite.system.dataDir);
    const pinned = await lease('mwn-pinned', day('13:00'), day('15:00'), [pinnedSegment('mwn-pinned', first)]);
    expect(pinned.status, describeBody(pinned)).toBe(409);
    expect(pinned.body.error_message).toContain('1 in maintenance during part of this period');
    expect(pinned.body.error_message).toContain(`Earliest alternative: ${day('14:00')} to ${day('16:00')}.`);
    expect(ledgerCount(suite.system.dataDir)).toBe(before);

    const byProperties = await lease('mwn-any', day('11:00'), day('12:00'), [segmentOf('mwn-any', where)]);
    expect(byProperties.status, describeBody(byProperties)).toBe(201);
    expect(await heldSegments(byProperties.body.lease.id)).toEqual([second]);
    const after = await lease('mwn-after', day('14:00'), day('16:00'), [pinnedSegment('mwn-after', first)]);
    expect(after.status, describeBody(after)).toBe(201);
    expect(await heldSegments(after.body.lease.id)).toEqual([first]);
  });

  it('show in availability as a gap and in capacity as in_maintenance; a cancellation gives the segment back', async () => {
    const where = physnet(2);
    const networkId = await registerSegment(where);
    const day = (time: string) => dayAt(48, time);
    const search = () =>
      client().post(
        '/v1/availability',
        { reservations: [segmentOf('mwn-av', where)], duration: 'PT2H', not_before: day('09:00'), not_after: day('23:00'), limit: 1 },
        ADMIN,
      );
    expect((await search()).body.windows[0].start_date).toBe(day('09:00'));
    const created = await scheduleOn(networkId, { start: day('10:00'), end: day('14:00'), reason: 'recabling' });
    const during = await search();
    expect(during.status, describeBody(during)).toBe(200);
    expect(during.body.windows[0].start_date).toBe(day('14:00'));

    const capacity = await client().get(
      `/v1/capacity?start=${encodeURIComponent(day('09:00'))}&end=${encodeURIComponent(day('15:00'))}&step=PT2H`,
      ADMIN,
    );
    expect(capacity.status, describeBody(capacity)).toBe(200);
    interface KindStep {
      readonly start: string;
      readonly registered: number;
      readonly in_maintenance: number;
      readonly booked: number;
      readonly free: number;
    }
    const pool = capacity.body.capacity.pools.find(
      (p: { resource_type: string; physical_network?: string }) => p.resource_type === 'network' && p.physical_network === where,
    );
    expect(pool.steps.map((s: KindStep) => [s.start, s.registered, s.in_maintenance, s.booked, s.free])).toEqual([
      [day('09:00'), 1, 1, 0, 0],
      [day('11:00'), 1, 1, 0, 0],
      [day('13:00'), 1, 1, 0, 0],
    ]);

    const windowId = created.body.maintenance_window.id as string;
    expect((await client().delete(`/v1/networks/${networkId}/maintenance/${windowId}`, ADMIN)).status).toBe(204);
    expect((await search()).body.windows[0].start_date).toBe(day('09:00'));
    const history = await client().get(`/v1/networks/${networkId}/history`, ADMIN);
    expect(history.body.history.map((entry: { type: string }) => entry.type)).toEqual(
      expect.arrayContaining(['network_segment.maintenance_scheduled', 'network_segment.maintenance_cancelled']),
    );
  });

  it('are refused to a member (403), and bad input is a 400 (404 for an unknown segment), nothing written', async () => {
    const networkId = await registerSegment(physnet(3));
    const day = (time: string) => dayAt(49, time);
    const window = await scheduleOn(networkId, { start: day('10:00'), end: day('11:00'), reason: 'r' });
    const before = ledgerCount(suite.system.dataDir);
    const body = { start: day('12:00'), end: day('13:00'), reason: 'r' };
    expect((await scheduleOn(networkId, body, MEMBER)).body).toEqual(policyDenied('leasehold:networks:post_maintenance'));
    const path = `/v1/networks/${networkId}/maintenance/${window.body.maintenance_window.id}`;
    expect((await client().delete(path, MEMBER)).body).toEqual(policyDenied('leasehold:networks:delete_maintenance'));
    expect((await client().get(`/v1/networks/${networkId}/maintenance`, MEMBER)).body).toEqual(
      policyDenied('leasehold:networks:get_maintenance'),
    );
    expect((await client().get('/v1/networks/maintenance', MEMBER)).status).toBe(403);
    const bad = await scheduleOn(networkId, { start: day('12:00'), end: day('11:00'), reason: 'r' });
    expect(bad.body).toEqual({ error_code: 400, error_name: 400, error_message: 'The end must be later than the start.' });
    expect((await scheduleOn(networkId, { ...body, network_id: networkId })).status).toBe(400);
    expect((await scheduleOn(networkId, { start: day('10:30'), end: day('12:00'), reason: 'r' })).status).toBe(409);
    expect((await scheduleOn('00000000-0000-4000-8000-000000000000', body)).status).toBe(404);
    expect(ledgerCount(suite.system.dataDir)).toBe(before);
  });
});
