/**
 * `/v1/networks` (Chameleon's network segments) against the running system, static tokens: the shapes Chameleon's
 * Blazar answers (`{"network": {...}}`, `{"networks": [...]}`, `{"resource_id", "reservations"}`, the properties as
 * hosts'), with the differences in docs/compatibility.md; 400/403/404/409 in Blazar's body with nothing written;
 * `as_of`; the history of a segment; the feed; and `leasehold verify` clean afterwards. Bookings are what the
 * network reservation type (a later change) will append: here they are appended to the log directly, as another
 * API process would, and the API and the projector take them from there.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { ledgerCount, ledgerEvents } from '../helpers/api-fixtures.js';
import { leasehold } from '../helpers/cli.js';
import { type JsonResponse } from '../helpers/http.js';
import { upToDate } from '../helpers/ledger-replay.js';
import { type StaticAuth, staticAuth } from '../helpers/static-auth.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  admin: { token: 'tok-admin', user_id: 'u-admin', project_id: 'project-admin', roles: ['admin'] },
  member: { token: 'tok-member', user_id: 'u-member', project_id: 'project-a', roles: ['member', 'reader'] },
} as const;
type Who = keyof typeof IDENTITIES;

/** Chameleon's to_dict order: the row's timestamps, then its columns; extra capabilities after. */
const NETWORK_KEYS = ['created_at', 'updated_at', 'id', 'network_type', 'physical_network', 'segment_id'];
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{6})?$/;
const BLAZAR_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const blazarError = (status: number, message: string) => ({ error_code: status, error_message: message, error_name: status });
const notFound = (id: string) => blazarError(404, `Object with {'network_id': '${id}'} not found`);
const describeBody = (response: JsonResponse): string => `${response.status} ${JSON.stringify(response.body)}`;

let system: RunningSystem;
let tokens: StaticAuth;
let nextTag = 100;

afterEach((context) => {
  if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
});

beforeAll(async () => {
  tokens = staticAuth(IDENTITIES);
  system = await startSystem({ env: { ...tokens.env } });
});

afterAll(async () => {
  await system?.stop();
  tokens?.remove();
});

const call = async (method: string, path: string, options: { body?: unknown; who?: Who; headers?: Record<string, string> } = {}) => {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      'X-Auth-Token': IDENTITIES[options.who ?? 'admin'].token,
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text.length > 0 ? JSON.parse(text) : null } as JsonResponse;
};
const get = (path: string, who: Who = 'admin') => call('GET', path, { who });
/** A read that must include what was appended to the log outside the API (the bookings below). */
const fresh = (path: string) => call('GET', path, { headers: upToDate(system.dataDir) });

/** Sends a write that must be refused: status, Blazar's error body, and no event appended. */
const refused = async (send: () => Promise<JsonResponse>, status: number, message: string | RegExp): Promise<void> => {
  const before = ledgerCount(system.dataDir);
  const response = await send();
  expect(response.status, describeBody(response)).toBe(status);
  expect(response.body).toEqual(
    typeof message === 'string'
      ? blazarError(status, message)
      : { ...blazarError(status, ''), error_message: expect.stringMatching(message) },
  );
  expect(ledgerCount(system.dataDir), 'a refused write must not append to the ledger').toBe(before);
};

const vlan = (extra: Record<string, unknown> = {}) => ({
  network_type: 'vlan',
  physical_network: 'physnet1',
  segment_id: nextTag++,
  ...extra,
});

const register = async (body: Record<string, unknown> = vlan()) => {
  const response = await call('POST', '/v1/networks', { body });
  expect(response.status, describeBody(response)).toBe(201);
  return response.body.network as Record<string, unknown> & { id: string };
};

/** What the network reservation type will append when a lease books a segment: here written straight to the log. */
const bookDirectly = async (
  networkId: string,
  reservationId: string,
  leaseId: string,
  startDate: string,
  endDate: string,
  propertyNames: string[] = [],
) => {
  const store = SqliteEventStore.open({ file: join(system.dataDir, 'events.sqlite') });
  try {
    const revision = ledgerEvents(system.dataDir, `network-${networkId}`).length - 1;
    const data = { networkId, reservationId, leaseId, startDate, endDate, propertyNames };
    const metadata = { correlationId: 'test', causationId: 'test', actor: null, system: 'test' };
    await store.appendToStream(`network-${networkId}`, revision, [
      { id: `booking-${reservationId}`, type: 'NetworkSegment.Booked', data, metadata },
    ]);
  } finally {
    await store.close();
  }
};

