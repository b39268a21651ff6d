/**
 * Maintenance windows on hosts through HTTP against the running system (static tokens, default policy, cleaning
 * time 0): an admin schedules, lists and cancels windows; a lease never gets a host for an instant inside one of its
 * windows (refused when pinned to it, given another host when one is free, admitted outside it, refused when an
 * update would move it in), availability and counter-offers skip the window, a cancellation restores the host; a
 * member is refused (403) and bad input answers 400, both leaving the ledger as it was. Then windows and leases
 * race through two API processes, and a replay of the log shows no booking reaching into a window recorded before it.
 * Every test books its own day and its own hosts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostEvent, type HostState, hostDecider, overlaps } from '#domain/index.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { T_DATE, UUID, dayAt, ledgerCount, pinnedHost, tDate, policyDenied } from '../helpers/api-fixtures.js';
import { api, heldBy } from '../helpers/http.js';
import { describeBody } from '../helpers/lease-client.js';
import { staticAuthSuite } from '../helpers/static-auth.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  admin: { token: 'tok-admin', user_id: 'u-admin', project_id: 'project-admin', roles: ['admin'] },
  member: { token: 'tok-member', user_id: 'u-member', project_id: 'project-a', roles: ['member'] },
} as const;
const ADMIN = { 'X-Auth-Token': IDENTITIES.admin.token };
const MEMBER = { 'X-Auth-Token': IDENTITIES.member.token };

const hostsOf = (group: string, min: number) => ({
  resource_type: 'physical:host',
  min,
  max: min,
  hypervisor_properties: '',
  resource_properties: JSON.stringify(['==', '$group', group]),
});

const suite = staticAuthSuite(IDENTITIES);
const client = () => api(suite.system.url);

const registerHost = async (name: string, group: string): Promise<string> => {
  const response = await client().post('/v1/os-hosts', { name, group }, ADMIN);
  expect(response.status, describeBody(response)).toBe(201);
  return response.body.host.id as string;
};

const schedule = (hostId: string, body: unknown, headers: Record<string, string> = ADMIN) =>
  client().post(`/v1/os-hosts/${hostId}/maintenance`, body, headers);

const lease = (name: string, start: string, end: string, reservations: unknown[]) =>
  client().post('/v1/leases', { name, start_date: start, end_date: end, reservations }, ADMIN);

/** The host ids a created lease holds. */
const heldHosts = (leaseId: string): Promise<string[]> => heldBy(client(), '/v1/os-hosts/allocations', leaseId, ADMIN);

