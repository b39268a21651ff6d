/**
 * Usage enforcement through HTTP (api + projector + reactor) with a real usage service: a node:http
 * server started here that answers as told (204, 403 with a message, 500, or not at all) and keeps
 * every request it got. Proves: a 204 admits the lease and the service saw upstream's bodies (context,
 * lease, allocations, current_lease); a 403 and max_lease_duration refuse with their message in
 * Blazar's body, change nothing in the ledger and land in the audit log with the filter named; a
 * slow or failing service is denied or allowed as LEASEHOLD_ENFORCEMENT_EXTERNAL_ON_ERROR says;
 * on-end is called after a lease ended; the real `openstack` CLI shows the refusal's message; an
 * unknown filter stops the API at start.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerCount, pinnedHost } from '../helpers/api-fixtures.js';
import { failed, openstack } from '../helpers/cli.js';
import { api, blazarDate, floatingIpReservation } from '../helpers/http.js';
import { type Client, blazarError, describeBody, leaseClient } from '../helpers/lease-client.js';
import { type RunningSystem, eventually, runApiUntilExit, startSystem } from '../helpers/system.js';

type Behaviour = 'allow' | 'refuse' | 'refuse-bare' | 'fail' | 'hang';

interface Received {
  readonly path: string;
  readonly token: string | undefined;
  readonly body: any;
}

const NETWORK = '3f1c2b4a-6d5e-4f70-8a9b-0c1d2e3f4a5b';
const TOKEN = 'usage-service-token';
const REFUSAL = 'Your project is limited to reserving 1 physical host.';
const DENIED = 'External service enforcement filter denied the request.';
const CONTEXT = { user_id: 'leasehold-admin', project_id: 'leasehold-admin-project', auth_url: null, region_name: null };
const BLAZAR_DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/;

/** The operator's usage service: answers each endpoint as `behaviour` says; a hung request is answered 204 at close. */
class UsageService {
  readonly received: Received[] = [];
  behaviour: Record<string, Behaviour> = {};
  private readonly hung: ServerResponse[] = [];
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((request, response) => void this.answer(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    for (const response of this.hung.splice(0)) response.writeHead(204).end();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  of(path: string): Received[] {
    return this.received.filter((request) => request.path === path);
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    const path = request.url ?? '';
    this.received.push({ path, token: request.headers['x-auth-token'] as string | undefined, body: JSON.parse(text) });
    switch (this.behaviour[path] ?? 'allow') {
      case 'allow':
        return void response.writeHead(204).end();
      case 'refuse':
        return void response.writeHead(403, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: REFUSAL }));
      case 'refuse-bare':
        return void response.writeHead(403).end();
      case 'fail':
        return void response.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom');
      case 'hang':
        this.hung.push(response);
    }
  }
}

const enforcementEnv = (url: string, onError: 'deny' | 'allow', filters = 'max_lease_duration,external_service') => ({
  LEASEHOLD_ENFORCEMENT_FILTERS: filters,
  LEASEHOLD_MAX_LEASE_DURATION_SECONDS: '7200',
  LEASEHOLD_ENFORCEMENT_EXTERNAL_URL: url,
  LEASEHOLD_ENFORCEMENT_EXTERNAL_TOKEN: TOKEN,
  LEASEHOLD_ENFORCEMENT_EXTERNAL_TIMEOUT_MS: '1000',
  LEASEHOLD_ENFORCEMENT_EXTERNAL_ON_ERROR: onError,
});

/** Start and end `minutes` apart, `fromNow` minutes ahead, both of one reading of the clock. */
const windowOf = (fromNow: number, minutes: number): [string, string] => {
  const base = Date.now();
  return [blazarDate(fromNow, base), blazarDate(fromNow + minutes, base)];
};

const leaseBody = (name: string, start: string, end: string, reservations: unknown[]) => ({
  name,
  start_date: start,
  end_date: end,
  reservations,
  events: [],
});

