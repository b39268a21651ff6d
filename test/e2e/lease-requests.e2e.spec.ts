/**
 * Lease requests through HTTP against the running system (static tokens, default policy, cleaning time 0): a request
 * that fits when it is made becomes a lease at once, in the same append as the request's admission, the lease's events
 * naming the request as their causation; one that does not fit waits in the queue with its rank and the earliest start
 * the availability search predicts, and the prediction is where a lease is then admitted and not a minute earlier; a
 * queued request is withdrawn, an admitted one is not; another project neither sees nor withdraws it; bad input answers
 * 400 with nothing written. Every test books its own hosts.
 */
import { describe, expect, it } from 'vitest';
import { T_DATE, UUID, addMinutes, ledgerCount, ledgerEvents, tDate } from '../helpers/api-fixtures.js';
import { api, blazarDate, floatingIpReservation } from '../helpers/http.js';
import { describeBody } from '../helpers/lease-client.js';
import { alignedTable, leasehold } from '../helpers/cli.js';
import { staticAuthSuite } from '../helpers/static-auth.js';

const IDENTITIES = {
  admin: { token: 'tok-admin', user_id: 'u-admin', project_id: 'project-admin', roles: ['admin'] },
  member: { token: 'tok-member', user_id: 'u-member', project_id: 'project-a', roles: ['member'] },
  other: { token: 'tok-other', user_id: 'u-other', project_id: 'project-b', roles: ['member'] },
} as const;
const ADMIN = { 'X-Auth-Token': IDENTITIES.admin.token };
const MEMBER = { 'X-Auth-Token': IDENTITIES.member.token };
const OTHER = { 'X-Auth-Token': IDENTITIES.other.token };
const NETWORK = '5b2e7c1a-3d4f-4a6b-8c9d-0e1f2a3b4c5d';

const hostsOf = (group: string, min: number) => ({
  resource_type: 'physical:host',
  min,
  max: min,
  hypervisor_properties: '',
  resource_properties: JSON.stringify(['==', '$group', group]),
});

const suite = staticAuthSuite(IDENTITIES);
const client = () => api(suite.system.url);

const registerHosts = async (group: string, count: number): Promise<void> => {
  for (let i = 1; i <= count; i += 1) {
    const response = await client().post('/v1/os-hosts', { name: `${group}-${i}`, group }, ADMIN);
    expect(response.status, describeBody(response)).toBe(201);
  }
};

const submit = (body: unknown, headers: Record<string, string> = MEMBER) => client().post('/v1/lease-requests', body, headers);
const show = (id: string, headers: Record<string, string> = MEMBER) => client().get(`/v1/lease-requests/${id}`, headers);
const withdraw = (id: string, headers: Record<string, string> = MEMBER) => client().delete(`/v1/lease-requests/${id}`, headers);

/** A lease over the group's hosts from `start` to `end` (request dates), as the admin. */
const lease = (name: string, start: string, end: string, group: string, min: number) =>
  client().post('/v1/leases', { name, start_date: start, end_date: end, reservations: [hostsOf(group, min)] }, ADMIN);

