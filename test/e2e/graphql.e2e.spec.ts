/**
 * /graphql through HTTP against the running system (static tokens, default policy): every query
 * answers what the REST routes answer for the same data, pages and filters leases, applies the same
 * policy per role and project, and every mutation runs REST's use case: same checks and messages
 * (`extensions.error_message` is REST's `error_message`), same events with the caller and request id.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildClientSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerCount, pinnedHost } from '../helpers/api-fixtures.js';
import { type GraphqlReply, LEASE_FIELDS, docExamples, firstError, graphqlClient } from '../helpers/graphql.js';
import { blazarDate, floatingIpReservation, instanceReservation } from '../helpers/http.js';
import { type StaticAuth, staticAuth } from '../helpers/static-auth.js';
import { ROOT, type RunningSystem, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  admin: { token: 'tok-admin', user_id: 'u-admin', project_id: 'project-admin', roles: ['admin'] },
  member: { token: 'tok-member', user_id: 'u-member', project_id: 'project-a', roles: ['member'] },
  reader: { token: 'tok-reader', user_id: 'u-reader', project_id: 'project-a', roles: ['reader'] },
  norole: { token: 'tok-norole', user_id: 'u-norole', project_id: 'project-a', roles: [] as string[] },
  ownerB: { token: 'tok-owner-b', user_id: 'u-owner-b', project_id: 'project-b', roles: ['member'] },
} as const;
type Who = keyof typeof IDENTITIES;

const NET = '3c9d2e1f-0a4b-4c5d-9e6f-7a8b9c0d1e2f';

let system: RunningSystem;
let tokens: StaticAuth;
let ownLease: string;
let otherLease: string;

const rest = async (who: Who, method: string, path: string, body?: unknown) => {
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Auth-Token': IDENTITIES[who].token };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${system.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text.length > 0 ? JSON.parse(text) : null, headers: response.headers };
};

const gql = (who: Who | null) => graphqlClient(system.url, who === null ? null : IDENTITIES[who].token);

const ok = (reply: GraphqlReply): any => {
  expect(reply.errors, JSON.stringify(reply.errors)).toBeUndefined();
  return reply.data;
};

let day = 0;
/** A lease window of its own, far ahead, so that no two tests compete for the hosts. */
const window = (): { start_date: string; end_date: string } => {
  day++;
  return { start_date: blazarDate(60 * 24 * (100 + day)), end_date: blazarDate(60 * 24 * (100 + day) + 120) };
};

beforeAll(async () => {
  tokens = staticAuth(IDENTITIES);
  system = await startSystem({ env: { ...tokens.env } });
  expect(
    (await rest('admin', 'POST', '/v1/os-hosts', { name: 'gql-gpu', vcpus: 8, memory_mb: 16384, local_gb: 100, gpu: 'true' })).status,
  ).toBe(201);
  expect((await rest('admin', 'POST', '/v1/os-hosts', { name: 'gql-plain', vcpus: 8, memory_mb: 16384, local_gb: 100 })).status).toBe(201);
  expect((await rest('admin', 'POST', '/v1/floatingips', { floating_network_id: NET, floating_ip_address: '10.62.0.1' })).status).toBe(201);
  const own = await rest('member', 'POST', '/v1/leases', {
    name: 'gql-own',
    ...window(),
    reservations: [pinnedHost('gql-gpu'), instanceReservation(2, { vcpus: 1, memory_mb: 512, disk_gb: 5 }), floatingIpReservation(NET, 1)],
  });
  expect(own.status, JSON.stringify(own.body)).toBe(201);
  ownLease = own.body.lease.id;
  const other = await rest('ownerB', 'POST', '/v1/leases', { name: 'gql-other', ...window(), reservations: [pinnedHost('gql-plain')] });
  expect(other.status, JSON.stringify(other.body)).toBe(201);
  otherLease = other.body.lease.id;
});

afterAll(async () => {
  await system?.stop();
  tokens?.remove();
});

