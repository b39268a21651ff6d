/**
 * `/v1/floatingips` against the running system: upstream's contract (reference §1.9) with the
 * differences in docs/compatibility.md (409 for a duplicate, IPv6 in one spelling, subnet_id null in
 * standalone mode), Leasehold's admin allocation views, the real `openstack reservation floatingip`
 * CLI, and a rebuild of the read model that equals the live one. Every refused write is checked to
 * leave the ledger (events.sqlite) exactly as it was.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dumpReadModel } from '#projector/dump-read-model.js';
import { openReadModel, readModelDatabaseFromEnv } from '#read-model/index.js';
import { REQUEST_ID, TIMESTAMP, UUID, dayAt, ledgerCount, tDate } from '../helpers/api-fixtures.js';
import { failed, openstack, parseJson, parseTable, succeeded } from '../helpers/cli.js';
import { type JsonResponse, api } from '../helpers/http.js';
import { ROOT, type RunningSystem, startSystem } from '../helpers/system.js';

/** The row's timestamps first, then its columns, as the host view. */
const FLOATING_IP_KEYS = ['created_at', 'updated_at', 'id', 'floating_network_id', 'subnet_id', 'floating_ip_address', 'reservable'];

const blazarError = (status: number, message: string | RegExp) => ({
  error_code: status,
  error_message: typeof message === 'string' ? message : expect.stringMatching(message),
  error_name: status,
});

const notFound = (id: string) => blazarError(404, `Floating IP ${id} not found.`);