describe('usage enforcement, failing closed (max_lease_duration of 2 h, then external_service)', () => {
  const service = new UsageService();
  let system: RunningSystem;
  let client: Client;
  let hostId: string;
  const leases = leaseClient(
    () => system,
    () => client,
  );

  const auditEntry = async (requestId: string | null): Promise<any> => {
    const response = await client.get('/v1/audit');
    expect(response.status, describeBody(response)).toBe(200);
    return (response.body.audit as any[]).find((entry) => entry.request_id === requestId);
  };

  /** A create that must be refused with `message`: Blazar's 403, the ledger as it was, and the refusal audited under `code`. */
  const refusedCreate = async (name: string, [start, end]: [string, string], message: string, code: string): Promise<void> => {
    const before = ledgerCount(system.dataDir);
    const response = await client.post('/v1/leases', leaseBody(name, start, end, [pinnedHost('enf-host')]));
    expect(response.status, describeBody(response)).toBe(403);
    expect(response.body).toEqual(blazarError(403, message));
    expect(ledgerCount(system.dataDir), 'a refused write must not append to the ledger').toBe(before);
    expect(await auditEntry(response.headers.get('x-openstack-request-id'))).toMatchObject({
      type: 'audit.write_refused',
      data: { operation: 'createLease', method: 'POST', path: '/v1/leases', status: 403, code, reason: message },
    });
  };

  beforeAll(async () => {
    const url = await service.start();
    system = await startSystem({ env: enforcementEnv(url, 'deny') });
    client = api(system.url);
    const host = await client.post('/v1/os-hosts', { name: 'enf-host', gpu: 'true' });
    expect(host.status, describeBody(host)).toBe(201);
    hostId = host.body.host.id;
    const fip = await client.post('/v1/floatingips', { floating_network_id: NETWORK, floating_ip_address: '203.0.113.9' });
    expect(fip.status, describeBody(fip)).toBe(201);
  });

  afterAll(async () => {
    await system?.stop();
    await service.close();
  });

  it("admits a lease the service allows (204), after sending check-create upstream's body with the chosen allocations and the token", async () => {
    service.behaviour = {};
    const [start, end] = windowOf(60, 60);
    const lease = await leases.createLease('enf-allowed', start, end, [pinnedHost('enf-host'), floatingIpReservation(NETWORK, 1)]);
    const [check] = service.of('/v1/check-create').slice(-1);
    expect(check?.token).toBe(TOKEN);
    expect(check?.body).toEqual({
      context: CONTEXT,
      lease: {
        start_date: start,
        end_date: end,
        reservations: [
          {
            resource_type: 'physical:host',
            min: 1,
            max: 1,
            hypervisor_properties: JSON.stringify(['==', '$hypervisor_hostname', 'enf-host']),
            resource_properties: '',
            before_end: 'default',
            allocations: [{ id: hostId, hypervisor_hostname: 'enf-host', extra: { gpu: 'true' } }],
          },
          {
            resource_type: 'virtual:floatingip',
            network_id: NETWORK,
            amount: 1,
            required_floatingips: [],
            allocations: [{ id: expect.any(String), floating_network_id: NETWORK, floating_ip_address: '203.0.113.9' }],
          },
        ],
      },
    });
    expect(lease.status).toBe('PENDING');
    await client.delete(`/v1/leases/${lease.id as string}`);
  });

  it('refuses what the service refuses (403): its message to the client, nothing recorded, the refusal audited with the filter named', async () => {
    service.behaviour = { '/v1/check-create': 'refuse' };
    await refusedCreate('enf-refused', windowOf(60, 60), REFUSAL, 'ENFORCEMENT_EXTERNAL_SERVICE');
    service.behaviour = { '/v1/check-create': 'refuse-bare' };
    await refusedCreate('enf-refused-bare', windowOf(60, 60), DENIED, 'ENFORCEMENT_EXTERNAL_SERVICE');
  });

  it('refuses a lease longer than the maximum before the service is asked, saying the limit and the requested duration', async () => {
    service.behaviour = {};
    const asked = service.of('/v1/check-create').length;
    await refusedCreate(
      'enf-too-long',
      windowOf(60, 180),
      'Lease duration of 10800 seconds must be less than or equal to the maximum of 7200 seconds.',
      'ENFORCEMENT_MAX_LEASE_DURATION',
    );
    expect(service.of('/v1/check-create')).toHaveLength(asked);
  });

  it('denies when the service does not answer within the timeout, or answers 500', async () => {
    service.behaviour = { '/v1/check-create': 'hang' };
    await refusedCreate(
      'enf-slow',
      windowOf(60, 60),
      `${DENIED} The usage service could not be consulted (check-create did not answer within 1000 ms).`,
      'ENFORCEMENT_EXTERNAL_SERVICE',
    );
    service.behaviour = { '/v1/check-create': 'fail' };
    await refusedCreate(
      'enf-failing',
      windowOf(60, 60),
      `${DENIED} The usage service could not be consulted (check-create answered HTTP 500).`,
      'ENFORCEMENT_EXTERNAL_SERVICE',
    );
  });

  it('sends check-update the current lease and the lease as it would be; a refused update changes nothing', async () => {
    service.behaviour = {};
    const [start, end] = windowOf(60, 30);
    const lease = await leases.createLease('enf-update', start, end, [pinnedHost('enf-host')]);
    const newEnd = windowOf(60, 90)[1];
    await leases.updateLease(lease.id, { end_date: newEnd });
    const [check] = service.of('/v1/check-update').slice(-1);
    const reservation = {
      resource_type: 'physical:host',
      min: 1,
      max: 1,
      allocations: [{ id: hostId, hypervisor_hostname: 'enf-host', extra: { gpu: 'true' } }],
    };
    expect(check?.body).toMatchObject({
      context: CONTEXT,
      current_lease: { start_date: start, end_date: end, reservations: [reservation] },
      lease: { start_date: start, end_date: newEnd, reservations: [reservation] },
    });
    service.behaviour = { '/v1/check-update': 'refuse' };
    await leases.refusedUpdate(lease.id, { end_date: windowOf(60, 110)[1] }, 403, REFUSAL);
    expect((await leases.showLease(lease.id)).end_date.slice(0, 16)).toBe(newEnd.replace(' ', 'T'));
    await client.delete(`/v1/leases/${lease.id as string}`);
  });

  it('calls on-end once a lease has ended (an active lease deleted), with the lease and its allocations', async () => {
    service.behaviour = {};
    const end = blazarDate(60);
    const created = await client.post('/v1/leases', leaseBody('enf-ending', 'now', end, [pinnedHost('enf-host')]));
    expect(created.status, describeBody(created)).toBe(201);
    const leaseId = created.body.lease.id as string;
    await eventually(
      async () => ((await client.get(`/v1/leases/${leaseId}`)).body?.lease?.status === 'ACTIVE' ? true : undefined),
      20_000,
      'the lease to start',
    );
    const deleted = await client.delete(`/v1/leases/${leaseId}`);
    expect(deleted.status, describeBody(deleted)).toBe(204);
    const onEnd = await eventually(
      async () => service.of('/v1/on-end').find((request) => request.body.lease.end_date === end),
      20_000,
      'on-end',
    );
    expect(onEnd.token).toBe(TOKEN);
    expect(onEnd.body).toEqual({
      context: CONTEXT,
      lease: {
        start_date: expect.stringMatching(BLAZAR_DATE),
        end_date: end,
        reservations: [
          expect.objectContaining({
            resource_type: 'physical:host',
            allocations: [{ id: hostId, hypervisor_hostname: 'enf-host', extra: { gpu: 'true' } }],
          }),
        ],
      },
    });
    // its Lease.Deleted came first in the log and was passed over: one call for one end
    expect(service.of('/v1/on-end').filter((request) => request.body.lease.end_date === end)).toHaveLength(1);
    expect(system.output()).toContain('"event":"enforcement.on-end"');
  });

  it('calls on-end for a lease deleted before it started', async () => {
    service.behaviour = {};
    const [start, end] = windowOf(300, 30);
    const lease = await leases.createLease('enf-never-started', start, end, [pinnedHost('enf-host')]);
    expect((await client.delete(`/v1/leases/${lease.id as string}`)).status).toBe(204);
    const onEnd = await eventually(
      async () => service.of('/v1/on-end').find((request) => request.body.lease.end_date === end),
      20_000,
      'on-end',
    );
    expect(onEnd.body.lease).toMatchObject({
      start_date: start,
      end_date: end,
      reservations: [{ allocations: [{ id: hostId, hypervisor_hostname: 'enf-host' }] }],
    });
  });

  it("the openstack CLI shows the refusal's message", async () => {
    service.behaviour = { '/v1/check-create': 'refuse' };
    const [start, end] = windowOf(60, 60);
    const result = await openstack(
      system.url,
      'reservation',
      'lease',
      'create',
      '--reservation',
      'resource_type=physical:host,min=1,max=1,hypervisor_properties=,resource_properties=',
      '--start-date',
      start,
      '--end-date',
      end,
      'enf-cli',
    );
    expect(failed(result)).toEqual([`ERROR: ${REFUSAL}`]);
  });
});