describe('queries answer what REST answers', () => {
  it('lease(id): every field of GET /v1/leases/{id}, reservations of every type and events included', async () => {
    const data = ok(await gql('member')(`query($id: ID!) { lease(id: $id) { ${LEASE_FIELDS} } }`, { id: ownLease }));
    const expected = await rest('member', 'GET', `/v1/leases/${ownLease}`);
    expect(data.lease).toEqual(expected.body.lease);
    expect(data.lease.reservations.map((r: any) => r.end_action).sort()).toEqual([
      'delete_servers_on_hosts',
      'delete_servers_using_flavor',
      'release_addresses',
    ]);
  });

  it("each reservation's allocations are the hosts and addresses REST's allocation views give it, dates as REST writes them (admins)", async () => {
    const data = ok(
      await gql('admin')(
        `query($id: ID!) { lease(id: $id) { reservations { id resource_type allocations { resource_kind resource_id reservation_id lease_id start_date end_date slots { count vcpus memory_mb disk_gb } } } } }`,
        {
          id: ownLease,
        },
      ),
    );
    const hosts = (await rest('admin', 'GET', `/v1/os-hosts/allocations?lease_id=${ownLease}`)).body.allocations;
    const ips = (await rest('admin', 'GET', `/v1/floatingips/allocations?lease_id=${ownLease}`)).body.allocations;
    const pairs = (allocations: any[]) =>
      allocations.flatMap((a: any) => a.reservations.map((r: any) => `${a.resource_id}/${r.id} ${r.start_date} ${r.end_date}`)).sort();
    const fromGraphql = (kind: string) =>
      data.lease.reservations
        .flatMap((r: any) =>
          r.allocations
            .filter((a: any) => a.resource_kind === kind)
            .map((a: any) => `${a.resource_id}/${a.reservation_id} ${a.start_date} ${a.end_date}`),
        )
        .sort();
    expect(fromGraphql('host')).toEqual(pairs(hosts));
    expect(fromGraphql('floatingip')).toEqual(pairs(ips));
    const slots = data.lease.reservations.find((r: any) => r.resource_type === 'virtual:instance').allocations;
    expect(slots.reduce((sum: number, a: any) => sum + a.slots.count, 0)).toBe(2);
    expect(slots.every((a: any) => a.slots.vcpus === 1 && a.slots.memory_mb === 512 && a.slots.disk_gb === 5)).toBe(true);
  });

  it("a lease's history is GET /v1/leases/{id}/history", async () => {
    const data = ok(
      await gql('member')(
        `query($id: ID!) { lease(id: $id) { history { position recorded_at type actor { user_id project_id system } request_id correlation_id causation_id summary data } } }`,
        {
          id: ownLease,
        },
      ),
    );
    expect(data.lease.history).toEqual((await rest('member', 'GET', `/v1/leases/${ownLease}/history`)).body.history);
    expect(data.lease.history.length).toBeGreaterThan(1);
  });

  it('hosts (filtered by capability), host(id) with its allocations, floatingIps: as GET /v1/os-hosts, /v1/os-hosts/{id}/allocation, /v1/floatingips', async () => {
    const data = ok(
      await gql('admin')(`{
        all: hosts { id hypervisor_hostname vcpus reservable capabilities { key value } }
        gpu: hosts(filter: { capabilities: [{ key: "gpu", value: "true" }] }) { id hypervisor_hostname }
        floatingIps { created_at updated_at id floating_network_id subnet_id floating_ip_address reservable }
      }`),
    );
    const hosts = (await rest('admin', 'GET', '/v1/os-hosts')).body.hosts;
    expect(data.all.map((h: any) => h.id)).toEqual(hosts.map((h: any) => h.id));
    expect(data.all.find((h: any) => h.hypervisor_hostname === 'gql-gpu').capabilities).toEqual([{ key: 'gpu', value: 'true' }]);
    expect(data.gpu.map((h: any) => h.hypervisor_hostname)).toEqual(['gql-gpu']);
    expect(data.floatingIps).toEqual((await rest('admin', 'GET', '/v1/floatingips')).body.floatingips);
    const gpu = hosts.find((h: any) => h.hypervisor_hostname === 'gql-gpu');
    const one = ok(
      await gql('admin')(`query($id: ID!) { host(id: $id) { id allocations { reservation_id lease_id start_date end_date } } }`, {
        id: gpu.id,
      }),
    );
    const allocation = (await rest('admin', 'GET', `/v1/os-hosts/${gpu.id}/allocation`)).body.allocation;
    expect(one.host.allocations.map((a: any) => [a.reservation_id, a.lease_id, a.start_date, a.end_date]).sort()).toEqual(
      allocation.reservations.map((r: any) => [r.id, r.lease_id, r.start_date, r.end_date]).sort(),
    );
  });

  it('availability(request) is POST /v1/availability; usage(...) is GET /v1/usage', async () => {
    const reservation = { resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' };
    const search = { reservations: [reservation], duration: '120', limit: 3 };
    const data = ok(
      await gql('member')(
        `query($request: AvailabilityInput!) { availability(request: $request) { windows { start_date end_date reservations { resource_type requested matching free } } searched_until reason } }`,
        { request: search },
      ),
    );
    expect(data.availability).toEqual((await rest('member', 'POST', '/v1/availability', search)).body);
    // no window: the same reason as REST's
    const never = { ...search, reservations: [{ ...reservation, min: 500, max: 500 }] };
    const none = ok(
      await gql('member')(`query($request: AvailabilityInput!) { availability(request: $request) { windows { start_date } reason } }`, {
        request: never,
      }),
    );
    expect(none.availability.reason).toMatchObject({ code: 'NEVER_FITS' });
    expect(none.availability.reason).toEqual((await rest('member', 'POST', '/v1/availability', never)).body.reason);
    const usage = ok(
      await gql('member')(
        `{ usage(start: "2020-01-01 00:00", end: "2040-01-01 00:00") { start end project_id group_by as_of_position as_of until rate_card lines totals } }`,
      ),
    );
    const { as_of_position: position, until } = usage.usage;
    const pinned = `as_of_position=${position}&until=${encodeURIComponent(until)}`;
    const expected = (await rest('member', 'GET', `/v1/usage?start=2020-01-01%2000:00&end=2040-01-01%2000:00&${pinned}`)).body.usage;
    expect(usage.usage).toEqual(expected);
    const again = ok(
      await gql('member')(
        `query($position: String, $until: String) { usage(start: "2020-01-01 00:00", end: "2040-01-01 00:00", as_of_position: $position, until: $until) { as_of_position until lines totals } }`,
        { position: String(position), until },
      ),
    );
    expect(again.usage).toEqual({ as_of_position: position, until, lines: expected.lines, totals: expected.totals });
    expect(usage.usage.lines).toEqual(expected.lines);
  });

  it('capacity(...) is GET /v1/capacity for admins; members are refused before any argument is read', async () => {
    const query = `{ capacity(start: "2030-01-01 00:00", end: "2030-01-02 00:00", step: "PT6H", failure_domain: "rack") { start end step_minutes failure_domain pools leases } }`;
    const data = ok(await gql('admin')(query));
    const expected = (
      await rest('admin', 'GET', '/v1/capacity?start=2030-01-01%2000:00&end=2030-01-02%2000:00&step=PT6H&failure_domain=rack')
    ).body.capacity;
    expect(data.capacity).toEqual(expected);
    expect(data.capacity.pools.length).toBeGreaterThan(0);
    const refused = await gql('member')(`{ capacity(start: "not a date", end: "2030-01-02 00:00") { start } }`);
    expect(firstError(refused)).toEqual({
      code: 'FORBIDDEN',
      error_message: "Policy doesn't allow leasehold:capacity:get to be performed",
    });
  });
});

describe('leases: a page at a time, filtered', () => {
  const PAGE = `query($first: Int, $after: String, $filter: LeaseFilter) {
    leases(first: $first, after: $after, filter: $filter) { edges { cursor node { id name project_id status } } pageInfo { hasNextPage endCursor } }
  }`;

  const allPages = async (who: Who, filter: Record<string, unknown> = {}, first = 2): Promise<any[]> => {
    const nodes: any[] = [];
    let after: string | null = null;
    for (;;) {
      const data = ok(await gql(who)(PAGE, { first, after, filter }));
      nodes.push(...data.leases.edges.map((edge: any) => edge.node));
      if (!data.leases.pageInfo.hasNextPage) return nodes;
      after = data.leases.pageInfo.endCursor;
    }
  };

  it('pages through exactly the leases GET /v1/leases lists, in its order, for admins and for members', async () => {
    for (let i = 0; i < 3; i++)
      expect((await rest('member', 'POST', '/v1/leases', { name: `gql-page-${i}`, ...window(), reservations: [] })).status).toBe(201);
    for (const who of ['admin', 'member', 'reader'] as const) {
      const listed = (await rest(who, 'GET', '/v1/leases')).body.leases.map((lease: any) => lease.id);
      expect(
        (await allPages(who)).map((lease) => lease.id),
        who,
      ).toEqual(listed);
    }
    expect((await allPages('member')).every((lease) => lease.project_id === 'project-a')).toBe(true);
  });

  it('filters by project, name, status and dates; a member naming another project gets none of its leases', async () => {
    expect((await allPages('admin', { project_id: 'project-b' })).map((lease) => lease.id)).toEqual([otherLease]);
    expect(await allPages('member', { project_id: 'project-b' })).toEqual([]);
    expect((await allPages('member', { name: 'gql-own' })).map((lease) => lease.id)).toEqual([ownLease]);
    expect(await allPages('admin', { status: 'ACTIVE' })).toEqual([]);
    expect((await allPages('admin', { status: 'PENDING' })).length).toBe((await rest('admin', 'GET', '/v1/leases')).body.leases.length);
    const own = (await rest('member', 'GET', `/v1/leases/${ownLease}`)).body.lease;
    const date = (t: string) => `${t.slice(0, 16)}Z`;
    const starting = await allPages('admin', { starts_after: date(own.start_date), ends_before: date(own.end_date) });
    expect(starting.map((lease) => lease.id)).toEqual([ownLease]);
  });

  it('refuses a malformed filter, page size or cursor as REST refuses a malformed parameter', async () => {
    const tooLarge = await gql('admin')(PAGE, { first: 501 });
    expect(tooLarge.status).toBe(400);
    expect(firstError(tooLarge)).toEqual({ code: 'BAD_USER_INPUT', error_message: 'Malformed parameter first (an integer from 1 to 500)' });
    expect(firstError(await gql('admin')(PAGE, { after: 'not-a-cursor' }))?.code).toBe('BAD_REQUEST');
    expect(firstError(await gql('admin')(PAGE, { filter: { starts_after: 'tomorrow' } }))?.error_message).toBe(
      'Malformed parameter starts_after (must be %Y-%m-%d %H:%M in UTC, or ISO 8601 with a zone)',
    );
    expect(firstError(await gql('admin')(PAGE, { filter: { status: 'NOPE' } }))?.code).toBe('BAD_REQUEST');
  });
});

describe('the policy, mirrored from REST (policy-matrix.e2e.spec.ts)', () => {
  const LEASE = `query($id: ID!) { lease(id: $id) { id } }`;
  const denied = (action: string) => ({ code: 'FORBIDDEN', error_message: `Policy doesn't allow ${action} to be performed` });

  it.each([
    ['admin', 'own', true],
    ['admin', 'other', true],
    ['member', 'own', true],
    ['member', 'other', false],
    ['reader', 'own', true],
    ['reader', 'other', false],
    ['norole', 'own', false],
    ['norole', 'other', false],
  ] as const)('lease(id) as %s, %s project: allowed=%s, as GET /v1/leases/{id}', async (who, whose, allowed) => {
    const id = whose === 'own' ? ownLease : otherLease;
    const reply = await gql(who)(LEASE, { id });
    const status = (await rest(who, 'GET', `/v1/leases/${id}`)).status;
    expect(status).toBe(allowed ? 200 : 403);
    if (allowed) expect(reply.data.lease.id).toBe(id);
    else expect(firstError(reply)).toEqual(denied('blazar:leases:get'));
  });

  it.each(['member', 'reader', 'norole'] as const)(
    'hosts, host(id) and allocations are for admins: %s is refused as by REST',
    async (who) => {
      expect(firstError(await gql(who)('{ hosts { id } }'))).toEqual(denied('blazar:oshosts:get'));
      expect(firstError(await gql(who)('{ host(id: "1") { id } }'))).toEqual(denied('blazar:oshosts:get'));
      expect((await rest(who, 'GET', '/v1/os-hosts')).status).toBe(403);
      if (who === 'norole') return;
      // the lease is theirs: it is answered, its allocations (an admin view in REST) are null, each with the refusal
      const reply = await gql(who)(`query($id: ID!) { lease(id: $id) { id reservations { resource_type allocations { resource_id } } } }`, {
        id: ownLease,
      });
      expect(reply.data.lease.id).toBe(ownLease);
      expect(reply.data.lease.reservations.map((r: any) => r.allocations)).toEqual([null, null, null]);
      const messages = new Set(reply.errors?.map((e) => e.extensions.error_message));
      expect(messages).toEqual(
        new Set([
          "Policy doesn't allow blazar:oshosts:get_allocations to be performed",
          "Policy doesn't allow blazar:floatingips:get_allocations to be performed",
        ]),
      );
    },
  );

  it('no token, or one nobody issued: 401 before anything runs, as keystonemiddleware answers REST', async () => {
    const unauthorized = { error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } };
    for (const token of [null, 'not-a-token']) {
      const before = ledgerCount(system.dataDir);
      const response = await fetch(`${system.url}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token === null ? {} : { 'X-Auth-Token': token }) },
        body: JSON.stringify({ query: 'mutation { deleteLease(id: "00000000-0000-4000-8000-000000000000") }' }),
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(unauthorized);
      expect(ledgerCount(system.dataDir)).toBe(before);
    }
    // a query in a GET (no token: the middleware lets GETs outside /v1 through) is refused by GraphQL itself
    const get = await fetch(`${system.url}/graphql?query=${encodeURIComponent('{ leases { edges { cursor } } }')}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    const answer = (await get.json()) as { errors: { extensions: unknown }[] };
    expect(answer.errors[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

const CREATE = `mutation($input: CreateLeaseInput!) { createLease(input: $input) { id name project_id user_id status reservations { id resource_type } } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateLeaseInput!) { updateLease(id: $id, input: $input) { id name end_date } }`;
const DELETE = `mutation($id: ID!) { deleteLease(id: $id) }`;

describe('mutations run the REST use cases', () => {
  it('createLease, updateLease, deleteLease: the lease REST shows, read back at once (read-your-writes), gone after', async () => {
    const graphql = gql('member');
    const created = await graphql(CREATE, {
      input: { name: 'gql-made', ...window(), reservations: [{ resource_type: 'physical:host', min: 1, max: 1 }] },
    });
    const lease = ok(created).createLease;
    expect(lease).toMatchObject({ name: 'gql-made', project_id: 'project-a', user_id: 'u-member', status: 'PENDING' });
    expect(Number(created.headers.get('x-leasehold-position'))).toBeGreaterThan(0);
    // the next read, at once, in another request: the projector's rows are waited for as REST waits
    const listed = ok(
      await graphql(`
        {
          leases(filter: { name: "gql-made" }) {
            edges {
              node {
                id
                reservations {
                  id
                }
              }
            }
          }
        }
      `),
    );
    expect(listed.leases.edges.map((e: any) => e.node.id)).toEqual([lease.id]);
    expect((await rest('member', 'GET', `/v1/leases/${lease.id}`)).body.lease.reservations.map((r: any) => r.id)).toEqual(
      lease.reservations.map((r: any) => r.id),
    );
    const renamed = ok(await graphql(UPDATE, { id: lease.id, input: { name: 'gql-renamed' } }));
    expect(renamed.updateLease.name).toBe('gql-renamed');
    expect((await rest('member', 'GET', `/v1/leases/${lease.id}`)).body.lease.name).toBe('gql-renamed');
    expect(ok(await graphql(DELETE, { id: lease.id })).deleteLease).toBe(lease.id);
    expect((await rest('member', 'GET', `/v1/leases/${lease.id}`)).status).toBe(404);
  });

  it("every event a mutation writes names its caller and request, as REST's do (read from the lease's history)", async () => {
    const created = await gql('member')(CREATE, {
      input: { name: 'gql-audit', ...window(), reservations: [{ resource_type: 'physical:host', min: 1, max: 1 }] },
    });
    const leaseId = ok(created).createLease.id;
    const requestId = created.headers.get('x-openstack-request-id');
    const updated = await gql('member')(UPDATE, { id: leaseId, input: { name: 'gql-audit-2' } });
    ok(updated);
    const history = ok(
      await gql('member')(`query($id: ID!) { lease(id: $id) { history { type actor { user_id project_id system } request_id } } }`, {
        id: leaseId,
      }),
    ).lease.history;
    expect(history.length).toBeGreaterThanOrEqual(3);
    for (const entry of history) expect(entry.actor).toEqual({ user_id: 'u-member', project_id: 'project-a', system: null });
    expect(history.filter((entry: any) => entry.request_id === requestId).map((entry: any) => entry.type)).toEqual([
      'lease.created',
      'host.booked',
    ]);
    expect(history.at(-1).request_id).toBe(updated.headers.get('x-openstack-request-id'));
  });

  it.each([
    ['admin', 'own', true],
    ['member', 'own', true],
    ['member', 'other', false],
    ['reader', 'own', false],
    ['norole', 'own', false],
  ] as const)(
    'updateLease as %s on %s project: allowed=%s, as PUT /v1/leases/{id}; a refusal writes nothing',
    async (who, whose, allowed) => {
      const id = whose === 'own' ? ownLease : otherLease;
      const before = ledgerCount(system.dataDir);
      const reply = await gql(who)(UPDATE, { id, input: { name: whose === 'own' ? 'gql-own' : 'gql-other' } });
      if (allowed) expect(ok(reply).updateLease.id).toBe(id);
      else {
        expect(firstError(reply)).toEqual({ code: 'FORBIDDEN', error_message: "Policy doesn't allow blazar:leases:put to be performed" });
        expect(ledgerCount(system.dataDir)).toBe(before);
        expect((await rest(who, 'PUT', `/v1/leases/${id}`, { name: 'x' })).status).toBe(403);
        // in the audit log of refused writes, as REST's refusals are
        const audit = (await rest('admin', 'GET', `/v1/audit?outcome=refused&project_id=${IDENTITIES[who].project_id}`)).body.audit;
        const entry = audit.find(
          (candidate: { request_id: string }) => candidate.request_id === reply.headers.get('x-openstack-request-id'),
        );
        expect(entry).toMatchObject({
          actor: { user_id: IDENTITIES[who].user_id },
          data: { operation: 'graphql:updateLease', method: 'POST', path: '/graphql', status: 403 },
        });
      }
    },
  );

  it('createHost, updateHost, deleteHost: admins only, with the host REST shows', async () => {
    const made = ok(
      await gql('admin')(
        `mutation { createHost(input: { name: "gql-made-host", vcpus: 4, capabilities: [{ key: "rack", value: "r1" }] }) { id hypervisor_hostname vcpus capabilities { key value } } }`,
      ),
    ).createHost;
    const shown = (await rest('admin', 'GET', `/v1/os-hosts/${made.id}`)).body.host;
    expect(made).toEqual({ id: shown.id, hypervisor_hostname: 'gql-made-host', vcpus: 4, capabilities: [{ key: 'rack', value: 'r1' }] });
    expect(shown.rack).toBe('r1');
    const updated = ok(
      await gql('admin')(
        `mutation($id: ID!) { updateHost(id: $id, input: { reservable: false, capabilities: [{ key: "rack", value: "r2" }] }) { reservable capabilities { key value } } }`,
        { id: made.id },
      ),
    );
    expect(updated.updateHost).toEqual({ reservable: false, capabilities: [{ key: 'rack', value: 'r2' }] });
    for (const who of ['member', 'reader'] as const) {
      expect(firstError(await gql(who)(`mutation { createHost(input: { name: "nope" }) { id } }`))).toEqual({
        code: 'FORBIDDEN',
        error_message: "Policy doesn't allow blazar:oshosts:post to be performed",
      });
      expect(firstError(await gql(who)(`mutation($id: ID!) { deleteHost(id: $id) }`, { id: made.id }))?.code).toBe('FORBIDDEN');
    }
    expect(ok(await gql('admin')(`mutation($id: ID!) { deleteHost(id: $id) }`, { id: made.id })).deleteHost).toBe(made.id);
    expect((await rest('admin', 'GET', `/v1/os-hosts/${made.id}`)).status).toBe(404);
  });
});

describe('the same bad input, the same error_message through REST and GraphQL', () => {
  const CREATE_HOST = `mutation($input: CreateHostInput!) { createHost(input: $input) { id } }`;
  const UPDATE_HOST = `mutation($id: ID!, $input: UpdateHostInput!) { updateHost(id: $id, input: $input) { id } }`;
  const far = window();
  const cases: readonly (readonly [string, () => Promise<{ status: number; body: any }>, () => Promise<GraphqlReply>])[] = [
    [
      'end before start',
      () => rest('member', 'POST', '/v1/leases', { name: 'p', start_date: far.end_date, end_date: far.start_date }),
      () => gql('member')(CREATE, { input: { name: 'p', start_date: far.end_date, end_date: far.start_date } }),
    ],
    [
      'a date in another format',
      () => rest('member', 'POST', '/v1/leases', { name: 'p', start_date: '2030/01/01', end_date: far.end_date }),
      () => gql('member')(CREATE, { input: { name: 'p', start_date: '2030/01/01', end_date: far.end_date } }),
    ],
    [
      'a name too long',
      () => rest('member', 'POST', '/v1/leases', { name: 'x'.repeat(300), ...far }),
      () => gql('member')(CREATE, { input: { name: 'x'.repeat(300), ...far } }),
    ],
    [
      'an unknown resource type',
      () => rest('member', 'POST', '/v1/leases', { name: 'p', ...far, reservations: [{ resource_type: 'physical:disk' }] }),
      () => gql('member')(CREATE, { input: { name: 'p', ...far, reservations: [{ resource_type: 'physical:disk' }] } }),
    ],
    [
      'more hosts than there are',
      () =>
        rest('member', 'POST', '/v1/leases', {
          name: 'p',
          ...far,
          reservations: [{ resource_type: 'physical:host', min: 50, max: 50, hypervisor_properties: '', resource_properties: '' }],
        }),
      () => gql('member')(CREATE, { input: { name: 'p', ...far, reservations: [{ resource_type: 'physical:host', min: 50, max: 50 }] } }),
    ],
    [
      'an update that changes nothing',
      () => rest('member', 'PUT', `/v1/leases/${ownLease}`, {}),
      () => gql('member')(UPDATE, { id: ownLease, input: {} }),
    ],
    [
      'a lease that is not there',
      () => rest('member', 'PUT', '/v1/leases/00000000-0000-4000-8000-000000000000', { name: 'x' }),
      () => gql('member')(UPDATE, { id: '00000000-0000-4000-8000-000000000000', input: { name: 'x' } }),
    ],
    [
      'a host field given as a capability',
      () => rest('admin', 'POST', '/v1/os-hosts', { name: 'p-host', created_at: 'x' }),
      () => gql('admin')(CREATE_HOST, { input: { name: 'p-host', capabilities: [{ key: 'created_at', value: 'x' }] } }),
    ],
    [
      'a host capacity out of bounds',
      () => rest('admin', 'POST', '/v1/os-hosts', { name: 'p-host', vcpus: -1 }),
      () => gql('admin')(CREATE_HOST, { input: { name: 'p-host', vcpus: -1 } }),
    ],
    [
      'a host update that changes nothing',
      () => rest('admin', 'PUT', '/v1/os-hosts/1', {}),
      () => gql('admin')(UPDATE_HOST, { id: '1', input: {} }),
    ],
    [
      'a host id that cannot be one',
      () => rest('admin', 'DELETE', '/v1/os-hosts/abc'),
      () => gql('admin')(`mutation { deleteHost(id: "abc") }`),
    ],
  ];

  it.each(cases)('%s', async (_what, viaRest, viaGraphql) => {
    const before = ledgerCount(system.dataDir);
    const expected = await viaRest();
    expect(expected.status).toBeGreaterThanOrEqual(400);
    const codes: Record<number, string> = { 400: 'BAD_REQUEST', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 409: 'CONFLICT' };
    expect(firstError(await viaGraphql())).toEqual({ code: codes[expected.status], error_message: expected.body.error_message });
    expect(ledgerCount(system.dataDir)).toBe(before);
  });
});

describe('the schema', () => {
  it('is docs/schema.graphql: a change is reviewed there (LEASEHOLD_UPDATE_GRAPHQL_SCHEMA=1 rewrites the file)', async () => {
    const sdl = `${printSchema(buildClientSchema(ok(await gql('reader')(getIntrospectionQuery()))))}\n`;
    const file = join(ROOT, 'docs', 'schema.graphql');
    if (process.env.LEASEHOLD_UPDATE_GRAPHQL_SCHEMA === '1') writeFileSync(file, sdl);
    expect(sdl).toBe(readFileSync(file, 'utf8'));
  });
});

describe('docs/graphql.md', () => {
  it('every query and mutation example runs without an error', async () => {
    const examples = [...docExamples('query'), ...docExamples('mutation')];
    expect(examples.length).toBeGreaterThanOrEqual(6);
    for (const example of examples) {
      const reply = await gql('admin')(example, example.includes('$id') ? { id: ownLease } : {});
      expect(reply.errors, example).toBeUndefined();
      expect(
        Object.values(reply.data).every((value) => value !== null),
        example,
      ).toBe(true);
    }
  });
});
