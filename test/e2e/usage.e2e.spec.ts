/**
 * GET /v1/usage and /v1/rate-cards through HTTP against the running system (api + projector +
 * reactor): leases the reactor really started and the API deleted, whose expected hours and costs
 * the test computes itself from the leases' recorded history and the hosts' registered sizes; the
 * same request at the same position answered with the same bytes, however the log grows; bad
 * input answered with Blazar's error body and nothing written; `leasehold usage` on the data folder
 * giving the same figures as JSON, CSV and a table. A lease still running counts up to the instant
 * the report is asked for, which the answer names (`until`) and which, with `as_of_position`, pins it;
 * a capability price changes only the metrics it names; a quota refusal counts hours as usage does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerCount, pinnedHost } from '../helpers/api-fixtures.js';
import { alignedTable, leasehold, succeeded } from '../helpers/cli.js';
import { api, blazarDate, floatingIpReservation, instanceReservation } from '../helpers/http.js';
import { type Client, blazarError, describeBody } from '../helpers/lease-client.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const NETWORK = '7a1e0c3a-7d2f-4e6a-9b8c-1d0e2f3a4b5c';
const PROJECT = 'leasehold-admin-project';
const HOST = { vcpus: 24, memory_mb: 98_304, local_gb: 480 };
const SLOT = { vcpus: 2, memory_mb: 2048, disk_gb: 10 };
const MS_PER_HOUR = 3_600_000n;

/** Hours of `units` held for `ms`, rounded to millionths, as the report must render them. */
const hours = (units: number, ms: number): number =>
  Number(((BigInt(units * ms) * 1_000_000n + MS_PER_HOUR / 2n) / MS_PER_HOUR).toString()) / 1_000_000;

interface Ran {
  readonly leaseId: string;
  readonly ms: number;
}