describe('maintenance windows on hosts (api + projector + reactor)', () => {
  it('are scheduled, listed per host and over all hosts, in Blazar date form', async () => {
    const hostId = await registerHost('mw-list-1', 'mw-list');
    const [start, end] = [dayAt(40, '10:00'), dayAt(40, '14:00')];
    const created = await schedule(hostId, { start, end, reason: 'firmware' });
    expect(created.status, describeBody(created)).toBe(201);
    const window = { id: expect.stringMatching(UUID), host_id: hostId, start_date: tDate(start), end_date: tDate(end), reason: 'firmware' };
    expect(created.body).toEqual({ maintenance_window: window });
    expect(created.body.maintenance_window.start_date).toMatch(T_DATE);
    const iso = await schedule(hostId, { start: `${dayAt(41, '08:00').replace(' ', 'T')}:00+02:00`, end: 'now', reason: 'r' });
    expect(iso.status, 'end "now" is in the past').toBe(400);
    const mine = await client().get(`/v1/os-hosts/${hostId}/maintenance`, ADMIN);
    expect(mine.body).toEqual({ maintenance_windows: [created.body.maintenance_window] });
    const all = await client().get('/v1/os-hosts/maintenance', ADMIN);
    expect(all.status).toBe(200);
    expect(all.body.maintenance_windows).toContainEqual(created.body.maintenance_window);
  });

  it('keep a host from every new lease for any instant inside them; outside them it is leased', async () => {
    const first = await registerHost('mw-adm-1', 'mw-adm');
    const second = await registerHost('mw-adm-2', 'mw-adm');
    const day = (time: string) => dayAt(42, time);
    expect((await schedule(first, { start: day('10:00'), end: day('14:00'), reason: 'disk swap' })).status).toBe(201);

    const before = ledgerCount(suite.system.dataDir);
    const pinned = await lease('mw-pinned', day('13:00'), day('15:00'), [pinnedHost('mw-adm-1')]);
    expect(pinned.status, describeBody(pinned)).toBe(409);
    expect(pinned.body.error_message).toContain('Not enough hosts available');
    expect(pinned.body.error_message).toContain(`Earliest alternative: ${day('14:00')} to ${day('16:00')}.`);
    expect(ledgerCount(suite.system.dataDir)).toBe(before);

    const byGroup = await lease('mw-group', day('09:00'), day('11:00'), [hostsOf('mw-adm', 1)]);
    expect(byGroup.status, describeBody(byGroup)).toBe(201);
    expect(await heldHosts(byGroup.body.lease.id)).toEqual([second]);
    const both = await lease('mw-both', day('12:00'), day('13:00'), [hostsOf('mw-adm', 2)]);
    expect(both.status, 'a count that needs the host in its window').toBe(409);

    const after = await lease('mw-after', day('14:00'), day('16:00'), [pinnedHost('mw-adm-1')]);
    expect(after.status, describeBody(after)).toBe(201);
    expect(await heldHosts(after.body.lease.id)).toEqual([first]);
    const early = await lease('mw-early', day('08:00'), day('10:00'), [pinnedHost('mw-adm-1')]);
    expect(early.status, describeBody(early)).toBe(201);

    const moved = await client().put(`/v1/leases/${early.body.lease.id}`, { end_date: day('10:30') }, ADMIN);
    expect(moved.status, `an update reaching into the window: ${describeBody(moved)}`).toBe(409);
    const shown = await client().get(`/v1/leases/${early.body.lease.id}`, ADMIN);
    expect(shown.body.lease.end_date).toBe(tDate(day('10:00')));
  });

  it('show in availability as a gap, and a cancellation gives the host back', async () => {
    const hostId = await registerHost('mw-av-1', 'mw-av');
    const day = (time: string) => dayAt(43, time);
    const search = () =>
      client().post(
        '/v1/availability',
        { reservations: [hostsOf('mw-av', 1)], duration: 'PT2H', not_before: day('09:00'), not_after: day('23:00'), limit: 1 },
        ADMIN,
      );
    expect((await search()).body.windows[0].start_date).toBe(day('09:00'));
    const created = await schedule(hostId, { start: day('10:00'), end: day('14:00'), reason: 'move to rack 4' });
    const windowId = created.body.maintenance_window.id as string;
    const during = await search();
    expect(during.status, describeBody(during)).toBe(200);
    expect(during.body.windows[0]).toEqual({
      start_date: day('14:00'),
      end_date: day('16:00'),
      reservations: [{ resource_type: 'physical:host', requested: 1, matching: 1, free: 1 }],
    });

    const capacity = await client().get(
      `/v1/capacity?start=${encodeURIComponent(day('09:00'))}&end=${encodeURIComponent(day('15:00'))}&step=PT2H&duration=60`,
      ADMIN,
    );
    expect(capacity.status, describeBody(capacity)).toBe(200);
    interface HostStep {
      readonly start: string;
      readonly in_maintenance: number;
      readonly reserved_whole: number;
      readonly free: number;
      readonly largest_request: { readonly hosts: number };
    }
    const steps: HostStep[] = capacity.body.capacity.pools
      .filter((pool: { resource_type: string }) => pool.resource_type === 'physical:host')
      .flatMap((pool: { steps: HostStep[] }) => pool.steps)
      .filter((step: HostStep) => step.start.startsWith(dayAt(43, '')));
    // the window 10:00-14:00 reaches the three 2-hour steps from 09:00; the host is counted in maintenance, not reserved
    expect(steps.map((s) => [s.start, s.in_maintenance, s.reserved_whole])).toEqual([
      [day('09:00'), 1, 0],
      [day('11:00'), 1, 0],
      [day('13:00'), 1, 0],
    ]);

    const cancelled = await client().delete(`/v1/os-hosts/${hostId}/maintenance/${windowId}`, ADMIN);
    expect(cancelled.status, describeBody(cancelled)).toBe(204);
    expect((await client().get(`/v1/os-hosts/${hostId}/maintenance`, ADMIN)).body).toEqual({ maintenance_windows: [] });
    expect((await search()).body.windows[0].start_date).toBe(day('09:00'));
    const inside = await lease('mw-av-in', day('11:00'), day('13:00'), [pinnedHost('mw-av-1')]);
    expect(inside.status, describeBody(inside)).toBe(201);
    expect((await client().delete(`/v1/os-hosts/${hostId}/maintenance/${windowId}`, ADMIN)).status).toBe(404);
    const history = await client().get(`/v1/os-hosts/${hostId}/history`, ADMIN);
    expect(history.body.history.map((entry: { type: string }) => entry.type)).toEqual(
      expect.arrayContaining(['host.maintenance_scheduled', 'host.maintenance_cancelled']),
    );
  });

  it('are refused to a member (403) for every route, nothing written', async () => {
    const hostId = await registerHost('mw-403-1', 'mw-403');
    const window = await schedule(hostId, { start: dayAt(44, '10:00'), end: dayAt(44, '11:00'), reason: 'r' });
    const before = ledgerCount(suite.system.dataDir);
    const post = await schedule(hostId, { start: dayAt(45, '10:00'), end: dayAt(45, '11:00'), reason: 'r' }, MEMBER);
    expect(post.body).toEqual(policyDenied('leasehold:oshosts:post_maintenance'));
    const remove = await client().delete(`/v1/os-hosts/${hostId}/maintenance/${window.body.maintenance_window.id}`, MEMBER);
    expect(remove.body).toEqual(policyDenied('leasehold:oshosts:delete_maintenance'));
    expect((await client().get(`/v1/os-hosts/${hostId}/maintenance`, MEMBER)).body).toEqual(
      policyDenied('leasehold:oshosts:get_maintenance'),
    );
    expect((await client().get('/v1/os-hosts/maintenance', MEMBER)).status).toBe(403);
    expect(ledgerCount(suite.system.dataDir)).toBe(before);
  });

  it("answer bad input with 400 (404 for an unknown host, 409 for an overlap) in Blazar's error body, nothing written", async () => {
    const hostId = await registerHost('mw-400-1', 'mw-400');
    const day = (time: string) => dayAt(46, time);
    expect((await schedule(hostId, { start: day('10:00'), end: day('12:00'), reason: 'r' })).status).toBe(201);
    const before = ledgerCount(suite.system.dataDir);
    const cases: [unknown, number, string][] = [
      [{ end: day('12:00'), reason: 'r' }, 400, 'Missing parameter start'],
      [{ start: day('10:00'), end: day('12:00') }, 400, 'Missing parameter reason'],
      [{ start: day('10:00'), end: day('12:00'), reason: '  ' }, 400, 'Malformed parameter reason (must not be empty or blank)'],
      [{ start: '2030-13-01 10:00', end: day('12:00'), reason: 'r' }, 400, 'Malformed parameter start'],
      [{ start: day('10:00'), end: 12, reason: 'r' }, 400, 'Malformed parameter end'],
      [{ start: day('14:00'), end: day('13:00'), reason: 'r' }, 400, 'The end must be later than the start.'],
      [{ start: '2020-01-01 10:00', end: '2020-01-01 12:00', reason: 'r' }, 400, 'must be in the future'],
      [{ start: day('15:00'), end: day('16:00'), reason: 'r', project_id: 'x' }, 400, 'Unknown parameter project_id'],
      [{ start: day('11:00'), end: day('13:00'), reason: 'r' }, 409, 'already has maintenance window'],
    ];
    for (const [body, status, message] of cases) {
      const reply = await schedule(hostId, body);
      expect(reply.status, `${JSON.stringify(body)}: ${describeBody(reply)}`).toBe(status);
      expect(reply.body).toMatchObject({ error_code: status, error_name: status });
      expect(reply.body.error_message).toContain(message);
    }
    const unknown = await schedule('999999', { start: day('10:00'), end: day('12:00'), reason: 'r' });
    expect(unknown.status).toBe(404);
    expect((await client().get('/v1/os-hosts/999999/maintenance', ADMIN)).status).toBe(404);
    expect((await client().delete(`/v1/os-hosts/${hostId}/maintenance/no-such-window`, ADMIN)).status).toBe(404);
    expect(ledgerCount(suite.system.dataDir)).toBe(before);
  });
});

