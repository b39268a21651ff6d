/**
 * The input boundary through HTTP, case by case as a user reported them (issue 11): control
 * characters in names and paths, absurd capacities, blank names, hour 24, updates that change
 * nothing, host fields on update, network ids that are no UUID; and as a security review found them
 * (issue 31): instants past 9999-12-31 23:59 offered or taken, unknown fields of Leasehold's own
 * endpoints ignored, bidi controls echoed in messages. Each refusal is a 400 (or 404) in Blazar's
 * body naming the field, and leaves the ledger as it was.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dayAt, ledgerCount, pinnedHost } from '../helpers/api-fixtures.js';
import { type GraphqlReply, graphqlClient } from '../helpers/graphql.js';
import { type JsonResponse, api, instanceReservation } from '../helpers/http.js';
import { blazarError, describeBody, withoutCounterOffer } from '../helpers/lease-client.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const NET = '4e7d1c2b-9a8f-4b3c-8d2e-1f0a9b8c7d60';

describe('input validation at the API boundary (api + projector)', () => {
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  let graphql: ReturnType<typeof graphqlClient>;
  let hostId: string;
  let leaseId: string;

  /** Sends raw bytes or text, as a client that does not build its JSON with a JSON library would. */
  const raw = async (method: string, path: string, body?: string | Buffer, type = 'application/json'): Promise<JsonResponse> => {
    const response = await fetch(`${system.url}${path}`, { method, headers: { 'Content-Type': type }, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text.length > 0 ? JSON.parse(text) : null };
  };

  const refused = async (send: () => Promise<JsonResponse>, status: number, message: string): Promise<void> => {
    const before = ledgerCount(system.dataDir);
    const response = await send();
    expect(response.status, describeBody(response)).toBe(status);
    expect(withoutCounterOffer(response.body)).toEqual(blazarError(status, message));
    expect(ledgerCount(system.dataDir), 'a refused request must not append to the ledger').toBe(before);
  };

  const start = dayAt(40, '10:00');
  const end = dayAt(41, '10:00');

  beforeAll(async () => {
    system = await startSystem({ apps: ['api', 'projector'] });
    client = api(system.url);
    graphql = graphqlClient(system.url);
    const host = await client.post('/v1/os-hosts', { name: 'iv-host-1', vcpus: 4, memory_mb: 8192, local_gb: 100, rack: 'r1' });
    expect(host.status, describeBody(host)).toBe(201);
    hostId = host.body.host.id;
    const lease = await client.post('/v1/leases', { name: 'iv-lease', start_date: start, end_date: end, reservations: [] });
    expect(lease.status, describeBody(lease)).toBe(201);
    leaseId = lease.body.lease.id;
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-4000)}`);
  });

  describe('a NUL in a name is refused, so it can no longer stop the read side', () => {
    it('lease and host names with NUL: 400 naming the field, nothing written', async () => {
      await refused(
        () => client.post('/v1/leases', { name: 'x\u0000', start_date: start, end_date: end }),
        400,
        'Malformed parameter name (contains the control character U+0000)',
      );
      await refused(
        () => client.post('/v1/os-hosts', { name: 'x\u0000' }),
        400,
        'Malformed parameter name (contains the control character U+0000)',
      );
      await refused(
        () => client.put(`/v1/leases/${leaseId}`, { name: 'x\u0000' }),
        400,
        'Malformed parameter name (contains the control character U+0000)',
      );
    });

    it('the read side stays current: a lease written next is read back at once, not stale', async () => {
      const created = await client.post('/v1/leases', { name: 'iv-after-nul', start_date: start, end_date: end });
      expect(created.status, describeBody(created)).toBe(201);
      const position = created.headers.get('x-leasehold-position') as string;
      const shown = await client.get(`/v1/leases/${created.body.lease.id}`, { 'X-Leasehold-Min-Position': position });
      expect(shown.status).toBe(200);
      expect(shown.headers.get('x-leasehold-stale')).toBeNull();
      expect(shown.body.lease.name).toBe('iv-after-nul');
    });

    it('C1, DEL, lone surrogates (as JSON escapes) and keys are refused the same way, wherever they are', async () => {
      await refused(
        () => client.post('/v1/os-hosts', { name: 'h\u0085' }),
        400,
        'Malformed parameter name (contains the control character U+0085)',
      );
      await refused(
        () => raw('POST', '/v1/os-hosts', '{"name": "h\\ud800"}'),
        400,
        'Malformed parameter name (contains a lone UTF-16 surrogate U+D800)',
      );
      await refused(
        () =>
          client.post('/v1/leases', {
            name: 'ok',
            start_date: start,
            end_date: end,
            reservations: [{ resource_type: 'physical:host', min: 1, max: 1, resource_properties: '\u007f' }],
          }),
        400,
        'Malformed parameter reservations[0].resource_properties (contains the control character U+007F)',
      );
      await refused(
        () => client.put(`/v1/os-hosts/${hostId}`, { 'gpu\u0000': 'yes' }),
        400,
        'Malformed parameter ["gpu\\u0000"] (the name contains the control character U+0000)',
      );
    });

    it('bytes that are not UTF-8 and numbers JSON cannot hold are refused, not decoded into something else', async () => {
      await refused(
        () => raw('POST', '/v1/os-hosts', Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])),
        400,
        'Malformed request body (not valid UTF-8)',
      );
      await refused(
        () => raw('POST', '/v1/os-hosts', '{"name": "h", "vcpus": 1e400}'),
        400,
        'Malformed parameter vcpus (not a finite number)',
      );
    });

    it('a form-encoded body is not read at all (the API speaks JSON)', async () => {
      await refused(
        () => raw('POST', '/v1/os-hosts', 'name=form-host&vcpus=2', 'application/x-www-form-urlencoded'),
        400,
        'Malformed request body: a JSON object is required',
      );
    });
  });

  describe("path parameters that cannot be ids: 404 in the resource's words (or 400 for bad encoding), never a database error", () => {
    it.each([
      ['GET', '/v1/leases/%00', "Object with {'lease_id': '\\x00'} not found"],
      ['PUT', '/v1/leases/%00', "Object with {'lease_id': '\\x00'} not found"],
      ['DELETE', '/v1/leases/%00', "Object with {'lease_id': '\\x00'} not found"],
      ['GET', '/v1/leases/not-a-lease', "Object with {'lease_id': 'not-a-lease'} not found"],
      ['GET', '/v1/os-hosts/%00', "Object with {'host_id': '\\x00'} not found"],
      ['PUT', '/v1/os-hosts/%00', "Object with {'host_id': '\\x00'} not found"],
      ['DELETE', '/v1/os-hosts/%C2%85', "Object with {'host_id': '\\x85'} not found"],
      ['GET', '/v1/os-hosts/%00/allocation', "Object with {'host_id': '\\x00'} not found"],
      ['GET', '/v1/os-hosts/-1', "Object with {'host_id': '-1'} not found"],
      ['GET', '/v1/floatingips/%00', 'Floating IP \\x00 not found.'],
      ['DELETE', '/v1/floatingips/%00', 'Floating IP \\x00 not found.'],
      ['GET', '/v1/floatingips/%00/allocation', 'Floating IP \\x00 not found.'],
      ['GET', '/v1/flavors/%00', 'Flavor \\x00 could not be found.'],
      ['DELETE', '/v1/flavors/%00', 'Flavor \\x00 could not be found.'],
      ['PATCH', '/v1/os-hosts/properties/%00', 'Resource property \\x00 not found'],
      // bidi controls and other format characters print as escapes too, whatever the route
      ['GET', '/v1/leases/%E2%80%AE', "Object with {'lease_id': '\\u202e'} not found"],
      ['PUT', '/v1/leases/x%E2%81%A6y', "Object with {'lease_id': 'x\\u2066y'} not found"],
      ['GET', '/v1/leases/%F3%A0%81%81', "Object with {'lease_id': '\\U000e0041'} not found"],
      ['GET', '/v1/os-hosts/%D8%9C', "Object with {'host_id': '\\u061c'} not found"],
      ['GET', '/v1/floatingips/%E2%80%8F', 'Floating IP \\u200f not found.'],
      ['DELETE', '/v1/flavors/%E2%80%AE', 'Flavor \\u202e could not be found.'],
      ['PATCH', '/v1/os-hosts/properties/gpu%E2%80%AEevil', 'Resource property gpu\\u202eevil not found'],
      ['GET', '/v1/leases/%E2%80%8B%EF%BB%BF%E2%80%A8', "Object with {'lease_id': '\\u200b\\ufeff\\u2028'} not found"],
    ])('%s %s', async (method, path, message) => {
      const body = method === 'PUT' ? JSON.stringify({ name: 'x' }) : method === 'PATCH' ? JSON.stringify({ private: true }) : undefined;
      await refused(() => raw(method, path, body), 404, message);
    });

    it('a percent-encoding that is no UTF-8 is 400', async () => {
      await refused(() => raw('GET', '/v1/leases/%ff'), 400, "Failed to decode param '%ff'");
      await refused(() => raw('DELETE', '/v1/os-hosts/%ED%A0%80'), 400, "Failed to decode param '%ED%A0%80'");
    });

    it('query filters that cannot be ids, or are given twice, are 400', async () => {
      await refused(
        () => client.get('/v1/os-hosts/allocations?lease_id=%00'),
        400,
        'Malformed parameter lease_id (contains the control character U+0000)',
      );
      await refused(
        () => client.get('/v1/os-hosts/allocations?lease_id=nope'),
        400,
        'Malformed parameter lease_id (must be a lease id, a UUID)',
      );
      await refused(
        () => client.get(`/v1/floatingips/allocations?reservation_id=${NET}&reservation_id=${NET}`),
        400,
        'Malformed parameter reservation_id (must be given once)',
      );
      await refused(() => client.get('/v1/os-hosts/properties?detail=1&detail=0'), 400, 'Malformed parameter detail (must be given once)');
    });
  });

  describe('hosts: capacity within bounds, a name, no host field on update', () => {
    const bounds = (field: string, max: number) => `Malformed parameter ${field} (must be an integer between 1 and ${max})`;

    it.each([
      [{ name: 'iv-neg', vcpus: -4 }, bounds('vcpus', 65_536)],
      [{ name: 'iv-huge', vcpus: 1e308 }, bounds('vcpus', 65_536)],
      [{ name: 'iv-zero', vcpus: 0 }, bounds('vcpus', 65_536)],
      [{ name: 'iv-ram', memory_mb: 2 ** 31 }, bounds('memory_mb', 2 ** 31 - 1)],
      [{ name: 'iv-disk', local_gb: '-1' }, bounds('local_gb', 2 ** 31 - 1)],
      [{ name: '' }, 'Malformed parameter name (must not be empty or blank)'],
      [{ name: '   ' }, 'Malformed parameter name (must not be empty or blank)'],
      [{ name: 'iv-flag', reservable: false }, 'reservable cannot be set at registration: it is a host field, not an extra capability'],
    ])('POST %j: 400', async (body, message) => {
      await refused(() => client.post('/v1/os-hosts', body), 400, message);
    });

    it('a host registered with only a name has 0 capacity ("not reported"), as before', async () => {
      const created = await client.post('/v1/os-hosts', { name: 'iv-bare' });
      expect(created.status, describeBody(created)).toBe(201);
      expect(created.body.host).toMatchObject({ vcpus: 0, memory_mb: 0, local_gb: 0 });
    });

    it('a 100,000-instance lease is refused: no host can claim the capacity for it', async () => {
      await refused(
        () =>
          client.post('/v1/leases', {
            name: 'iv-100k',
            start_date: start,
            end_date: end,
            reservations: [instanceReservation(100_000, { vcpus: 1, memory_mb: 1, disk_gb: 0 })],
          }),
        409,
        'Not enough hosts available: 4 such instance(s) fit on the 1 matching host(s) for the whole lease, 100000 requested',
      );
    });

    it('PUT of vcpus (or any host field) is refused, not answered 200 with an empty property left behind', async () => {
      const before = (await client.get(`/v1/os-hosts/${hostId}`)).body.host;
      for (const key of ['vcpus', 'memory_mb', 'local_gb', 'name', 'hypervisor_hostname', 'cpu_info']) {
        await refused(
          () => client.put(`/v1/os-hosts/${hostId}`, { [key]: 8 }),
          400,
          `${key} cannot be updated: a host's fields come from its registration; only extra capabilities and reservable can change`,
        );
      }
      expect((await client.get(`/v1/os-hosts/${hostId}`)).body.host).toEqual(before);
      const properties = (await client.get('/v1/os-hosts/properties')).body.resource_properties.map(
        (p: { property: string }) => p.property,
      );
      expect(properties).toContain('rack');
      expect(properties).not.toContain('vcpus');
    });
  });

  describe("leases: a name, upstream's dates, something to update", () => {
    it.each([
      [{ name: '', start_date: start, end_date: end }, 'Malformed parameter name (must not be empty or blank)'],
      [{ name: ' \u3000 ', start_date: start, end_date: end }, 'Malformed parameter name (must not be empty or blank)'],
      [
        { name: 'h24', start_date: dayAt(40, '24:00'), end_date: end },
        `${dayAt(40, '24:00')} is an invalid date. Required format: %Y-%m-%d %H:%M`,
      ],
      [
        { name: 'h25', start_date: dayAt(40, '25:00'), end_date: end },
        `${dayAt(40, '25:00')} is an invalid date. Required format: %Y-%m-%d %H:%M`,
      ],
      [
        { name: 'e24', start_date: start, end_date: dayAt(41, '24:00') },
        `${dayAt(41, '24:00')} is an invalid date. Required format: %Y-%m-%d %H:%M`,
      ],
    ])('POST %j: 400', async (body, message) => {
      await refused(() => client.post('/v1/leases', body), 400, message);
    });

    it('PUT {} or only unknown keys: 400 No data to update, as for a host', async () => {
      const before = (await client.get(`/v1/leases/${leaseId}`)).body.lease;
      await refused(() => client.put(`/v1/leases/${leaseId}`, {}), 400, 'No data to update');
      await refused(() => client.put(`/v1/leases/${leaseId}`, { bogus: 1 }), 400, 'No data to update');
      await refused(() => client.put(`/v1/os-hosts/${hostId}`, {}), 400, 'No data to update');
      expect((await client.get(`/v1/leases/${leaseId}`)).body.lease).toEqual(before);
    });

    it('PUT of a date at hour 24: 400, the lease unchanged', async () => {
      await refused(
        () => client.put(`/v1/leases/${leaseId}`, { end_date: dayAt(41, '24:00') }),
        400,
        `${dayAt(41, '24:00')} is an invalid date. Required format: %Y-%m-%d %H:%M`,
      );
    });
  });

  describe('floating IPs: networks are named by UUID', () => {
    it('floating_network_id "not-a-uuid": 400', async () => {
      await refused(
        () => client.post('/v1/floatingips', { floating_network_id: 'not-a-uuid', floating_ip_address: '172.24.4.9' }),
        400,
        'Malformed parameter floating_network_id (must be a network UUID)',
      );
    });

    it('a network UUID in capitals is the same network: the reservation finds the address', async () => {
      const created = await client.post('/v1/floatingips', { floating_network_id: NET.toUpperCase(), floating_ip_address: '172.24.4.9' });
      expect(created.status, describeBody(created)).toBe(201);
      expect(created.body.floatingip.floating_network_id).toBe(NET);
      const lease = await client.post('/v1/leases', {
        name: 'iv-fip',
        start_date: start,
        end_date: end,
        reservations: [{ resource_type: 'virtual:floatingip', network_id: NET, amount: 1 }],
      });
      expect(lease.status, describeBody(lease)).toBe(201);
      expect(lease.body.lease.reservations[0].network_id).toBe(NET);
    });
  });

  describe('GraphQL escapes what it quotes as REST does', () => {
    it('a lease id with a right-to-left override: NOT_FOUND, the id escaped in both messages', async () => {
      const reply = await graphql('query ($id: ID!) { lease(id: $id) { id } }', { id: 'a\u202eb' });
      const message = "Object with {'lease_id': 'a\\u202eb'} not found";
      expect(reply.errors?.[0]).toMatchObject({ message, extensions: { code: 'NOT_FOUND', error_message: message } });
    });

    it("a value GraphQL's own validation quotes: escaped too", async () => {
      // An ID given as a list: GraphQL's variable coercion quotes the value back.
      // (`first` is no longer the probe: the query budget refuses a malformed one before coercion.)
      const reply = await graphql('query ($id: ID!) { lease(id: $id) { id } }', { id: ['x\u202ey'] });
      const [error] = reply.errors ?? [];
      expect(error?.message, JSON.stringify(reply.errors)).toContain('x\\u202ey');
      expect(JSON.stringify(reply.errors)).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    });
  });

  describe('no instant past 9999-12-31 23:59 is offered, and none is taken', () => {
    const LAST_DAY = '9999-12-31';
    const host = () => pinnedHost('iv-host-1');
    const windowsOf = (body: { windows: { start_date: string; end_date: string }[] }) =>
      body.windows.map((w) => [w.start_date, w.end_date]);
    const AVAILABILITY = `query ($request: AvailabilityInput!) { availability(request: $request) { windows { start_date end_date } searched_until } }`;
    const CREATE = 'mutation ($input: CreateLeaseInput!) { createLease(input: $input) { id } }';
    let lateLeaseId: string;

    beforeAll(async () => {
      const free = await client.post('/v1/os-hosts', { name: 'iv-host-free' });
      expect(free.status, describeBody(free)).toBe(201);
      // iv-host-1 on the last day: booked 00:00-12:00 and 13:00-23:59, free 12:00-13:00
      for (const [name, start_date, end_date] of [
        ['iv-last-morning', `${LAST_DAY} 00:00`, `${LAST_DAY} 12:00`],
        ['iv-last-evening', `${LAST_DAY} 13:00`, `${LAST_DAY} 23:59`],
      ] as const) {
        const created = await client.post('/v1/leases', { name, start_date, end_date, reservations: [host()] });
        expect(created.status, describeBody(created)).toBe(201);
        lateLeaseId = created.body.lease.id;
      }
    });

    it('POST /v1/availability: the windows before the limit, none that would end after it', async () => {
      const response = await client.post('/v1/availability', { reservations: [host()], duration: 60, not_before: `${LAST_DAY} 00:00` });
      expect(response.status, describeBody(response)).toBe(200);
      expect(windowsOf(response.body)).toEqual([[`${LAST_DAY} 12:00`, `${LAST_DAY} 13:00`]]);
    });

    it('GET /v1/availability: the same', async () => {
      const query = new URLSearchParams({
        resource_type: 'physical:host',
        min: '1',
        max: '1',
        hypervisor_properties: host().hypervisor_properties,
        duration: '60',
        not_before: `${LAST_DAY} 00:00`,
      });
      const response = await client.get(`/v1/availability?${query.toString()}`);
      expect(response.status, describeBody(response)).toBe(200);
      expect(windowsOf(response.body)).toEqual([[`${LAST_DAY} 12:00`, `${LAST_DAY} 13:00`]]);
    });

    it('a search starting in the last hour offers what fits before the limit, and nothing that does not', async () => {
      const free = await client.post('/v1/availability', {
        reservations: [pinnedHost('iv-host-free')],
        duration: 30,
        not_before: `${LAST_DAY} 23:00`,
      });
      expect(free.status, describeBody(free)).toBe(200);
      expect(windowsOf(free.body)).toEqual([[`${LAST_DAY} 23:00`, `${LAST_DAY} 23:30`]]);
      const tooLong = await client.post('/v1/availability', {
        reservations: [pinnedHost('iv-host-free')],
        duration: 120,
        not_before: `${LAST_DAY} 23:00`,
      });
      expect(tooLong.status, describeBody(tooLong)).toBe(200);
      expect(tooLong.body).toMatchObject({ windows: [], searched_until: null, reason: { code: 'RANGE_TOO_SHORT' } });
    });

    it('GraphQL availability: the same windows', async () => {
      const reply = await graphql(AVAILABILITY, {
        request: { reservations: [host()], duration: '60', not_before: `${LAST_DAY} 00:00` },
      });
      expect(reply.errors, JSON.stringify(reply.errors)).toBeUndefined();
      expect(windowsOf(reply.data.availability)).toEqual([[`${LAST_DAY} 12:00`, `${LAST_DAY} 13:00`]]);
    });

    it('a refusal for lack of capacity counter-offers only the windows that end by the limit (REST and GraphQL)', async () => {
      const before = ledgerCount(system.dataDir);
      const request = { name: 'iv-last-wanted', start_date: `${LAST_DAY} 00:00`, end_date: `${LAST_DAY} 01:00`, reservations: [host()] };
      const refusedCreate = await client.post('/v1/leases', request);
      expect(refusedCreate.status, describeBody(refusedCreate)).toBe(409);
      expect(refusedCreate.body.alternatives).toEqual([{ start_date: `${LAST_DAY} 12:00`, end_date: `${LAST_DAY} 13:00` }]);
      const reply = await graphql(CREATE, { input: request });
      expect(reply.errors?.[0]?.extensions).toMatchObject({
        code: 'CONFLICT',
        alternatives: [{ start_date: `${LAST_DAY} 12:00`, end_date: `${LAST_DAY} 13:00` }],
      });
      expect(ledgerCount(system.dataDir)).toBe(before);
    });

    it('a lease that ends at the limit cannot grow: its extension ends where it does', async () => {
      const response = await client.get(`/v1/leases/${lateLeaseId}/extension`);
      expect(response.status, describeBody(response)).toBe(200);
      expect(response.body.extension).toMatchObject({ end_date: `${LAST_DAY} 23:59`, max_end_date: `${LAST_DAY} 23:59` });
    });

    const PAST = '9999-12-31T23:00:00-05:00';
    const past = (name: string) => `Malformed parameter ${name} (must not be after 9999-12-31 23:59 UTC)`;

    it.each([
      ['/v1/capacity', { start: `${LAST_DAY}T00:00:00Z`, end: PAST }, past('end')],
      ['/v1/usage', { start: PAST, end: `${LAST_DAY}T23:59:00Z` }, past('start')],
      ['/v1/audit', { start: '2030-01-01T00:00:00Z', end: PAST }, past('end')],
      ['/v1/leases', { as_of: PAST }, past('as_of')],
      ['/v1/os-hosts', { as_of: '9999-12-31T23:59:30Z' }, past('as_of')],
    ])('GET %s with %j: 400', async (path, query, message) => {
      await refused(() => client.get(`${path}?${new URLSearchParams(query).toString()}`), 400, message);
    });

    it('PUT /v1/rate-cards/{name} effective after the limit: 400, no card published', async () => {
      await refused(
        () => client.put('/v1/rate-cards/iv-late', { currency: 'EUR', effective_from: PAST, prices: { host_hours: '1' } }),
        400,
        past('effective_from'),
      );
      expect((await client.get('/v1/rate-cards/iv-late')).status).toBe(404);
    });

    const refusedInGraphql = (reply: GraphqlReply, message: string) =>
      expect(reply.errors?.[0]?.extensions, JSON.stringify(reply.errors)).toMatchObject({ code: 'BAD_REQUEST', error_message: message });

    it('GraphQL date arguments after the limit: BAD_REQUEST with the same message', async () => {
      refusedInGraphql(
        await graphql('query ($end: String!) { capacity(start: "9999-12-31T00:00:00Z", end: $end) { start } }', { end: PAST }),
        past('end'),
      );
      refusedInGraphql(
        await graphql('query ($start: String!) { usage(start: $start, end: "9999-12-31T23:59:00Z") { start } }', { start: PAST }),
        past('start'),
      );
      refusedInGraphql(
        await graphql('query ($after: String) { leases(filter: { starts_after: $after }) { pageInfo { hasNextPage } } }', { after: PAST }),
        past('starts_after'),
      );
    });
  });

  describe("Leasehold's own endpoints refuse fields they do not know (Blazar's keep upstream's leniency)", () => {
    const availability = { reservations: [pinnedHost('iv-host-1')], duration: 60 };
    const flavor = { name: 'iv-flavor', vcpus: 1, ram: 512, disk: 1 };
    const card = { currency: 'EUR', effective_from: '2030-01-01 00:00', prices: { host_hours: '1' } };

    it.each([
      ['POST', '/v1/availability', { ...availability, bogus: 1 }, 'Unknown parameter bogus'],
      ['POST', '/v1/availability', { ...availability, project_id: 'someone-else' }, 'Unknown parameter project_id'],
      [
        'POST',
        '/v1/availability',
        { ...availability, reservations: [{ ...pinnedHost('iv-host-1'), bogus: 1 }] },
        'Unknown parameter reservations[0].bogus (not a field of a physical:host reservation)',
      ],
      [
        'POST',
        '/v1/availability',
        { ...availability, reservations: [pinnedHost('iv-host-1'), { ...pinnedHost('iv-host-1'), amount: 2 }] },
        'Unknown parameter reservations[1].amount (not a field of a physical:host reservation)',
      ],
      ['POST', '/v1/flavors', { flavor, bogus: 1 }, 'Unknown parameter bogus'],
      ['POST', '/v1/flavors', { flavor: { ...flavor, description: 'x' } }, 'Unknown parameter flavor.description'],
      ['POST', '/v1/flavors', { flavor: { ...flavor, 'a b': 1 } }, 'Unknown parameter flavor["a b"]'],
      ['PUT', '/v1/rate-cards/iv-card', { ...card, project_id: 'p' }, 'Unknown parameter project_id'],
      ['PUT', '/v1/rate-cards/iv-card', { ...card, prices: { host_hours: '1', gpu_hours: '2' } }, 'Unknown parameter prices.gpu_hours'],
      [
        'PUT',
        '/v1/rate-cards/iv-card',
        { ...card, capability_prices: [{ capability: 'gpu', value: 'true', prices: {}, bogus: 1 }] },
        'Unknown parameter capability_prices[0].bogus',
      ],
      [
        'PUT',
        '/v1/quotas/iv-project',
        { hosts: 1, project_id: 'p' },
        'Unknown parameter project_id (quotas: hosts, vcpus, memory_mb, floating_ips, networks, host_hours_per_month, vcpu_hours_per_month)',
      ],
      ['PUT', '/v1/fair-share/iv-project', { shares: 2, project_id: 'p' }, 'Unknown parameter project_id'],
    ])('%s %s %j: 400, nothing written', async (method, path, body, message) => {
      await refused(() => raw(method, path, JSON.stringify(body)), 400, message);
    });

    it('a nested map of free keys (a flavor\u2019s extra_specs) is data, not fields', async () => {
      const created = await client.post('/v1/flavors', {
        flavor: { ...flavor, name: 'iv-specs', extra_specs: { 'hw:cpu_policy': 'dedicated' } },
      });
      expect(created.status, describeBody(created)).toBe(201);
    });

    const query = (parameters: Record<string, string>) => `?${new URLSearchParams(parameters).toString()}`;
    const frame = { start: '2030-01-01 00:00', end: '2030-01-02 00:00' };
    const hostQuery = {
      resource_type: 'physical:host',
      min: '1',
      max: '1',
      hypervisor_properties: pinnedHost('iv-host-1').hypervisor_properties,
    };

    it.each([
      ['GET', `/v1/availability${query({ ...hostQuery, duration: '60', bogus: '1' })}`, null, 'bogus'],
      ['POST', '/v1/availability?project_id=someone-else', availability, 'project_id'],
      ['GET', `/v1/capacity${query({ ...frame, bogus: '1' })}`, null, 'bogus'],
      ['GET', `/v1/usage${query({ ...frame, projectid: 'someone-else' })}`, null, 'projectid'],
      ['GET', '/v1/rate-cards?all=1', null, 'all'],
      ['GET', '/v1/rate-cards/iv-card?version=1', null, 'version'],
      ['PUT', '/v1/rate-cards/iv-card?version=1', card, 'version'],
      ['GET', '/v1/quotas/iv-project?detail=1', null, 'detail'],
      ['PUT', '/v1/quotas/iv-project?dry_run=1', { hosts: 1 }, 'dry_run'],
      ['GET', '/v1/fair-share?project_id=iv-project', null, 'project_id'],
      ['GET', '/v1/fair-share/iv-project?as_of=now', null, 'as_of'],
      ['PUT', '/v1/fair-share/iv-project?dry_run=1', { shares: 2 }, 'dry_run'],
      ['DELETE', '/v1/fair-share/iv-project?force=1', null, 'force'],
      ['GET', '/v1/flavors?is_public=none', null, 'is_public'],
      ['POST', '/v1/flavors?bogus=1', { flavor }, 'bogus'],
      ['DELETE', '/v1/flavors/iv-flavor?force=1', null, 'force'],
      ['GET', '/v1/audit?outcome=refused&project=x', null, 'project'],
      ['GET', '/v1/leases/{lease}/history?limit=5', null, 'limit'],
      ['GET', '/v1/os-hosts/{host}/history?bogus=1', null, 'bogus'],
      ['GET', '/v1/leases/{lease}/extension?end_date=x', null, 'end_date'],
      ['GET', '/v1/events?after=0&type=lease.created', null, 'type'],
      ['GET', '/calendar?bogus=1', null, 'bogus'],
    ])('%s %s: 400 naming the parameter, nothing written', async (method, path, body, name) => {
      const url = path.replace('{lease}', leaseId).replace('{host}', hostId);
      await refused(() => raw(method, url, body === null ? undefined : JSON.stringify(body)), 400, `Unknown parameter ${name}`);
    });

    it("Blazar's own routes ignore unknown parameters, as upstream does", async () => {
      expect((await client.get('/v1/leases?bogus=1')).status).toBe(200);
      expect((await client.get(`/v1/os-hosts/${hostId}?bogus=1`)).status).toBe(200);
    });

    it("GraphQL availability: another type's field left null is not given; given a value, it is refused as over REST", async () => {
      const reservation = { ...pinnedHost('iv-host-1'), amount: null, vcpus: null };
      const query = 'query ($request: AvailabilityInput!) { availability(request: $request) { searched_until } }';
      const fine = await graphql(query, { request: { reservations: [reservation], duration: '60' } });
      expect(fine.errors, JSON.stringify(fine.errors)).toBeUndefined();
      const refusedReply = await graphql(query, { request: { reservations: [{ ...reservation, amount: 2 }], duration: '60' } });
      expect(refusedReply.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_REQUEST',
        error_message: 'Unknown parameter reservations[0].amount (not a field of a physical:host reservation)',
      });
    });

    it('GraphQL input types refuse unknown fields by their schema', async () => {
      const reply = await graphql('query ($request: AvailabilityInput!) { availability(request: $request) { searched_until } }', {
        request: { ...availability, duration: '60', bogus: 1 },
      });
      expect(JSON.stringify(reply.errors)).toContain('bogus');
    });
  });
});