describe('lease requests (api + projector + reactor)', () => {
  it('one that fits when it is made becomes a lease at once, hosts and a floating IP together, caused by the request', async () => {
    await registerHosts('lr-fit', 2);
    const fip = await client().post('/v1/floatingips', { floating_network_id: NETWORK, floating_ip_address: '198.51.100.7' }, ADMIN);
    expect(fip.status, describeBody(fip)).toBe(201);
    const reservations = [hostsOf('lr-fit', 2), floatingIpReservation(NETWORK, 1)];
    const created = await submit({ name: 'fits', reservations, duration: 'PT2H' });
    expect(created.status, describeBody(created)).toBe(201);
    const request = created.body.lease_request;
    expect(request).toMatchObject({
      id: expect.stringMatching(UUID),
      name: 'fits',
      project_id: 'project-a',
      user_id: 'u-member',
      status: 'admitted',
      duration: 120,
      position: null,
      predicted_start: null,
      lease_id: expect.stringMatching(UUID),
    });
    expect(request.reservations).toEqual([hostsOf('lr-fit', 2), { resource_type: 'virtual:floatingip', network_id: NETWORK, amount: 1 }]);

    const shown = await client().get(`/v1/leases/${request.lease_id as string}`, MEMBER);
    expect(shown.status, describeBody(shown)).toBe(200);
    expect(shown.body.lease.name).toBe('fits');
    expect(shown.body.lease.reservations.map((r: { resource_type: string }) => r.resource_type).sort()).toEqual([
      'physical:host',
      'virtual:floatingip',
    ]);
    expect(Date.parse(`${shown.body.lease.end_date as string}Z`) - Date.parse(`${shown.body.lease.start_date as string}Z`)).toBe(
      120 * 60_000,
    );

    const own = ledgerEvents(suite.system.dataDir, `leaserequest-${request.id as string}`);
    expect(own.map((e) => e.type)).toEqual(['LeaseRequest.Submitted', 'LeaseRequest.Admitted']);
    expect(own[1]?.data).toMatchObject({ requestId: request.id, leaseId: request.lease_id, projectId: 'project-a' });
    const leaseEvents = ledgerEvents(suite.system.dataDir, `lease-${request.lease_id as string}`);
    const creation = leaseEvents.find((e) => e.type === 'Lease.Created');
    expect(creation?.metadata.causationId).toBe(request.id);
    // one append: the request's events follow the lease's creation with the same recorded time, nothing between them but the bookings
    expect(own.every((e) => e.recordedAt === creation?.recordedAt)).toBe(true);

    const listed = await client().get('/v1/lease-requests', MEMBER);
    expect(listed.status).toBe(200);
    expect(listed.body.lease_requests.find((r: { id: string }) => r.id === request.id)).toMatchObject({ status: 'admitted' });
    const again = await withdraw(request.id);
    expect(again.status, 'an admitted request is not withdrawn: its lease is deleted instead').toBe(409);
  });

  it('one that does not fit waits with its rank and a predicted start that is right, and is withdrawn', async () => {
    await registerHosts('lr-busy', 1);
    const until = blazarDate(4 * 60);
    const busy = await lease('lr-busy-until', 'now', until, 'lr-busy', 1);
    expect(busy.status, describeBody(busy)).toBe(201);
    const startBy = addMinutes(until, 24 * 60);
    const first = await submit({ name: 'waits-1', reservations: [hostsOf('lr-busy', 1)], duration: 60, start_by: startBy });
    expect(first.status, describeBody(first)).toBe(201);
    expect(first.body.lease_request).toMatchObject({ status: 'queued', position: 1, lease_id: null, predicted_start: tDate(until) });
    expect(first.body.lease_request.start_by).toBe(tDate(startBy));
    expect(first.body.lease_request.predicted_start).toMatch(T_DATE);
    const second = await submit({ name: 'waits-2', reservations: [hostsOf('lr-busy', 1)], duration: 60, start_by: startBy });
    expect(second.body.lease_request).toMatchObject({ status: 'queued', position: 2 });
    const firstId = first.body.lease_request.id as string;
    const secondId = second.body.lease_request.id as string;
    expect(ledgerEvents(suite.system.dataDir, `leaserequest-${firstId}`).map((e) => e.type)).toEqual(['LeaseRequest.Submitted']);

    // the prediction is right: a lease of the request's shape is admitted at it, and not a minute earlier
    const early = await lease('lr-early', addMinutes(until, -1), addMinutes(until, 59), 'lr-busy', 1);
    expect(early.status, describeBody(early)).toBe(409);
    const atPrediction = await lease('lr-at', until, addMinutes(until, 60), 'lr-busy', 1);
    expect(atPrediction.status, describeBody(atPrediction)).toBe(201);
    const moved = await show(firstId);
    expect(moved.body.lease_request.predicted_start, 'the next free hour now').toBe(tDate(addMinutes(until, 60)));

    const withdrawn = await withdraw(firstId);
    expect(withdrawn.status, describeBody(withdrawn)).toBe(204);
    const after = await show(firstId);
    expect(after.body.lease_request).toMatchObject({ status: 'withdrawn', position: null, predicted_start: null });
    expect((await show(secondId)).body.lease_request.position, 'the second moves up').toBe(1);
    const history = await client().get(`/v1/lease-requests/${firstId}/history`, MEMBER);
    expect(history.status, describeBody(history)).toBe(200);
    expect(history.body.history.map((e: { type: string }) => e.type)).toEqual(['lease_request.submitted', 'lease_request.withdrawn']);
    expect((await client().get(`/v1/lease-requests/${firstId}/history`, OTHER)).status).toBe(403);
    expect((await withdraw(firstId)).status).toBe(409);
    expect((await withdraw('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await withdraw('not-a-uuid')).status).toBe(404);
  });

  it('another project neither sees nor withdraws it; an admin sees every project', async () => {
    await registerHosts('lr-private', 1);
    const busy = await lease('lr-private-busy', 'now', blazarDate(120), 'lr-private', 1);
    expect(busy.status, describeBody(busy)).toBe(201);
    const created = await submit({ name: 'private', reservations: [hostsOf('lr-private', 1)], duration: 30 });
    expect(created.status, describeBody(created)).toBe(201);
    const id = created.body.lease_request.id as string;
    const other = await show(id, OTHER);
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ error_code: 403, error_message: expect.stringContaining('leasehold:lease_requests:get') });
    const otherList = await client().get('/v1/lease-requests', OTHER);
    expect(otherList.body.lease_requests.map((r: { id: string }) => r.id)).not.toContain(id);
    expect((await withdraw(id, OTHER)).status).toBe(403);
    const feed = (headers: Record<string, string>) =>
      client().get('/v1/events?types=lease_request.submitted,lease_request.withdrawn&limit=1000', headers);
    const idsIn = (reply: { body: { events: { data: { request_id: string } }[] } }) => reply.body.events.map((e) => e.data.request_id);
    expect(idsIn(await feed(MEMBER)), "the own project's feed").toContain(id);
    expect(idsIn(await feed(OTHER)), "another project's feed").not.toContain(id);
    const adminList = await client().get('/v1/lease-requests', ADMIN);
    expect(adminList.body.lease_requests.map((r: { id: string }) => r.id)).toContain(id);
    expect((await show(id)).body.lease_request.status, 'still queued').toBe('queued');
  });

  it.each<[string, Record<string, unknown>]>([
    ['no duration', { name: 'bad', reservations: [hostsOf('lr-bad', 1)] }],
    ['a duration of 0', { name: 'bad', reservations: [hostsOf('lr-bad', 1)], duration: 0 }],
    ['no reservation', { name: 'bad', reservations: [], duration: 60 }],
    ['a reservation of an unknown type', { name: 'bad', reservations: [{ resource_type: 'magic' }], duration: 60 }],
    ['a reservation its type refuses', { name: 'bad', reservations: [hostsOf('lr-bad', 0)], duration: 60 }],
    [
      'start_by before not_before',
      { name: 'bad', reservations: [hostsOf('lr-bad', 1)], duration: 60, not_before: blazarDate(120), start_by: blazarDate(60) },
    ],
    ['not_before in the past', { name: 'bad', reservations: [hostsOf('lr-bad', 1)], duration: 60, not_before: blazarDate(-120) }],
    ['an unknown key', { name: 'bad', reservations: [hostsOf('lr-bad', 1)], duration: 60, end_date: blazarDate(60) }],
    ['a blank name', { name: ' ', reservations: [hostsOf('lr-bad', 1)], duration: 60 }],
  ])('refuses %s (400, Blazar error body) and writes nothing', async (_, body) => {
    const before = ledgerCount(suite.system.dataDir);
    const refused = await submit(body);
    expect(refused.status, describeBody(refused)).toBe(400);
    expect(refused.body).toMatchObject({ error_code: 400, error_message: expect.any(String) });
    expect(ledgerCount(suite.system.dataDir)).toBe(before);
  });

  it('`leasehold queue` lists the waiting requests head first, as the API ranks them, for one project or all', async () => {
    await registerHosts('lr-cli', 1);
    const busy = await lease('lr-cli-busy', 'now', blazarDate(6 * 60), 'lr-cli', 1);
    expect(busy.status, describeBody(busy)).toBe(201);
    const ask = { reservations: [hostsOf('lr-cli', 1)], duration: 30, start_by: blazarDate(3 * 24 * 60) };
    expect((await submit({ name: 'cli-a', ...ask })).status).toBe(201);
    expect((await submit({ name: 'cli-b', ...ask }, OTHER)).status).toBe(201);
    const listed = await client().get('/v1/lease-requests', ADMIN);
    const queued = (listed.body.lease_requests as { id: string; position: number | null; project_id: string; name: string }[])
      .filter((request) => request.position !== null)
      .sort((a, b) => (a.position ?? 0) - (b.position ?? 0))
      .map(({ id, position, project_id, name }) => ({ id, position, project_id, name }));
    expect(queued.length).toBeGreaterThanOrEqual(2);

    const json = await leasehold(suite.system.dataDir, 'queue', '--format', 'json');
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout).lease_requests as Record<string, unknown>[];
    expect(rows.map(({ id, position, project_id, name }) => ({ id, position, project_id, name }))).toEqual(queued);
    expect(rows.find((row) => row.name === 'cli-a')).toMatchObject({ resource_types: 'physical:host', duration: 30 });

    const mine = await leasehold(suite.system.dataDir, 'queue', '--format', 'json', '--project', 'project-b');
    expect(JSON.parse(mine.stdout).lease_requests.map((row: { id: string }) => row.id)).toEqual(
      queued.filter((row) => row.project_id === 'project-b').map((row) => row.id),
    );
    const table = await leasehold(suite.system.dataDir, 'queue');
    expect(table.code, table.stderr).toBe(0);
    const [header, ...cells] = alignedTable(table.stdout);
    expect(header?.slice(0, 4)).toEqual(['position', 'id', 'project_id', 'name']);
    expect(cells.map((row) => row[1])).toEqual(queued.map((row) => row.id));
  });
});