describe('usage enforcement, failing open (LEASEHOLD_ENFORCEMENT_EXTERNAL_ON_ERROR=allow)', () => {
  const service = new UsageService();
  let system: RunningSystem;
  let client: Client;
  const leases = leaseClient(
    () => system,
    () => client,
  );

  beforeAll(async () => {
    const url = await service.start();
    system = await startSystem({ env: enforcementEnv(url, 'allow', 'external_service'), apps: ['api'] });
    client = api(system.url);
    expect((await client.post('/v1/os-hosts', { name: 'open-host' })).status).toBe(201);
  });

  afterAll(async () => {
    await system?.stop();
    await service.close();
  });

  it('admits a lease when the service does not answer within the timeout, or answers 500, and still refuses its 403', async () => {
    service.behaviour = { '/v1/check-create': 'hang' };
    await leases.createLease('open-slow', ...windowOf(60, 60), [pinnedHost('open-host')]);
    service.behaviour = { '/v1/check-create': 'fail' };
    await leases.createLease('open-failing', ...windowOf(180, 60), [pinnedHost('open-host')]);
    expect(service.of('/v1/check-create')).toHaveLength(2);
    service.behaviour = { '/v1/check-create': 'refuse' };
    await leases.refusedLease('open-refused', ...windowOf(300, 60), [pinnedHost('open-host')], 403, REFUSAL);
  });
});

describe('usage enforcement configuration', () => {
  it('an unknown filter name stops the API at start, naming it and the known ones', async () => {
    const { code, output } = await runApiUntilExit({
      LEASEHOLD_PORT: '0',
      LEASEHOLD_DATA_DIR: join(tmpdir(), 'leasehold-enforcement-never-opened'),
      LEASEHOLD_ENFORCEMENT_FILTERS: 'max_lease_duration,quota',
    });
    expect(code).not.toBe(0);
    expect(output).toContain(
      "LEASEHOLD_ENFORCEMENT_FILTERS: unknown filter 'quota' (known: max_lease_duration, external_service, lease_stacking)",
    );
  });
});