describe('usage reports (api + projector + reactor, default configuration)', () => {
  let system: RunningSystem;
  let client: Client;
  let window: string;
  let from: string;
  let to: string;
  const ran: Record<string, Ran> = {};
  let neverStarted: string;

  /** Creates a lease starting now, waits for the reactor to start it, deletes it, and reads what its history recorded. */
  const runAndDelete = async (name: string, reservations: unknown[]): Promise<Ran> => {
    const created = await client.post('/v1/leases', { name, start_date: 'now', end_date: blazarDate(120), reservations });
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id as string;
    await eventually(
      async () => ((await client.get(`/v1/leases/${leaseId}`)).body.lease.status === 'ACTIVE' ? true : undefined),
      30_000,
      `${name} to start`,
    );
    const deleted = await client.delete(`/v1/leases/${leaseId}`);
    expect(deleted.status, describeBody(deleted)).toBe(204);
    const history = (await client.get(`/v1/leases/${leaseId}/history`)).body.history as { type: string; data: { at: string } }[];
    const startedAt = history.find((entry) => entry.type === 'lease.started')?.data.at ?? '';
    const endedAt = history.find((entry) => entry.type === 'lease.end_requested')?.data.at ?? '';
    const ms = Date.parse(endedAt) - Date.parse(startedAt);
    expect(ms, `${name} ran between its recorded start and end`).toBeGreaterThan(0);
    return { leaseId, ms };
  };

  /** The query that asks a report again as it was: its position and the instant it counted up to. */
  const pinnedTo = (body: any): string =>
    `&as_of_position=${body.usage.as_of_position as number}&until=${encodeURIComponent(body.usage.until as string)}`;

  const usage = async (query: string): Promise<{ text: string; body: any }> => {
    const response = await fetch(`${system.url}/v1/usage?${window}${query}`, { headers: { Accept: 'application/json' } });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    return { text, body: JSON.parse(text) };
  };

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
    [from, to] = [blazarDate(-1), blazarDate(60 * 24)];
    window = `start=${encodeURIComponent(from)}&end=${encodeURIComponent(to)}`;
    expect((await client.post('/v1/os-hosts', { name: 'usage-host', ...HOST })).status).toBe(201);
    expect((await client.post('/v1/os-hosts', { name: 'usage-slots', ...HOST })).status).toBe(201);
    expect((await client.post('/v1/floatingips', { floating_network_id: NETWORK, floating_ip_address: '198.51.100.70' })).status).toBe(201);
    ran.host = await runAndDelete('usage-host-lease', [pinnedHost('usage-host')]);
    ran.instances = await runAndDelete('usage-instance-lease', [
      instanceReservation(3, SLOT, { resource_properties: JSON.stringify(['==', '$hypervisor_hostname', 'usage-slots']) }),
    ]);
    ran.address = await runAndDelete('usage-address-lease', [floatingIpReservation(NETWORK, 1)]);
    const future = await client.post('/v1/leases', {
      name: 'usage-never',
      start_date: blazarDate(60 * 5),
      end_date: blazarDate(60 * 6),
      reservations: [pinnedHost('usage-host')],
    });
    expect(future.status, describeBody(future)).toBe(201);
    neverStarted = future.body.lease.id;
    expect((await client.delete(`/v1/leases/${neverStarted}`)).status).toBe(204);
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  /** The by-lease lines the test computes itself: recorded run time x the registered sizes. */
  const expectedByLease = (): (readonly [string, string, Record<string, number>])[] => {
    const host = ran.host as Ran;
    const instances = ran.instances as Ran;
    const address = ran.address as Ran;
    const zero = {
      host_hours: 0,
      instance_hours: 0,
      vcpu_hours: 0,
      memory_mb_hours: 0,
      disk_gb_hours: 0,
      floating_ip_hours: 0,
      network_hours: 0,
    };
    return [
      [
        host.leaseId,
        'physical:host',
        {
          ...zero,
          host_hours: hours(1, host.ms),
          vcpu_hours: hours(HOST.vcpus, host.ms),
          memory_mb_hours: hours(HOST.memory_mb, host.ms),
          disk_gb_hours: hours(HOST.local_gb, host.ms),
        },
      ],
      [
        instances.leaseId,
        'virtual:instance',
        {
          ...zero,
          instance_hours: hours(3, instances.ms),
          vcpu_hours: hours(3 * SLOT.vcpus, instances.ms),
          memory_mb_hours: hours(3 * SLOT.memory_mb, instances.ms),
          disk_gb_hours: hours(3 * SLOT.disk_gb, instances.ms),
        },
      ],
      [address.leaseId, 'virtual:floatingip', { ...zero, floating_ip_hours: hours(1, address.ms) }],
    ];
  };

  it('counts what the reactor recorded for each lease, by lease and resource type; a lease deleted before its start counts nothing', async () => {
    const { body } = await usage('&group_by=lease');
    for (const [leaseId, resourceType, metrics] of expectedByLease()) {
      expect(body.usage.lines.find((line: { lease_id: string }) => line.lease_id === leaseId)).toEqual({
        project_id: expect.any(String),
        lease_id: leaseId,
        resource_type: resourceType,
        ...metrics,
      });
    }
    expect(body.usage.lines).toHaveLength(3);
    expect(body.usage.lines.some((line: { lease_id: string }) => line.lease_id === neverStarted)).toBe(false);
    expect(body.usage).toMatchObject({ group_by: 'lease', project_id: null, rate_card: null, as_of_position: expect.any(Number) });
  });

  it('leasehold usage, reading the data folder while the service runs, gives the same figures as json, csv and a table', async () => {
    const { text, body } = await usage('&group_by=lease');
    const position = String(body.usage.as_of_position);
    const pinned = ['--as-of-position', position, '--until', body.usage.until as string];
    const cli = (...extra: string[]) =>
      leasehold(system.dataDir, 'usage', '--from', from, '--to', to, '--group-by', 'lease', ...pinned, ...extra);

    const json = await cli('--format', 'json');
    expect(json.code, json.stderr).toBe(0);
    // the HTTP body byte for byte, so a saved report can be compared with (or replace) a curl of the API
    expect(json.stdout).toBe(text);
    for (const [leaseId, resourceType, metrics] of expectedByLease()) {
      expect(body.usage.lines).toContainEqual({
        project_id: expect.any(String),
        lease_id: leaseId,
        resource_type: resourceType,
        ...metrics,
      });
    }

    const rows = succeeded(await cli('--format', 'csv'))
      .split('\n')
      .map((row) => row.split(','));
    const header = rows[0] as string[];
    expect(header).toEqual([
      'project_id',
      'lease_id',
      'resource_type',
      'host_hours',
      'instance_hours',
      'vcpu_hours',
      'memory_mb_hours',
      'disk_gb_hours',
      'floating_ip_hours',
      'network_hours',
    ]);
    const csvLine = (leaseId: string) =>
      Object.fromEntries(header.map((column, i) => [column, (rows.find((row) => row[1] === leaseId) as string[])[i]]));
    for (const [leaseId, resourceType, metrics] of expectedByLease()) {
      expect(csvLine(leaseId)).toEqual({
        project_id: expect.any(String),
        lease_id: leaseId,
        resource_type: resourceType,
        ...Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, String(v)])),
      });
    }
    expect(rows.at(-1)?.[0]).toBe('total');
    expect(Number(rows.at(-1)?.[header.indexOf('vcpu_hours')])).toBe(body.usage.totals.vcpu_hours);

    const table = succeeded(await cli()).split('\n');
    expect(table[0]).toMatch(/^project_id\s+lease_id\s+resource_type\s+host_hours/);
    expect(table.at(-1)).toMatch(new RegExp(`^total\\s.*\\s${body.usage.totals.floating_ip_hours}\\s+${body.usage.totals.network_hours}$`));
    expect(table.filter((row) => row.includes((ran.host as Ran).leaseId))).toHaveLength(1);
    const cells = alignedTable(table.join('\n'));
    expect(cells[0]).toEqual(header);
    for (const [leaseId, , metrics] of expectedByLease())
      expect(cells.find((row) => row[1] === leaseId)?.slice(3)).toEqual(Object.values(metrics).map(String));

    // a window nothing ran in still has its header and a labelled totals row
    const before = ['--from', '2001-01-01 00:00', '--to', '2001-01-02 00:00', '--group-by', 'lease'];
    const empty = succeeded(await leasehold(system.dataDir, 'usage', ...before))
      .trimEnd()
      .split('\n');
    expect(empty[0]).toMatch(/^project_id\s+lease_id\s/);
    expect(empty.at(-1)).toMatch(/^total\s/);
    expect(
      succeeded(await leasehold(system.dataDir, 'usage', ...before, '--format', 'csv'))
        .trimEnd()
        .split('\n')
        .at(-1),
    ).toMatch(/^total,/);

    const wrong = await leasehold(system.dataDir, 'usage', '--from', to, '--to', from);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('end must be after start');
  });

  it('prices the report with a rate card, capability prices included, and re-rates only when a version is named', async () => {
    const host = ran.host as Ran;
    const v1 = await client.put('/v1/rate-cards/e2e', {
      currency: 'USD',
      effective_from: blazarDate(-60),
      prices: { host_hours: '2.5', floating_ip_hours: 0.25 },
    });
    expect(v1.status, describeBody(v1)).toBe(200);
    expect(v1.body.rate_card).toMatchObject({
      name: 'e2e',
      version: 1,
      currency: 'USD',
      prices: { host_hours: '2.5', floating_ip_hours: '0.25', vcpu_hours: '0' },
    });
    const rated = await usage('&group_by=resource&rate_card=e2e');
    const hostLine = rated.body.usage.lines.find((line: { resource_type: string }) => line.resource_type === 'physical:host');
    const expectedCost = (BigInt(host.ms) * 2_500_000n + MS_PER_HOUR / 2n) / MS_PER_HOUR;
    expect(hostLine.cost).toBe(`${expectedCost / 1_000_000n}.${(expectedCost % 1_000_000n).toString().padStart(6, '0')}`);
    expect(rated.body.usage.rate_card).toMatchObject({ name: 'e2e', version: 1, currency: 'USD' });
    expect(rated.body.usage.totals.currency).toBe('USD');

    const v2 = await client.put('/v1/rate-cards/e2e', { currency: 'USD', effective_from: blazarDate(-60), prices: { host_hours: '5' } });
    expect(v2.body.rate_card.version).toBe(2);
    // the old report, asked again at its position and instant, is the same to the byte
    expect((await usage(`&group_by=resource&rate_card=e2e${pinnedTo(rated.body)}`)).text).toBe(rated.text);
    expect((await usage('&group_by=resource&rate_card=e2e')).body.usage.rate_card.version).toBe(2);
    expect((await usage('&group_by=resource&rate_card=e2e:1')).body.usage.totals.cost).toBe(rated.body.usage.totals.cost);
    const card = await client.get('/v1/rate-cards/e2e');
    expect(card.body.versions.map((version: { version: number }) => version.version)).toEqual([1, 2]);
  });

  it('leasehold usage with a rate card: every csv line and table row names its currency; json is the HTTP body byte for byte', async () => {
    const { text, body } = await usage('&group_by=resource&rate_card=e2e:1');
    const position = String(body.usage.as_of_position);
    const cli = (format: string) =>
      leasehold(
        system.dataDir,
        'usage',
        '--from',
        from,
        '--to',
        to,
        '--group-by',
        'resource',
        '--rate-card',
        'e2e:1',
        '--as-of-position',
        position,
        '--until',
        body.usage.until as string,
        '--format',
        format,
      );
    expect(body.usage.lines.length).toBeGreaterThan(1);

    const [header, ...rows] = succeeded(await cli('csv'))
      .split('\n')
      .map((row) => row.split(','));
    const currency = (header as string[]).indexOf('currency');
    expect(currency).toBeGreaterThan(0);
    expect(rows).toHaveLength(body.usage.lines.length + 1);
    expect(rows.map((row) => row[currency])).toEqual(rows.map(() => 'USD'));
    expect(rows.map((row) => row[(header as string[]).indexOf('cost')])).toEqual([
      ...body.usage.lines.map((line: { cost: string }) => line.cost),
      body.usage.totals.cost,
    ]);

    const [tableHeader, ...tableRows] = alignedTable(succeeded(await cli('table')));
    expect(tableHeader).toEqual(header);
    expect(tableRows).toEqual(rows);

    const json = await cli('json');
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe(text);
  });

  it('the same request at the same position and instant answers the same bytes, while the log grows', async () => {
    const first = await usage('&group_by=reservation');
    const position = first.body.usage.as_of_position as number;
    const again = await usage(`&group_by=reservation${pinnedTo(first.body)}`);
    expect(again.text).toBe(first.text);
    expect((await client.post('/v1/os-hosts', { name: 'usage-later', ...HOST })).status).toBe(201);
    const later = await usage(`&group_by=reservation${pinnedTo(first.body)}`);
    expect(later.text).toBe(first.text);
    expect((await usage('&group_by=reservation')).body.usage.as_of_position).toBeGreaterThan(position);
  });

  it.each([
    ['end before start', 'start=2030-01-02%2000:00&end=2030-01-01%2000:00', 400],
    ['no start', 'end=2030-01-01%2000:00', 400],
    ['a date that is none', 'start=yesterday&end=2030-01-01%2000:00', 400],
    ['now (not reproducible)', 'start=now&end=2030-01-01%2000:00', 400],
    ['an unknown group_by', 'start=2030-01-01%2000:00&end=2030-01-02%2000:00&group_by=user', 400],
    ['an unknown rate card', 'start=2030-01-01%2000:00&end=2030-01-02%2000:00&rate_card=none', 404],
    ['a position beyond the log', 'start=2030-01-01%2000:00&end=2030-01-02%2000:00&as_of_position=99999999', 400],
    ['until in the future', 'start=2030-01-01%2000:00&end=2030-01-02%2000:00&until=2029-12-31%2000:00', 400],
    ['until now (leave it out)', 'start=2030-01-01%2000:00&end=2030-01-02%2000:00&until=now', 400],
    ['until that is no date', 'start=2030-01-01%2000:00&end=2030-01-02%2000:00&until=later', 400],
  ])("%s (%s): %i in Blazar's error body, nothing written", async (_what, query, status) => {
    const before = ledgerCount(system.dataDir);
    const response = await client.get(`/v1/usage?${query}`);
    expect(response.status, describeBody(response)).toBe(status);
    expect(response.body).toEqual(blazarError(status, expect.any(String)));
    expect(ledgerCount(system.dataDir)).toBe(before);
  });

  it.each([
    ['a currency that is none', { currency: 'dollars', effective_from: '2030-01-01 00:00', prices: {} }],
    ['an unknown metric', { currency: 'USD', effective_from: '2030-01-01 00:00', prices: { gpu_hours: '1' } }],
    ['a negative price', { currency: 'USD', effective_from: '2030-01-01 00:00', prices: { host_hours: '-1' } }],
    ['no effective_from', { currency: 'USD', prices: {} }],
  ])('a rate card with %s: 400, nothing written', async (_what, body) => {
    const before = ledgerCount(system.dataDir);
    const response = await client.put('/v1/rate-cards/bad', body);
    expect(response.status, describeBody(response)).toBe(400);
    expect(ledgerCount(system.dataDir)).toBe(before);
    expect((await client.get('/v1/rate-cards/bad')).status).toBe(404);
  });

  it('counts a running lease up to the instant the report is asked for, says so (until), and that instant with the position reproduces it', async () => {
    expect((await client.post('/v1/os-hosts', { name: 'usage-running', ...HOST })).status).toBe(201);
    const created = await client.post('/v1/leases', {
      name: 'usage-running-lease',
      start_date: 'now',
      end_date: blazarDate(120),
      reservations: [pinnedHost('usage-running')],
    });
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id as string;
    const startedAt = await eventually(async () => {
      const history = (await client.get(`/v1/leases/${leaseId}/history`)).body.history as { type: string; data: { at: string } }[];
      return history.find((entry) => entry.type === 'lease.started')?.data.at;
    }, 30_000);
    const asked = Date.now();
    const running = await usage(`&group_by=lease`);
    const until = running.body.usage.until as string;
    expect(Date.parse(until)).toBeGreaterThanOrEqual(asked);
    expect(Date.parse(until)).toBeLessThanOrEqual(Date.now());
    const line = () => running.body.usage.lines.find((l: { lease_id: string }) => l.lease_id === leaseId);
    expect(line().host_hours).toBe(hours(1, Date.parse(until) - Date.parse(startedAt)));

    // the lease ends: the report asked again with its position and instant still counts it running up to that instant
    expect((await client.delete(`/v1/leases/${leaseId}`)).status).toBe(204);
    expect((await usage(`&group_by=lease${pinnedTo(running.body)}`)).text).toBe(running.text);
    const now = await usage(`&group_by=lease`);
    expect(now.body.usage.as_of_position).toBeGreaterThan(running.body.usage.as_of_position);
    // a window that ended before now counts up to its end, and says so
    const closed = `start=${encodeURIComponent(from)}&end=${encodeURIComponent(until)}`;
    const past = await client.get(`/v1/usage?${closed}&group_by=lease`);
    expect(past.status, describeBody(past)).toBe(200);
    expect(past.body.usage.until).toBe(until);
  });

  it("a capability price changes only the metrics it names: a gpu host's vCPU-hours keep the card's price", async () => {
    expect((await client.post('/v1/os-hosts', { name: 'usage-gpu', ...HOST, node_type: 'gpu' })).status).toBe(201);
    const gpu = await runAndDelete('usage-gpu-lease', [pinnedHost('usage-gpu')]);
    const card = await client.put('/v1/rate-cards/e2e-gpu', {
      currency: 'EUR',
      effective_from: blazarDate(-60),
      prices: { host_hours: '1', vcpu_hours: '0.01' },
      capability_prices: [{ capability: 'node_type', value: 'gpu', prices: { host_hours: '3' } }],
    });
    expect(card.status, describeBody(card)).toBe(200);
    expect(card.body.rate_card.capability_prices).toEqual([{ capability: 'node_type', value: 'gpu', prices: { host_hours: '3' } }]);
    const rated = await usage('&group_by=lease&rate_card=e2e-gpu');
    const line = rated.body.usage.lines.find((l: { lease_id: string }) => l.lease_id === gpu.leaseId);
    // millionths of EUR: host-ms x 3 plus vCPU-ms x 0.01, rounded once
    const cost = (BigInt(gpu.ms) * 3_000_000n + BigInt(HOST.vcpus * gpu.ms) * 10_000n + MS_PER_HOUR / 2n) / MS_PER_HOUR;
    expect(line.cost).toBe(`${cost / 1_000_000n}.${(cost % 1_000_000n).toString().padStart(6, '0')}`);
  });

  it('a quota refusal counts hours as a usage report does: a 2-minute lease is 0.033333 host-hours in both', async () => {
    expect((await client.put(`/v1/quotas/${PROJECT}`, { host_hours_per_month: 0 })).status).toBe(200);
    try {
      const refused = await client.post('/v1/leases', {
        name: 'usage-quota',
        start_date: '2031-03-10 10:00',
        end_date: '2031-03-10 10:02',
        reservations: [pinnedHost('usage-host')],
      });
      expect(refused.status, describeBody(refused)).toBe(403);
      const twoMinutes = hours(1, 120_000);
      expect(twoMinutes).toBe(0.033333);
      expect(refused.body.error_message).toBe(
        `Quota exceeded for project ${PROJECT}: host-hours per month (2031-03) limit 0, this lease would make it ${twoMinutes}`,
      );
    } finally {
      expect((await client.put(`/v1/quotas/${PROJECT}`, { host_hours_per_month: null })).status).toBe(200);
    }
  });
});