describe('floating IPs (/v1/floatingips)', () => {
  let system: RunningSystem;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
  });

  const describeBody = (response: JsonResponse): string => `${response.status} ${JSON.stringify(response.body)}`;

  /** Sends a write that must be refused: status, Blazar's error body, and no event appended. */
  const rejected = async (send: () => Promise<JsonResponse>, status: number, message: string | RegExp): Promise<void> => {
    const before = ledgerCount(system.dataDir);
    const response = await send();
    expect(response.status, describeBody(response)).toBe(status);
    expect(response.body).toEqual(blazarError(status, message));
    expect(ledgerCount(system.dataDir), 'a refused write must not append to the ledger').toBe(before);
  };

  const register = async (network: string, address: string) => {
    const response = await client.post('/v1/floatingips', { floating_network_id: network, floating_ip_address: address });
    expect(response.status, describeBody(response)).toBe(201);
    return response.body.floatingip;
  };

  /** A network of its own per test, so that leases and duplicates don't cross tests. */
  const newNetwork = (): string => randomUUID();

  /** A lease reserving `amount` floating IPs of the network (POST /v1/leases, virtual:floatingip). */
  const leaseOn = async (network: string, start: string, end: string, amount = 1) => {
    const response = await client.post('/v1/leases', {
      name: `fip-lease-${randomUUID().slice(0, 8)}`,
      start_date: start,
      end_date: end,
      reservations: [{ resource_type: 'virtual:floatingip', network_id: network, amount, required_floatingips: [] }],
      events: [],
    });
    expect(response.status, describeBody(response)).toBe(201);
    const lease = response.body.lease;
    return { leaseId: lease.id as string, reservationId: lease.reservations[0].id as string };
  };

  describe('register, list, show, delete', () => {
    it("POST answers 201 with the floating IP in Blazar's shape; list and show return the same document", async () => {
      const network = newNetwork();
      const response = await client.post('/v1/floatingips', { floating_network_id: network, floating_ip_address: '172.24.4.101' });
      expect(response.status, describeBody(response)).toBe(201);
      expect(response.headers.get('x-leasehold-position')).toMatch(/^\d+$/);
      expect(response.headers.get('openstack-api-version')).toBe('reservation 1.0');
      expect(response.headers.get('x-openstack-request-id')).toMatch(REQUEST_ID);
      const created = response.body.floatingip;
      expect(Object.keys(response.body)).toEqual(['floatingip']);
      expect(Object.keys(created)).toEqual(FLOATING_IP_KEYS);
      expect(created).toEqual({
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: null,
        id: expect.stringMatching(UUID),
        floating_network_id: network,
        subnet_id: null,
        floating_ip_address: '172.24.4.101',
        reservable: true,
      });

      const shown = await client.get(`/v1/floatingips/${created.id}`);
      expect(shown.status).toBe(200);
      expect(shown.body).toEqual({ floatingip: created });
      expect(Object.keys(shown.body.floatingip)).toEqual(FLOATING_IP_KEYS);

      const listed = await client.get('/v1/floatingips');
      expect(listed.status).toBe(200);
      expect(Object.keys(listed.body)).toEqual(['floatingips']);
      expect(listed.body.floatingips).toContainEqual(created);
    });

    it('lists floating IPs in registration order', async () => {
      const network = newNetwork();
      const ids = [];
      for (const address of ['10.1.0.3', '10.1.0.1', '10.1.0.2']) ids.push((await register(network, address)).id);
      const listed = (await client.get('/v1/floatingips')).body.floatingips.filter(
        (ip: { floating_network_id: string }) => ip.floating_network_id === network,
      );
      expect(listed.map((ip: { id: string }) => ip.id)).toEqual(ids);
    });

    it('DELETE answers 204 without a body; the floating IP is gone and its address can be registered again, with a new id', async () => {
      const network = newNetwork();
      const ip = await register(network, '10.2.0.1');
      const response = await fetch(`${system.url}/v1/floatingips/${ip.id}`, { method: 'DELETE' });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      expect(response.headers.get('x-leasehold-position')).toMatch(/^\d+$/);

      const shown = await client.get(`/v1/floatingips/${ip.id}`);
      expect(shown.status).toBe(404);
      expect(shown.body).toEqual(notFound(ip.id));
      expect((await client.get('/v1/floatingips')).body.floatingips.map((f: { id: string }) => f.id)).not.toContain(ip.id);

      const again = await register(network, '10.2.0.1');
      expect(again.id).not.toBe(ip.id);
      await rejected(() => client.delete(`/v1/floatingips/${ip.id}`), 404, `Floating IP ${ip.id} not found.`);
    });

    it('the same address may be registered on two networks, but only once per network (409, upstream: 500)', async () => {
      const network = newNetwork();
      const first = await register(network, '172.24.4.200');
      await register(newNetwork(), '172.24.4.200');
      await rejected(
        () => client.post('/v1/floatingips', { floating_network_id: network, floating_ip_address: '172.24.4.200' }),
        409,
        `Floating IP 172.24.4.200 on network ${network} is already registered with id ${first.id}`,
      );
    });

    it('IPv6 addresses are stored in their canonical form, so one address cannot be registered twice in two spellings', async () => {
      const network = newNetwork();
      const created = await register(network, '2001:0DB8:0000:0000:0000:0000:0000:0101');
      expect(created.floating_ip_address).toBe('2001:db8::101');
      for (const spelling of ['2001:db8::101', '2001:DB8::0:101', '2001:db8:0:0:0:0:0:101']) {
        await rejected(
          () => client.post('/v1/floatingips', { floating_network_id: network, floating_ip_address: spelling }),
          409,
          `Floating IP 2001:db8::101 on network ${network} is already registered with id ${created.id}`,
        );
      }
      expect((await register(network, '2001:db8::1:0:0:1')).floating_ip_address).toBe('2001:db8::1:0:0:1');
    });

    it('unknown ids: GET, DELETE and GET .../allocation answer 404 `Floating IP <id> not found.`', async () => {
      const missing = randomUUID();
      for (const path of [`/v1/floatingips/${missing}`, `/v1/floatingips/${missing}/allocation`]) {
        const response = await client.get(path);
        expect(response.status, path).toBe(404);
        expect(response.body).toEqual(notFound(missing));
      }
      await rejected(() => client.delete(`/v1/floatingips/${missing}`), 404, `Floating IP ${missing} not found.`);
    });
  });

  describe("request validation: a 400 in Blazar's words, nothing written", () => {
    const network = '6c1f0a52-8e3b-4d2a-9f1e-0b7d3c5a9e10';
    const cases: readonly (readonly [string, unknown, string | RegExp])[] = [
      ['empty body', {}, 'Missing parameter floating_network_id'],
      ['no address', { floating_network_id: network }, 'Missing parameter floating_ip_address'],
      ['no network', { floating_ip_address: '10.3.0.1' }, 'Missing parameter floating_network_id'],
      ['null network', { floating_network_id: null, floating_ip_address: '10.3.0.1' }, 'Missing parameter floating_network_id'],
      ['null address', { floating_network_id: network, floating_ip_address: null }, 'Missing parameter floating_ip_address'],
      ['numeric network', { floating_network_id: 7, floating_ip_address: '10.3.0.1' }, 'Malformed parameter floating_network_id'],
      [
        'empty network',
        { floating_network_id: '', floating_ip_address: '10.3.0.1' },
        'Malformed parameter floating_network_id (must be a network UUID)',
      ],
      [
        'network not a UUID',
        { floating_network_id: 'not-a-uuid', floating_ip_address: '10.3.0.1' },
        'Malformed parameter floating_network_id (must be a network UUID)',
      ],
      [
        'network UUID without dashes',
        { floating_network_id: network.replaceAll('-', ''), floating_ip_address: '10.3.0.1' },
        'Malformed parameter floating_network_id (must be a network UUID)',
      ],
      ['numeric address', { floating_network_id: network, floating_ip_address: 167772161 }, 'Malformed parameter floating_ip_address'],
      [
        'address object',
        { floating_network_id: network, floating_ip_address: { ip: '10.3.0.1' } },
        'Malformed parameter floating_ip_address',
      ],
      ...['', '10.3.0', '10.3.0.256', '010.3.0.1', ' 10.3.0.1', '10.3.0.0/24', 'fe80::1%eth0', '2001:db8::1::1', 'example.org'].map(
        (address) =>
          [
            `address ${JSON.stringify(address)}`,
            { floating_network_id: network, floating_ip_address: address },
            `Malformed parameter floating_ip_address: ${address} is not an IPv4 or IPv6 address`,
          ] as const,
      ),
      ['a JSON array', [], 'Malformed request body: a JSON object is required'],
    ];

    it.each(cases)('%s', async (_name, body, message) => {
      await rejected(() => client.post('/v1/floatingips', body), 400, message);
    });

    it('a body that is not JSON', async () => {
      await rejected(() => client.post('/v1/floatingips', '{"floating_network_id": '), 400, /JSON/);
    });
  });

  describe('allocations (Leasehold extension, admin only)', () => {
    it("GET /v1/floatingips/allocations lists every floating IP with the reservations holding it, in Blazar's date format", async () => {
      const network = newNetwork();
      const held = await register(network, '10.4.0.1');
      const start = dayAt(40, '10:00');
      const end = dayAt(41, '10:00');
      const lease = await leaseOn(network, start, end);
      const free = await register(network, '10.4.0.2');

      const response = await client.get('/v1/floatingips/allocations');
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(['allocations']);
      const byId = new Map(response.body.allocations.map((a: { resource_id: string }) => [a.resource_id, a]));
      const expected = { id: lease.reservationId, lease_id: lease.leaseId, start_date: tDate(start), end_date: tDate(end) };
      expect(byId.get(held.id)).toEqual({ resource_id: held.id, reservations: [expected] });
      expect(Object.keys(byId.get(held.id) as object)).toEqual(['resource_id', 'reservations']);
      expect(Object.keys((byId.get(held.id) as { reservations: object[] }).reservations[0] as object)).toEqual([
        'id',
        'lease_id',
        'start_date',
        'end_date',
      ]);
      expect(byId.get(free.id)).toEqual({ resource_id: free.id, reservations: [] });
      // one entry per registered floating IP, in registration order
      const listed = (await client.get('/v1/floatingips')).body.floatingips.map((ip: { id: string }) => ip.id);
      expect(response.body.allocations.map((a: { resource_id: string }) => a.resource_id)).toEqual(listed);

      const one = await client.get(`/v1/floatingips/${held.id}/allocation`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({ allocation: { resource_id: held.id, reservations: [expected] } });
    });

    it('lease_id and reservation_id filter the reservations, as for hosts', async () => {
      const network = newNetwork();
      const ip = await register(network, '10.5.0.1');
      const first = await leaseOn(network, dayAt(50, '10:00'), dayAt(50, '12:00'));
      const second = await leaseOn(network, dayAt(51, '10:00'), dayAt(51, '12:00'));
      const ids = async (query: string) => {
        const response = await client.get(`/v1/floatingips/${ip.id}/allocation${query}`);
        expect(response.status, describeBody(response)).toBe(200);
        return response.body.allocation.reservations.map((r: { id: string }) => r.id);
      };
      expect(await ids('')).toEqual([first.reservationId, second.reservationId]);
      expect(await ids(`?lease_id=${second.leaseId}`)).toEqual([second.reservationId]);
      expect(await ids(`?reservation_id=${first.reservationId}`)).toEqual([first.reservationId]);
      expect(await ids(`?lease_id=${randomUUID()}`)).toEqual([]);
      const all = await client.get(`/v1/floatingips/allocations?lease_id=${first.leaseId}`);
      const entry = all.body.allocations.find((a: { resource_id: string }) => a.resource_id === ip.id);
      expect(entry.reservations.map((r: { id: string }) => r.id)).toEqual([first.reservationId]);
    });

    it('a reserved floating IP cannot be deleted (409); once its lease is deleted, it can', async () => {
      const network = newNetwork();
      const ip = await register(network, '10.6.0.1');
      const lease = await leaseOn(network, dayAt(60, '10:00'), dayAt(60, '11:00'));
      await rejected(
        () => client.delete(`/v1/floatingips/${ip.id}`),
        409,
        `Can't delete floating IP ${ip.id}. The floating IP is reserved.`,
      );
      expect((await client.get(`/v1/floatingips/${ip.id}`)).status).toBe(200);

      expect((await client.delete(`/v1/leases/${lease.leaseId}`)).status).toBe(204);
      const allocation = await client.get(`/v1/floatingips/${ip.id}/allocation`);
      expect(allocation.body).toEqual({ allocation: { resource_id: ip.id, reservations: [] } });
      expect((await client.delete(`/v1/floatingips/${ip.id}`)).status).toBe(204);
      expect((await client.get(`/v1/floatingips/${ip.id}`)).status).toBe(404);
    });
  });

  describe('the real CLI: openstack reservation floatingip ...', () => {
    const osc = (...args: string[]) => openstack(system.url, 'reservation', 'floatingip', ...args);

    it('create, list, show and delete', async () => {
      const network = newNetwork();
      const created = parseJson(await osc('create', '-f', 'json', network, '172.24.4.150'));
      // cliff prints None as ""
      expect(created).toEqual({
        created_at: expect.stringMatching(TIMESTAMP),
        floating_ip_address: '172.24.4.150',
        floating_network_id: network,
        id: expect.stringMatching(UUID),
        reservable: true,
        subnet_id: '',
        updated_at: '',
      });

      const listed = parseJson(await osc('list', '-f', 'json'));
      expect(listed).toContainEqual({ id: created.id, floating_ip_address: '172.24.4.150', floating_network_id: network });
      const table = parseTable(succeeded(await osc('list')));
      expect(table[0]).toEqual(['id', 'floating_ip_address', 'floating_network_id']);
      expect(table).toContainEqual([created.id, '172.24.4.150', network]);

      expect(parseJson(await osc('show', '-f', 'json', created.id))).toEqual(created);

      expect(succeeded(await osc('delete', created.id))).toBe(`Deleted floatingip: ${created.id}`);
      expect(failed(await osc('show', created.id))).toContain(`ERROR: Floating IP ${created.id} not found.`);
    });

    it("prints Blazar's error message for a refused create or delete, and writes nothing", async () => {
      const network = newNetwork();
      const ip = await register(network, '172.24.4.160');
      const before = ledgerCount(system.dataDir);
      expect(failed(await osc('create', network, '172.24.4.160'))).toContain(
        `ERROR: Floating IP 172.24.4.160 on network ${network} is already registered with id ${ip.id}`,
      );
      expect(failed(await osc('create', network, '172.24.4'))).toContain(
        'ERROR: Malformed parameter floating_ip_address: 172.24.4 is not an IPv4 or IPv6 address',
      );
      await leaseOn(network, dayAt(70, '10:00'), dayAt(70, '11:00'));
      const afterLease = ledgerCount(system.dataDir);
      expect(afterLease).toBeGreaterThan(before);
      expect(failed(await osc('delete', ip.id))).toContain(`ERROR: Can't delete floating IP ${ip.id}. The floating IP is reserved.`);
      expect(ledgerCount(system.dataDir)).toBe(afterLease);
    });
  });

  describe('read model', () => {
    it('a rebuild from the log equals the live floating-IP tables', async () => {
      // the API's read-your-writes: this answers once the live read model includes every write above
      expect((await client.get('/v1/floatingips')).status).toBe(200);
      const target = join(system.dataDir, 'rebuilt-read-model.sqlite');
      const rebuild = await new Promise<{ code: number; output: string }>((resolve) => {
        execFile(
          process.execPath,
          [join(ROOT, 'dist/apps/projector/src/rebuild.js'), '--target', target],
          { env: { ...process.env, LEASEHOLD_DATA_DIR: system.dataDir }, timeout: 60_000 },
          (error, stdout, stderr) => resolve({ code: error === null ? 0 : 1, output: `${stdout}${stderr}` }),
        );
      });
      expect(rebuild.code, rebuild.output).toBe(0);
      const live = await openReadModel(readModelDatabaseFromEnv(system.dataDir));
      const rebuilt = await openReadModel({ kind: 'sqlite', file: target });
      try {
        const [liveDump, rebuiltDump] = [await dumpReadModel(live), await dumpReadModel(rebuilt)];
        for (const table of ['lh_floatingips', 'lh_floatingip_allocations']) {
          expect(liveDump[table]?.length, table).toBeGreaterThan(0);
          expect(rebuiltDump[table], table).toEqual(liveDump[table]);
        }
      } finally {
        await live.close();
        await rebuilt.close();
      }
    });
  });
});