const later = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString();

describe('register, list, show (Chameleon shapes)', () => {
  it("POST answers 201 with the segment in Chameleon's shape; list and show give the same document", async () => {
    const response = await call('POST', '/v1/networks', {
      body: { network_type: 'vlan', physical_network: 'physnet1', segment_id: '1234', switch: 'sw-7', gpus: 2 },
    });
    expect(response.status, describeBody(response)).toBe(201);
    expect(response.headers.get('x-leasehold-position')).toMatch(/^\d+$/);
    expect(Object.keys(response.body)).toEqual(['network']);
    const created = response.body.network;
    expect(Object.keys(created)).toEqual([...NETWORK_KEYS, 'switch', 'gpus']);
    expect(created).toEqual({
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: null,
      id: expect.stringMatching(UUID),
      network_type: 'vlan',
      physical_network: 'physnet1',
      segment_id: 1234,
      switch: 'sw-7',
      gpus: '2',
    });
    expect((await get(`/v1/networks/${created.id}`)).body).toEqual({ network: created });
    const listed = await get('/v1/networks');
    expect(Object.keys(listed.body)).toEqual(['networks']);
    expect(listed.body.networks).toContainEqual(created);
  });

  it('takes the tunnel types without a physical network and flat without a segment id (null, as the client sends)', async () => {
    const vxlan = await register({ network_type: 'vxlan', physical_network: null, segment_id: 70_000 });
    expect(vxlan).toMatchObject({ network_type: 'vxlan', physical_network: null, segment_id: 70_000 });
    const flat = await register({ network_type: 'flat', physical_network: 'physnet-flat' });
    expect(flat).toMatchObject({ network_type: 'flat', physical_network: 'physnet-flat', segment_id: null });
  });

  it('lists segments in registration order', async () => {
    const ids = [(await register()).id, (await register()).id, (await register()).id];
    const listed = (await get('/v1/networks')).body.networks.map((network: { id: string }) => network.id);
    expect(listed.filter((id: string) => ids.includes(id))).toEqual(ids);
  });

  it('a segment is registered once (409; Chameleon: a database error); another physical network or type is another segment', async () => {
    const first = await register({ network_type: 'vlan', physical_network: 'physnet9', segment_id: 42 });
    await refused(
      () => call('POST', '/v1/networks', { body: { network_type: 'vlan', physical_network: 'physnet9', segment_id: '42', other: 'x' } }),
      409,
      `Network segment vlan physnet9 42 is already registered with id ${first.id}`,
    );
    await register({ network_type: 'vlan', physical_network: 'physnet8', segment_id: 42 });
    await register({ network_type: 'vxlan', physical_network: null, segment_id: 42 });
  });
});

