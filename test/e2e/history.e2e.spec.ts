/**
 * GET /v1/{leases,os-hosts,floatingips}/{id}/history through HTTP against the running system: a
 * lease's own events and its bookings on hosts and addresses in log order, who acted (the caller,
 * or the reactor by name) and for which request; a resource's history with every lease's bookings;
 * bad and unknown ids answered with Blazar's 404, never a 500. GET /v1/audit: a refused write (409)
 * recorded with who, what and why, outside the ledger; bad input neither recorded nor a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_ID, ledgerCount, pinnedHost } from '../helpers/api-fixtures.js';
import { api, blazarDate, floatingIpReservation } from '../helpers/http.js';
import { type Client, blazarError, describeBody } from '../helpers/lease-client.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const NETWORK = '5b1e0c3a-7d2f-4e6a-9b8c-1d0e2f3a4b5c';
const RECORDED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}000Z$/;
const USER = { user_id: 'leasehold-admin', project_id: 'leasehold-admin-project', system: null };

interface Entry {
  readonly position: number;
  readonly recorded_at: string;
  readonly type: string;
  readonly actor: { user_id: string | null; project_id: string | null; system: string | null };
  readonly request_id: string | null;
  readonly causation_id: string;
  readonly summary: string;
  readonly data: Record<string, unknown>;
}

describe('history (api + projector + reactor, default configuration)', () => {
  let system: RunningSystem;
  let client: Client;
  let hostId: string;
  let floatingIpId: string;

  const historyOf = async (path: string): Promise<Entry[]> => {
    const response = await client.get(path);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.history as Entry[];
  };

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
    const host = await client.post('/v1/os-hosts', { name: 'history-host' });
    expect(host.status, describeBody(host)).toBe(201);
    hostId = host.body.host.id;
    const fip = await client.post('/v1/floatingips', { floating_network_id: NETWORK, floating_ip_address: '198.51.100.7' });
    expect(fip.status, describeBody(fip)).toBe(201);
    floatingIpId = fip.body.floatingip.id;
  });

  afterAll(async () => {
    await system?.stop();
  });

  it("lists a lease's events and its bookings in log order, with the caller's request, then the reactor's doings by name", async () => {
    const created = await client.post('/v1/leases', {
      name: 'history-lease',
      start_date: 'now',
      end_date: blazarDate(120),
      reservations: [pinnedHost('history-host'), floatingIpReservation(NETWORK, 1)],
    });
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id as string;
    const requestId = created.headers.get('x-openstack-request-id');
    expect(requestId).toMatch(REQUEST_ID);

    const history = await eventually(
      async () => {
        const entries = await historyOf(`/v1/leases/${leaseId}/history`);
        return entries.some((entry) => entry.type === 'lease.started') ? entries : undefined;
      },
      30_000,
      'the reactor to start the lease',
    );

    const creation = history.slice(0, 3);
    expect(creation.map((entry) => entry.type)).toEqual(['lease.created', 'host.booked', 'floating_ip.booked']);
    for (const entry of creation) expect(entry).toMatchObject({ actor: USER, request_id: requestId, causation_id: requestId });
    expect(creation[0]?.data).toMatchObject({ lease_id: leaseId, name: 'history-lease', project_id: USER.project_id });
    expect(creation[1]?.data).toMatchObject({ host_id: hostId, lease_id: leaseId });
    expect(creation[2]?.data).toMatchObject({ floating_ip_id: floatingIpId, lease_id: leaseId });

    const started = history.find((entry) => entry.type === 'lease.started');
    expect(started).toMatchObject({ actor: { user_id: null, project_id: null, system: 'reactor' }, request_id: null });
    const positions = history.map((entry) => entry.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(positions.length);
    for (const entry of history) {
      expect(entry.recorded_at).toMatch(RECORDED_AT);
      expect(entry.summary.length).toBeGreaterThan(0);
      expect(entry.summary).not.toContain('\n');
    }
    expect(JSON.stringify(history)).not.toMatch(/trust_?id|trustId/i);
  });

  it('says what a change changed, with the values before and after', async () => {
    const created = await client.post('/v1/leases', {
      name: 'history-changes',
      start_date: blazarDate(60 * 24 * 8),
      end_date: blazarDate(60 * 24 * 8 + 60),
      reservations: [pinnedHost('history-host')],
    });
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id as string;
    const changed = await client.put(`/v1/leases/${leaseId}`, { name: 'history-changed', end_date: blazarDate(60 * 24 * 8 + 90) });
    expect(changed.status, describeBody(changed)).toBe(200);

    const history = (await historyOf(`/v1/leases/${leaseId}/history`)) as (Entry & { changes?: unknown })[];
    const endBefore = history[0]?.data['end_date'];
    const renamed = history.find((entry) => entry.type === 'lease.renamed');
    expect(renamed?.changes).toEqual([{ field: 'name', before: 'history-changes', after: 'history-changed' }]);
    expect(renamed?.summary).toContain('name history-changes -> history-changed');
    const rescheduled = history.find((entry) => entry.type === 'lease.rescheduled');
    expect(rescheduled?.changes).toContainEqual({ field: 'end_date', before: endBefore, after: rescheduled?.data['end_date'] });
    expect(rescheduled?.data['end_date']).not.toBe(endBefore);
  });

  it("lists a host's and a floating IP's events with every lease's bookings", async () => {
    const start = blazarDate(60 * 24 * 3);
    const end = blazarDate(60 * 24 * 3 + 60);
    const other = await client.post('/v1/leases', {
      name: 'history-other',
      start_date: start,
      end_date: end,
      reservations: [pinnedHost('history-host'), floatingIpReservation(NETWORK, 1)],
    });
    expect(other.status, describeBody(other)).toBe(201);
    const otherId = other.body.lease.id as string;

    const host = await historyOf(`/v1/os-hosts/${hostId}/history`);
    expect(host.slice(0, 2).map((entry) => entry.type)).toEqual(['host_registry.host_added', 'host.registered']);
    expect(host.filter((entry) => entry.type === 'host.booked').at(-1)?.data).toMatchObject({ lease_id: otherId, host_id: hostId });

    const fip = await historyOf(`/v1/floatingips/${floatingIpId}/history`);
    expect(fip.slice(0, 2).map((entry) => entry.type)).toEqual(['floating_ip_registry.added', 'floating_ip.registered']);
    expect(fip.filter((entry) => entry.type === 'floating_ip.booked').at(-1)?.data).toMatchObject({ lease_id: otherId });

    // the other lease's history has its own bookings only
    const otherHistory = await historyOf(`/v1/leases/${otherId}/history`);
    expect(otherHistory.map((entry) => entry.type)).toEqual(['lease.created', 'host.booked', 'floating_ip.booked']);
  });

  it.each([
    ['/v1/leases/not-a-uuid/history', blazarError(404, "Object with {'lease_id': 'not-a-uuid'} not found")],
    [
      '/v1/leases/00000000-0000-4000-8000-000000000000/history',
      blazarError(404, "Object with {'lease_id': '00000000-0000-4000-8000-000000000000'} not found"),
    ],
    ['/v1/os-hosts/0/history', blazarError(404, "Object with {'host_id': '0'} not found")],
    ['/v1/os-hosts/424242/history', blazarError(404, "Object with {'host_id': '424242'} not found")],
    [
      '/v1/floatingips/00000000-0000-4000-8000-000000000000/history',
      blazarError(404, 'Floating IP 00000000-0000-4000-8000-000000000000 not found.'),
    ],
  ])('%s: Blazar 404', async (path, body) => {
    const response = await client.get(path);
    expect(response.status, describeBody(response)).toBe(404);
    expect(response.body).toEqual(body);
  });

  it('a malformed id with control characters or an odd encoding is a 4xx, never a 500', async () => {
    for (const path of ['/v1/leases/%00/history', '/v1/os-hosts/%ff/history', '/v1/floatingips/a%2Fb/history']) {
      const response = await client.get(path);
      expect(response.status, `${path}: ${describeBody(response)}`).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
      expect(response.body).toMatchObject({ error_code: response.status, error_name: response.status });
    }
  });

  describe('GET /v1/audit', () => {
    const auditOf = async (query: string): Promise<Entry[]> => {
      const response = await client.get(`/v1/audit?${query}`);
      expect(response.status, describeBody(response)).toBe(200);
      return response.body.audit as Entry[];
    };

    it('records a 409 with who, what and why, and leaves the ledger as it was', async () => {
      const before = ledgerCount(system.dataDir);
      const refused = await client.post('/v1/os-hosts', { name: 'history-host' });
      expect(refused.status, describeBody(refused)).toBe(409);
      expect(ledgerCount(system.dataDir)).toBe(before);
      const requestId = refused.headers.get('x-openstack-request-id');

      const audit = await auditOf('outcome=refused');
      const entry = audit.find((candidate) => candidate.request_id === requestId);
      expect(entry).toMatchObject({
        type: 'audit.write_refused',
        actor: USER,
        causation_id: requestId,
        data: {
          operation: 'createHost',
          method: 'POST',
          path: '/v1/os-hosts',
          status: 409,
          code: 'HOST_ALREADY_REGISTERED',
          reason: refused.body.error_message,
        },
      });
      expect(entry?.recorded_at).toMatch(RECORDED_AT);
      expect(entry?.summary).toBe(`POST /v1/os-hosts refused (409 HOST_ALREADY_REGISTERED): ${refused.body.error_message as string}`);
    });

    it('names the lease a refused create asked for, and the id of a refused change', async () => {
      const tooMany = { resource_type: 'physical:host', min: 50, max: 50, hypervisor_properties: '', resource_properties: '' };
      const refused = await client.post('/v1/leases', {
        name: 'audit-too-big',
        start_date: blazarDate(60 * 24 * 5),
        end_date: blazarDate(60 * 24 * 5 + 60),
        reservations: [tooMany],
      });
      expect(refused.status, describeBody(refused)).toBe(409);
      const audit = await auditOf('outcome=refused');
      const entry = audit.find((candidate) => candidate.request_id === refused.headers.get('x-openstack-request-id'));
      expect(entry?.data).toMatchObject({ operation: 'createLease', lease_id: null, lease_name: 'audit-too-big' });
      expect(entry?.summary).toMatch(/^POST \/v1\/leases refused \(409 [A-Z_]+\) for lease "audit-too-big": /);

      const lease = await client.post('/v1/leases', {
        name: 'audit-grown',
        start_date: blazarDate(60 * 24 * 6),
        end_date: blazarDate(60 * 24 * 6 + 60),
        reservations: [pinnedHost('history-host')],
      });
      expect(lease.status, describeBody(lease)).toBe(201);
      const leaseId = lease.body.lease.id as string;
      const reservationId = lease.body.lease.reservations[0].id as string;
      const grown = await client.put(`/v1/leases/${leaseId}`, { reservations: [{ id: reservationId, min: 50, max: 50 }] });
      expect(grown.status, describeBody(grown)).toBe(409);
      const changed = (await auditOf('outcome=refused')).find(
        (candidate) => candidate.request_id === grown.headers.get('x-openstack-request-id'),
      );
      expect(changed?.data).toMatchObject({ operation: 'updateLease', lease_id: leaseId, lease_name: null });
      expect(changed?.summary).toContain(`for lease ${leaseId}: `);
    });

    it('filters by project and by range, and does not record bad input (400) or reads', async () => {
      const bad = await client.post('/v1/leases', { name: 'x'.repeat(81), start_date: 'now', end_date: blazarDate(60) });
      expect(bad.status).toBe(400);
      const all = await auditOf(`start=${encodeURIComponent(blazarDate(-60))}&end=${encodeURIComponent(blazarDate(60))}`);
      expect(all.length).toBeGreaterThan(0);
      expect(all.map((entry) => entry.request_id)).not.toContain(bad.headers.get('x-openstack-request-id'));
      expect(all.every((entry) => entry.data['status'] === 403 || entry.data['status'] === 409)).toBe(true);
      expect(await auditOf('project_id=someone-else')).toEqual([]);
      expect(await auditOf('start=2000-01-01T00:00:00Z&end=2000-01-02T00:00:00Z')).toEqual([]);
    });

    it.each([
      ['outcome=accepted', 'Malformed parameter outcome (must be refused)'],
      ['start=yesterday', 'Malformed parameter start (must be %Y-%m-%d %H:%M in UTC, or ISO 8601 with a zone)'],
      ['end=2030-02-30T00:00:00Z', 'Malformed parameter end (must be %Y-%m-%d %H:%M in UTC, or ISO 8601 with a zone)'],
      ['start=2030-01-02T00:00:00Z&end=2030-01-01T00:00:00Z', 'end must be after start'],
      ['start=2020-01-01T00:00:00Z&end=2030-01-01T00:00:00Z', 'The range from start to end spans more than 366 days'],
      ['project_id=a%20b', 'Malformed parameter project_id'],
      ['start=a&start=b', 'Malformed parameter start (must be given once)'],
    ])('?%s: Blazar 400', async (query, message) => {
      const response = await client.get(`/v1/audit?${query}`);
      expect(response.status, describeBody(response)).toBe(400);
      expect(response.body).toEqual(blazarError(400, message));
    });
  });
});