describe('windows and leases racing through two API processes', () => {
  const HOSTS = 3;
  const CLIENTS = 12;
  const ROUNDS = 4;
  let second: RunningSystem;

  beforeAll(async () => {
    second = await startSystem({
      apps: ['api'],
      dataDir: suite.system.dataDir,
      env: suite.tokens.env,
    });
  });

  afterAll(async () => {
    await second?.stop();
  });

  it('never book a host for an instant inside a window recorded before the booking, as a replay of the log shows', async () => {
    const hostIds: string[] = [];
    for (let i = 1; i <= HOSTS; i++) hostIds.push(await registerHost(`mw-race-${i}`, 'mw-race'));
    const windowStatuses: number[] = [];
    const leaseStatuses: number[] = [];
    // a round a day: each host's window and twelve leases wanting one of the hosts in the same hours, all at once
    for (let round = 0; round < ROUNDS; round++) {
      const day = (time: string) => dayAt(47 + round, time);
      const windows = hostIds.map((hostId, i) =>
        schedule(hostId, { start: day(`1${i}:00`), end: day(`1${i + 2}:00`), reason: 'race' }).then((reply) =>
          windowStatuses.push(reply.status),
        ),
      );
      const leases = Array.from({ length: CLIENTS }, (_, c) => {
        const http = api(c % 2 === 0 ? suite.system.url : second.url);
        const hour = 10 + (c % 4);
        const body = {
          name: `mw-race-${round}-${c}`,
          start_date: day(`${hour}:00`),
          end_date: day(`${hour + 1}:30`),
          reservations: [hostsOf('mw-race', 1)],
        };
        return http.post('/v1/leases', body, ADMIN).then((reply) => leaseStatuses.push(reply.status));
      });
      await Promise.all([...windows, ...leases]);
    }
    expect(windowStatuses).toEqual(Array.from({ length: HOSTS * ROUNDS }, () => 201));
    expect(leaseStatuses.filter((s) => s !== 201 && s !== 409)).toEqual([]);
    expect(leaseStatuses.filter((s) => s === 201).length).toBeGreaterThan(0);

    const store = SqliteEventStore.open({ file: `${suite.system.dataDir}/events.sqlite` });
    try {
      const hosts = new Map<string, HostState>();
      const problems: string[] = [];
      let windowsSeen = 0;
      for (const recorded of await store.readAll({ from: 0 })) {
        if (!recorded.streamId.startsWith('host-')) continue;
        const event = recorded as unknown as HostEvent;
        const state = hosts.get(recorded.streamId) ?? hostDecider.initialState();
        if (event.type === 'Host.MaintenanceScheduled') windowsSeen++;
        if (state.status === 'Registered' && (event.type === 'Host.Booked' || event.type === 'Host.BookingMoved')) {
          const span = { start: Date.parse(event.data.startDate), end: Date.parse(event.data.endDate) };
          for (const window of state.maintenance) {
            if (overlaps(window, span)) problems.push(`${event.data.reservationId} on ${recorded.streamId} inside ${window.windowId}`);
          }
        }
        hosts.set(recorded.streamId, hostDecider.evolve(state, event));
      }
      expect(problems).toEqual([]);
      expect(windowsSeen).toBeGreaterThanOrEqual(HOSTS * ROUNDS);
    } finally {
      await store.close();
    }
  });
});