describe("request validation: a 400 in Blazar's words, nothing written", () => {
  it.each([
    ['empty body', {}, 'Missing parameter network_type'],
    [
      'unknown type',
      { network_type: 'ethernet', physical_network: 'p', segment_id: 1 },
      /^Malformed parameter network_type \(must be one of vlan, vxlan/,
    ],
    [
      'vlan without physical network',
      { network_type: 'vlan', segment_id: 5 },
      'Missing parameter physical_network (required for vlan segments)',
    ],
    ['vlan without tag', { network_type: 'vlan', physical_network: 'p' }, 'Missing parameter segment_id (required for vlan segments)'],
    ['vlan tag 0', { network_type: 'vlan', physical_network: 'p', segment_id: 0 }, /between 1 and 4094 for vlan segments/],
    ['vlan tag 4095', { network_type: 'vlan', physical_network: 'p', segment_id: '4095' }, /between 1 and 4094 for vlan segments/],
    [
      'tag not a number',
      { network_type: 'vlan', physical_network: 'p', segment_id: 'ten' },
      'Malformed parameter segment_id (must be an integer)',
    ],
    [
      'vxlan on a physical network',
      { network_type: 'vxlan', physical_network: 'p', segment_id: 5 },
      'Malformed parameter physical_network (vxlan segments have none)',
    ],
    [
      'flat with a tag',
      { network_type: 'flat', physical_network: 'p', segment_id: 5 },
      'Malformed parameter segment_id (flat segments have none)',
    ],
    [
      'blank physical network',
      { network_type: 'vlan', physical_network: '  ', segment_id: 5 },
      'Malformed parameter physical_network (must not be empty or blank)',
    ],
    ['capability named id', { ...vlan(), id: 'mine' }, /^id cannot be set/],
    ['capability with an object value', { ...vlan(), switch: { a: 1 } }, /extra capability values must be strings, numbers or booleans/],
    ['capability name too long', { ...vlan(), ['k'.repeat(65)]: 'v' }, 'Extra capability key too long'],
    ['not an object', [1, 2], /a JSON object is required/],
  ] as const)('%s', async (_case, body, message) => {
    await refused(() => call('POST', '/v1/networks', { body }), 400, message);
  });
});

describe('update and delete', () => {
  it('PUT sets and unsets extra capabilities (null unsets, as `reservation network unset --extra`) and answers the segment', async () => {
    const network = await register(vlan({ switch: 's1', rack: 'r1' }));
    const response = await call('PUT', `/v1/networks/${network.id}`, { body: { switch: 's2', pod: 7, rack: null } });
    expect(response.status, describeBody(response)).toBe(200);
    const { rack: _removed, ...kept } = network;
    expect(response.body.network).toEqual({ ...kept, updated_at: expect.stringMatching(TIMESTAMP), switch: 's2', pod: '7' });
    expect((await get(`/v1/networks/${network.id}`)).body).toEqual(response.body);
  });

  it("PUT refuses the segment's own fields (Chameleon overwrites them in place), an empty body, and an unknown id", async () => {
    const network = await register();
    await refused(() => call('PUT', `/v1/networks/${network.id}`, { body: { segment_id: 7 } }), 400, /^segment_id cannot be updated/);
    await refused(() => call('PUT', `/v1/networks/${network.id}`, { body: {} }), 400, 'No data to update');
    const missing = '0d9f2b1e-3c4a-4b5d-8e6f-7a8b9c0d1e2f';
    await refused(
      () => call('PUT', `/v1/networks/${missing}`, { body: { a: 'b' } }),
      404,
      `Object with {'network_id': '${missing}'} not found`,
    );
  });

  it('DELETE answers 204; the segment is gone and can be registered again under a new id', async () => {
    const body = vlan();
    const network = await register(body);
    const response = await call('DELETE', `/v1/networks/${network.id}`);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(await get(`/v1/networks/${network.id}`)).toMatchObject({ status: 404, body: notFound(network.id) });
    expect((await register(body)).id).not.toBe(network.id);
    await refused(() => call('DELETE', `/v1/networks/${network.id}`), 404, `Object with {'network_id': '${network.id}'} not found`);
  });

  it('unknown and malformed ids: GET, DELETE, .../allocation and .../history answer 404', async () => {
    for (const id of ['5e0c8a1b-2d3f-4a5b-9c6d-7e8f9a0b1c2d', 'not-a-uuid']) {
      for (const path of [`/v1/networks/${id}`, `/v1/networks/${id}/allocation`, `/v1/networks/${id}/history`]) {
        const response = await get(path);
        expect(response.status, path).toBe(404);
        expect(response.body, path).toEqual(notFound(id));
      }
    }
  });
});

describe('policy: admin only by default (blazar:networks:*, as hosts)', () => {
  it.each([
    ['GET', '/v1/networks', 'blazar:networks:get'],
    ['POST', '/v1/networks', 'blazar:networks:post'],
    ['GET', '/v1/networks/allocations', 'blazar:networks:get_allocations'],
    ['GET', '/v1/networks/properties', 'blazar:networks:get_resource_properties'],
  ] as const)('%s %s is 403 to a member', async (method, path, rule) => {
    await refused(
      () => call(method, path, { who: 'member', body: method === 'POST' ? vlan() : undefined }),
      403,
      `Policy doesn't allow ${rule} to be performed`,
    );
  });

  it('so are one segment, its changes, its allocation, its properties and its history', async () => {
    const network = await register(vlan({ switch: 's1' }));
    const cases = [
      ['GET', `/v1/networks/${network.id}`, 'blazar:networks:get'],
      ['PUT', `/v1/networks/${network.id}`, 'blazar:networks:put'],
      ['DELETE', `/v1/networks/${network.id}`, 'blazar:networks:delete'],
      ['GET', `/v1/networks/${network.id}/allocation`, 'blazar:networks:get_allocations'],
      ['PATCH', '/v1/networks/properties/switch', 'blazar:networks:update_resource_properties'],
      ['GET', `/v1/networks/${network.id}/history`, 'leasehold:networks:history'],
    ] as const;
    for (const [method, path, rule] of cases) {
      const body = method === 'PUT' ? { a: 'b' } : method === 'PATCH' ? { private: true } : undefined;
      await refused(() => call(method, path, { who: 'member', body }), 403, `Policy doesn't allow ${rule} to be performed`);
    }
  });
});

describe('allocations: what reservations hold each segment', () => {
  it("lists every segment with its reservations not yet ended, in Chameleon's shape; one segment's; filters; delete refused while held", async () => {
    const held = await register(vlan({ switch: 'sw-a' }));
    const free = await register();
    const [start, end] = [later(1), later(2)];
    await bookDirectly(held.id, 'a1f0c9e8-0000-4000-8000-000000000001', 'b1f0c9e8-0000-4000-8000-000000000001', start, end, ['switch']);
    await bookDirectly(held.id, 'a1f0c9e8-0000-4000-8000-000000000002', 'b1f0c9e8-0000-4000-8000-000000000002', later(3), later(4));

    const all = await fresh('/v1/networks/allocations');
    expect(all.status, describeBody(all)).toBe(200);
    expect(Object.keys(all.body)).toEqual(['allocations']);
    const entry = all.body.allocations.find((allocation: { resource_id: string }) => allocation.resource_id === held.id);
    expect(entry).toEqual({
      resource_id: held.id,
      reservations: [
        {
          id: 'a1f0c9e8-0000-4000-8000-000000000001',
          lease_id: 'b1f0c9e8-0000-4000-8000-000000000001',
          start_date: expect.stringMatching(BLAZAR_DATE),
          end_date: expect.stringMatching(BLAZAR_DATE),
        },
        {
          id: 'a1f0c9e8-0000-4000-8000-000000000002',
          lease_id: 'b1f0c9e8-0000-4000-8000-000000000002',
          start_date: expect.stringMatching(BLAZAR_DATE),
          end_date: expect.stringMatching(BLAZAR_DATE),
        },
      ],
    });
    expect(entry.reservations[0].start_date).toBe(`${start.slice(0, 23)}000`);
    expect(all.body.allocations).toContainEqual({ resource_id: free.id, reservations: [] });

    const one = await get(`/v1/networks/${held.id}/allocation`);
    expect(one.body).toEqual({ allocation: entry });
    const byLease = await get(`/v1/networks/${held.id}/allocation?lease_id=b1f0c9e8-0000-4000-8000-000000000002`);
    expect(byLease.body.allocation.reservations.map((r: { id: string }) => r.id)).toEqual(['a1f0c9e8-0000-4000-8000-000000000002']);
    const byReservation = await get('/v1/networks/allocations?reservation_id=a1f0c9e8-0000-4000-8000-000000000001');
    expect(byReservation.body.allocations.find((a: { resource_id: string }) => a.resource_id === held.id).reservations).toHaveLength(1);

    await refused(() => call('DELETE', `/v1/networks/${held.id}`), 409, `Can't delete network ${held.id}. The network is reserved.`);
    await refused(
      () => call('PUT', `/v1/networks/${held.id}`, { body: { switch: 'sw-b' } }),
      409,
      `Can't update extra capability switch of network ${held.id}: it is used by a current or future reservation`,
    );
    expect((await call('DELETE', `/v1/networks/${free.id}`)).status).toBe(204);
  });
});

describe('resource properties (as hosts: /v1/os-hosts/properties)', () => {
  it('lists capability names, their values with detail, hides private ones from the list but with all, and PATCHes privacy', async () => {
    await register(vlan({ fabric: 'ib', zone_tag: 'z1' }));
    await register(vlan({ fabric: 'eth' }));
    const names = (await get('/v1/networks/properties')).body.resource_properties;
    expect(names).toEqual(expect.arrayContaining([{ property: 'fabric' }, { property: 'zone_tag' }]));
    const detailed = (await get('/v1/networks/properties?detail=True')).body.resource_properties;
    expect(detailed).toContainEqual({ property: 'fabric', private: false, values: ['eth', 'ib'] });

    const patched = await call('PATCH', '/v1/networks/properties/zone_tag', { body: { private: true } });
    expect(patched.status, describeBody(patched)).toBe(200);
    expect(patched.body).toEqual({
      resource_property: {
        created_at: expect.stringMatching(BLAZAR_DATE),
        updated_at: expect.stringMatching(BLAZAR_DATE),
        id: expect.stringMatching(UUID),
        resource_type: 'network',
        property_name: 'zone_tag',
        private: true,
      },
    });
    expect((await get('/v1/networks/properties')).body.resource_properties).not.toContainEqual({ property: 'zone_tag' });
    expect((await get('/v1/networks/properties?all=1')).body.resource_properties).toContainEqual({ property: 'zone_tag' });
    // a host capability is not a network one: each resource type has its own properties
    expect((await get('/v1/os-hosts/properties')).body.resource_properties).not.toContainEqual({ property: 'zone_tag' });
    await refused(
      () => call('PATCH', '/v1/networks/properties/nowhere', { body: { private: true } }),
      404,
      'Resource property nowhere not found',
    );
    await refused(
      () => call('PATCH', '/v1/networks/properties/fabric', { body: { private: 'yes' } }),
      400,
      'Malformed parameter private: must be true or false',
    );
  });
});

describe('as_of, history, the feed', () => {
  const at = (path: string, instant: string) => get(`${path}${path.includes('?') ? '&' : '?'}as_of=${encodeURIComponent(instant)}`);

  it('answers as the segment stood: 404 before it was registered, its old capabilities before an update', async () => {
    const network = await register(vlan({ switch: 's1' }));
    const [registered] = ledgerEvents(system.dataDir, `network-${network.id}`);
    const before = new Date(Date.parse(registered!.recordedAt) - 1).toISOString();
    expect(await at(`/v1/networks/${network.id}`, before)).toMatchObject({ status: 404, body: notFound(network.id) });
    expect((await at('/v1/networks', before)).body.networks.map((n: { id: string }) => n.id)).not.toContain(network.id);
    expect((await at(`/v1/networks/${network.id}`, registered!.recordedAt)).body).toEqual({ network });

    expect((await call('PUT', `/v1/networks/${network.id}`, { body: { switch: 's2' } })).status).toBe(200);
    expect((await at(`/v1/networks/${network.id}`, registered!.recordedAt)).body.network.switch).toBe('s1');
    expect((await get(`/v1/networks/${network.id}`)).body.network.switch).toBe('s2');
    expect(
      (await at('/v1/networks/allocations', before)).body.allocations.map((a: { resource_id: string }) => a.resource_id),
    ).not.toContain(network.id);
    const future = await at('/v1/networks', later(1));
    expect(future.status).toBe(400);
  });

  it('GET .../history lists the registry entry, the registration, updates and bookings in log order; unknown parameters are a 400', async () => {
    const network = await register(vlan({ switch: 's1' }));
    await call('PUT', `/v1/networks/${network.id}`, { body: { switch: 's3' } });
    await bookDirectly(network.id, 'c1f0c9e8-0000-4000-8000-000000000001', 'd1f0c9e8-0000-4000-8000-000000000001', later(5), later(6));
    const response = await get(`/v1/networks/${network.id}/history`);
    expect(response.status, describeBody(response)).toBe(200);
    expect(response.body.history.map((entry: { type: string }) => entry.type)).toEqual([
      'network_registry.segment_added',
      'network_segment.registered',
      'network_segment.updated',
      'network_segment.booked',
    ]);
    expect(response.body.history[1].data).toMatchObject({
      network_id: network.id,
      network_type: 'vlan',
      segment_id: network.segment_id,
      capabilities: { switch: 's1' },
    });
    const unknown = await get(`/v1/networks/${network.id}/history?limit=1`);
    expect(unknown).toMatchObject({ status: 400, body: blazarError(400, 'Unknown parameter limit') });
  });

  it("shows a segment's events to admins in the feed, its bookings tied to their lease, nothing of it to a member", async () => {
    const network = await register(vlan());
    const types = 'network_segment.registered,network_segment.booked,network_registry.segment_added';
    const page = await get(`/v1/events?types=${types}&after=0&limit=1000`);
    expect(page.status, describeBody(page)).toBe(200);
    const mine = page.body.events.filter((entry: { data: { network_id?: string } }) => entry.data.network_id === network.id);
    expect(mine.map((entry: { type: string }) => entry.type)).toEqual(['network_registry.segment_added', 'network_segment.registered']);
    const member = await get(`/v1/events?types=${types}&after=0&limit=1000`, 'member');
    expect(member.status).toBe(200);
    expect(member.body.events).toEqual([]);
  });
});

describe('the read model after all this', () => {
  it('`leasehold verify` finds the live read model equal to the log replayed (the network tables included)', async () => {
    expect((await fresh('/v1/networks')).status).toBe(200);
    const result = await leasehold(system.dataDir, 'verify');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ok: the live read model matches the log replayed/);
  });
});
