/**
 * `as_of` on the reads of leases, hosts, floating IPs and their allocations, through HTTP against the
 * running system: before a lease was created it is a 404 that says so, and the lists lack it; before its update
 * it shows the old dates and name; the statuses are those the reactor had recorded by then; before
 * the first event everything is empty; a bad or future `as_of` is a 400 in Blazar's body that
 * writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerCount, ledgerEvents, pinnedHost } from '../helpers/api-fixtures.js';
import { api, blazarDate, floatingIpReservation } from '../helpers/http.js';
import { type Client, blazarError, describeBody } from '../helpers/lease-client.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const NETWORK = '7d3c1b2a-0e9f-4a8b-8c7d-6e5f4a3b2c1d';

/** An instant strictly after everything recorded so far: the clock has moved past the current millisecond. */
const instantAfterNow = async (): Promise<string> => {
  const now = Date.now();
  while (Date.now() <= now) await new Promise((resolve) => setImmediate(resolve));
  return new Date(now).toISOString();
};

const shifted = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

describe('as_of (api + projector + reactor, default configuration)', () => {
  let system: RunningSystem;
  let client: Client;

  const at = async (path: string, instant: string) =>
    client.get(`${path}${path.includes('?') ? '&' : '?'}as_of=${encodeURIComponent(instant)}`);

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('answers nothing before the first event: empty lists, 404 for one resource', async () => {
    const host = await client.post('/v1/os-hosts', { name: 'as-of-first' });
    expect(host.status, describeBody(host)).toBe(201);
    const before = '2000-01-01 00:00';
    for (const [path, key] of [
      ['/v1/leases', 'leases'],
      ['/v1/os-hosts', 'hosts'],
      ['/v1/floatingips', 'floatingips'],
      ['/v1/os-hosts/allocations', 'allocations'],
      ['/v1/floatingips/allocations', 'allocations'],
    ] as const) {
      const reply = await at(path, before);
      expect(reply.status, describeBody(reply)).toBe(200);
      expect(reply.body).toEqual({ [key]: [] });
    }
    const missing = await at(`/v1/os-hosts/${host.body.host.id}`, before);
    expect(missing.status).toBe(404);
    expect((await at(`/v1/os-hosts/${host.body.host.id}`, await instantAfterNow())).body).toEqual(host.body);
  });

  it("is a 404 before the lease's creation, and shows it as created once it was recorded", async () => {
    const beforeCreation = await instantAfterNow();
    const created = await client.post('/v1/leases', {
      name: 'as-of-404',
      start_date: blazarDate(60 * 24 * 30),
      end_date: blazarDate(60 * 24 * 31),
      reservations: [],
    });
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id as string;
    // the live read model has the lease (an as_of read waits for its instant only, not for the live head)
    expect((await client.get(`/v1/leases/${leaseId}`)).status).toBe(200);
    const early = await at(`/v1/leases/${leaseId}`, beforeCreation);
    expect(early.status).toBe(404);
    expect(early.body).toEqual(
      blazarError(
        404,
        `Object with {'lease_id': '${leaseId}'} not found as of ${beforeCreation}: the lease did not exist yet (created at ${created.body.lease.created_at as string})`,
      ),
    );
    expect((await at('/v1/leases', beforeCreation)).body.leases.map((lease: { id: string }) => lease.id)).not.toContain(leaseId);
    const [recorded] = ledgerEvents(system.dataDir, `lease-${leaseId}`);
    const onCreation = await at(`/v1/leases/${leaseId}`, recorded?.recordedAt ?? '');
    expect(onCreation.status, describeBody(onCreation)).toBe(200);
    expect(onCreation.body).toEqual((await client.get(`/v1/leases/${leaseId}`)).body);
  });

  it('shows the old dates, name and allocations before an update, the new ones after', async () => {
    const host = await client.post('/v1/os-hosts', { name: 'as-of-update' });
    const fip = await client.post('/v1/floatingips', { floating_network_id: NETWORK, floating_ip_address: '203.0.113.40' });
    expect([host.status, fip.status]).toEqual([201, 201]);
    const created = await client.post('/v1/leases', {
      name: 'as-of-before',
      start_date: blazarDate(60 * 24 * 40),
      end_date: blazarDate(60 * 24 * 41),
      reservations: [pinnedHost('as-of-update'), floatingIpReservation(NETWORK, 1)],
    });
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id as string;
    const paths = [`/v1/leases/${leaseId}`, '/v1/leases', '/v1/os-hosts/allocations', '/v1/floatingips/allocations'];
    const beforeUpdate = await Promise.all(paths.map(async (path) => (await client.get(path)).body));
    const instant = await instantAfterNow();

    const updated = await client.put(`/v1/leases/${leaseId}`, { name: 'as-of-after', end_date: blazarDate(60 * 24 * 42) });
    expect(updated.status, describeBody(updated)).toBe(200);
    const old = await at(`/v1/leases/${leaseId}`, instant);
    expect(old.body.lease).toMatchObject({ name: 'as-of-before', end_date: created.body.lease.end_date });
    expect((await client.get(`/v1/leases/${leaseId}`)).body.lease).toMatchObject({
      name: 'as-of-after',
      end_date: updated.body.lease.end_date,
    });
    expect(updated.body.lease.end_date).not.toBe(created.body.lease.end_date);
    for (const [index, path] of paths.entries()) expect((await at(path, instant)).body, path).toEqual(beforeUpdate[index]);
  });

  it('shows the statuses the reactor had recorded by then, not what the clock would say', async () => {
    const created = await client.post('/v1/leases', {
      name: 'as-of-status',
      start_date: 'now',
      end_date: blazarDate(120),
      reservations: [],
    });
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id as string;
    await eventually(
      async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'ACTIVE' ? true : undefined),
      30_000,
      'the reactor to start the lease',
    );
    const started = ledgerEvents(system.dataDir, `lease-${leaseId}`).find((event) => event.type === 'Lease.Started');
    if (started === undefined) throw new Error('Lease.Started not in the ledger');
    const justBefore = await at(`/v1/leases/${leaseId}`, shifted(started.recordedAt, -1));
    // the start date had passed by then; the status is what had been recorded
    expect(['PENDING', 'STARTING']).toContain(justBefore.body.lease.status);
    expect((await at(`/v1/leases/${leaseId}`, started.recordedAt)).body.lease.status).toBe('ACTIVE');
  });

  it.each([
    ['in the future', () => new Date(Date.now() + 3600_000).toISOString(), 'is in the future'],
    ['not a date', () => 'yesterday', 'must be %Y-%m-%d %H:%M in UTC, or ISO 8601 with a zone'],
    ['without a zone', () => '2026-01-01T00:00:00', 'must be %Y-%m-%d %H:%M in UTC, or ISO 8601 with a zone'],
  ])("refuses an as_of %s with a 400 in Blazar's body, and writes nothing", async (_, value, fragment) => {
    const before = ledgerCount(system.dataDir);
    for (const path of ['/v1/leases', '/v1/os-hosts/1', '/v1/floatingips/allocations']) {
      const reply = await at(path, value());
      expect(reply.status, describeBody(reply)).toBe(400);
      expect(reply.body).toEqual({ error_code: 400, error_message: expect.stringContaining(fragment), error_name: 400 });
    }
    expect(ledgerCount(system.dataDir)).toBe(before);
  });

  it('refuses as_of given twice', async () => {
    const reply = await client.get('/v1/leases?as_of=2026-01-01%2000:00&as_of=2026-01-01%2001:00');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(blazarError(400, 'Malformed parameter as_of (must be given once)'));
  });

  it("takes Blazar's minute format", async () => {
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString().slice(0, 16).replace('T', ' ');
    const reply = await at('/v1/leases', minute);
    expect(reply.status, describeBody(reply)).toBe(200);
    expect(reply.body).toEqual((await at('/v1/leases', new Date(Date.parse(`${minute.replace(' ', 'T')}:00Z`)).toISOString())).body);
  });
});
