/**
 * What one GraphQL operation may make the API do, through HTTP against the built system (static tokens):
 * page sizes are checked before anything runs, literal or variable; the estimate counts what the fields
 * read (history included) and is an upper bound of the rows they do read; an operation whose reads pass
 * the rows or the time budget, or whose client leaves, stops reading; and one project runs at most
 * LEASEHOLD_GRAPHQL_TENANT_EXPENSIVE expensive operations at once, whatever the others do.
 *
 * One data folder: a projector and a reactor, an API that seeds it, and APIs of their own settings
 * beside them. Every API logs the SQL statements it sends to the read model
 * (LEASEHOLD_READ_MODEL_QUERY_LOG=1, with each statement's row count): what the server read, seen from
 * outside the code that counts it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedHost } from '../helpers/api-fixtures.js';
import { type GraphqlReply, graphqlClient } from '../helpers/graphql.js';
import { blazarDate, floatingIpReservation, instanceReservation } from '../helpers/http.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  admin: { token: 'tok-admin', user_id: 'u-admin', project_id: 'project-admin', roles: ['admin'] },
  attacker: { token: 'tok-attacker', user_id: 'u-attacker', project_id: 'project-a', roles: ['member'] },
  victim: { token: 'tok-victim', user_id: 'u-victim', project_id: 'project-b', roles: ['member'] },
} as const;
type Who = keyof typeof IDENTITIES;

/** The attacker's leases, all on two hosts: each host's stream holds a booking of every one of them. */
const ATTACKER_LEASES = 300;
/** The victim's leases, spread over hosts and addresses of their own, as a project's usually are. */
const VICTIM_LEASES = 24;
const NET = '8d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a';
const ZONE_B = JSON.stringify(['==', '$zone', 'b']);

let dataDir: string;
let tokensFile: string;
let seeder: RunningSystem;
let workers: RunningSystem;
const victimHosts: string[] = [];
const victimLeases: string[] = [];

const rest = async (system: RunningSystem, who: Who, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Auth-Token': IDENTITIES[who].token },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text.length > 0 ? JSON.parse(text) : null, headers: response.headers };
};

const gql = (system: RunningSystem, who: Who) => graphqlClient(system.url, IDENTITIES[who].token);

/** A POST /graphql that may be cut off (`signal`): what a client library sends. */
const post = async (system: RunningSystem, who: Who, query: string, signal?: AbortSignal): Promise<GraphqlReply> => {
  const response = await fetch(`${system.url}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Auth-Token': IDENTITIES[who].token },
    body: JSON.stringify({ query }),
    signal,
  });
  const body = JSON.parse(await response.text());
  return { status: response.status, headers: response.headers, data: body.data, errors: body.errors, extensions: body.extensions };
};

const aliases = (count: number, field: string): string => `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ')} }`;

const PAGE_OF_IDS = (first: number) => `leases(first: ${first}) { edges { node { id } } }`;
const PAGE_WITH_HISTORY = 'leases(first: 500) { edges { node { id history { position type } } } }';

/** The lease pages the API read from the read model (one statement each) and their rows, from its query log. */
const leaseReads = (log: string): number[] =>
  log
    .split('\n')
    .filter((line) => line.includes('[query]') && line.includes('from `lh_leases`') && line.includes(' limit '))
    .map((line) => Number(/(\d+) results?\]/.exec(line)?.[1] ?? 0));

/** The log of `system` while `run` ran, closed by a request whose statement is known to be logged after run's. */
const logDuring = async (system: RunningSystem, run: () => Promise<unknown>): Promise<string> => {
  const from = system.output().length;
  await run();
  expect((await rest(system, 'admin', 'GET', '/v1/flavors')).status).toBe(200);
  return eventually(
    async () => {
      const log = system.output().slice(from);
      return log.includes('lh_flavors') ? log.slice(0, log.lastIndexOf('lh_flavors')) : undefined;
    },
    10_000,
    'the closing statement in the query log',
  );
};

/** An API of its own settings on the shared data folder. */
const apiWith = (env: Record<string, string>): Promise<RunningSystem> =>
  startSystem({
    dataDir,
    apps: ['api'],
    env: { LEASEHOLD_AUTH: 'static', LEASEHOLD_TOKENS_FILE: tokensFile, LEASEHOLD_READ_MODEL_QUERY_LOG: '1', ...env },
  });

const seedAttacker = async (): Promise<void> => {
  for (const name of ['attacked-1', 'attacked-2'])
    expect((await rest(seeder, 'admin', 'POST', '/v1/os-hosts', { name, vcpus: 64, memory_mb: 262144, local_gb: 1000 })).status).toBe(201);
  const lease = async (i: number): Promise<void> => {
    const start = 60 * 24 * 500 + 60 * i;
    const reservations = [pinnedHost('attacked-1'), instanceReservation(2, { vcpus: 1, memory_mb: 512, disk_gb: 5 })];
    const created = await rest(seeder, 'attacker', 'POST', '/v1/leases', {
      name: `attacker-${i}`,
      start_date: blazarDate(start),
      end_date: blazarDate(start + 50),
      reservations,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  };
  for (let i = 0; i < ATTACKER_LEASES; i += 10) await Promise.all(Array.from({ length: 10 }, (_, k) => lease(i + k)));
};

const seedVictim = async (): Promise<void> => {
  for (let i = 0; i < 6; i++) {
    const host = await rest(seeder, 'admin', 'POST', '/v1/os-hosts', {
      name: `victim-${i}`,
      vcpus: 16,
      memory_mb: 65536,
      local_gb: 500,
      zone: 'b',
    });
    expect(host.status).toBe(201);
    victimHosts.push(host.body.host.id);
  }
  for (let i = 0; i < 4; i++)
    expect(
      (await rest(seeder, 'admin', 'POST', '/v1/floatingips', { floating_network_id: NET, floating_ip_address: `10.71.0.${i + 1}` }))
        .status,
    ).toBe(201);
  for (let i = 0; i < VICTIM_LEASES; i++) {
    const start = 60 * 24 * 300 + 180 * i;
    const reservations = [
      pinnedHost(`victim-${i % 6}`),
      ...(i % 2 === 0 ? [instanceReservation(1, { vcpus: 2, memory_mb: 1024, disk_gb: 10 }, { resource_properties: ZONE_B })] : []),
      ...(i % 3 === 0 ? [floatingIpReservation(NET, 1)] : []),
    ];
    const created = await rest(seeder, 'victim', 'POST', '/v1/leases', {
      name: `victim-${i}`,
      start_date: blazarDate(start),
      end_date: blazarDate(start + 120),
      reservations,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    victimLeases.push(created.body.lease.id);
    // a renamed lease has a longer stream of its own
    if (i % 4 === 0)
      expect((await rest(seeder, 'victim', 'PUT', `/v1/leases/${created.body.lease.id}`, { name: `victim-${i}-renamed` })).status).toBe(
        200,
      );
  }
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'leasehold-gql-budget-'));
  tokensFile = join(dataDir, 'tokens.json');
  writeFileSync(
    tokensFile,
    JSON.stringify(Object.fromEntries(Object.values(IDENTITIES).map(({ token, ...identity }) => [token, identity]))),
  );
  seeder = await apiWith({});
  workers = await startSystem({ dataDir, apps: ['projector', 'reactor'] });
  await seedAttacker();
  await seedVictim();
  // every read model past the last write: the other APIs (which wait only for their own writes) see it all
  const all = await gql(seeder, 'admin')(`{ leases(first: 500) { edges { node { id } } } }`);
  expect(all.data.leases.edges).toHaveLength(ATTACKER_LEASES + VICTIM_LEASES);
}, 600_000);

afterAll(async () => {
  await workers?.stop();
  await seeder?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('page sizes: checked before anything runs, literal or variable', () => {
  const PAGE = 'query($first: Int) { leases(first: $first) { edges { node { id } } } }';
  const refusedAsBadInput = (reply: GraphqlReply): void => {
    expect(reply.status, JSON.stringify(reply.errors)).toBe(400);
    expect(reply.data).toBeUndefined();
    expect(reply.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      error_code: 400,
      error_message: 'Malformed parameter first (an integer from 1 to 500)',
    });
  };

  it.each([0, -1, 501, 2 ** 31 - 1, 1.5])('first: %s as a variable is BAD_USER_INPUT (400)', async (first) => {
    refusedAsBadInput(await gql(seeder, 'attacker')(PAGE, { first }));
  });

  it.each([0, -1, 501])('first: %s as a literal is BAD_USER_INPUT (400)', async (first) => {
    refusedAsBadInput(await gql(seeder, 'attacker')(`{ leases(first: ${first}) { edges { node { id } } } }`));
  });

  it('a variable left out takes its default, checked as well', async () => {
    refusedAsBadInput(await gql(seeder, 'attacker')('query($first: Int = -5) { leases(first: $first) { edges { node { id } } } }'));
    const defaulted = await gql(seeder, 'attacker')('query($first: Int = 3) { leases(first: $first) { edges { node { id } } } }');
    expect(defaulted.data.leases.edges).toHaveLength(3);
  });

  it('a negative page beside expensive aliases (the estimate made negative) is refused, and nothing is read', async () => {
    let reply: GraphqlReply | undefined;
    const log = await logDuring(seeder, async () => {
      reply = await post(
        seeder,
        'attacker',
        `{ negative: leases(first: -100000000) { edges { node { id } } } ${aliases(30, PAGE_WITH_HISTORY).slice(1, -1)} }`,
        AbortSignal.timeout(30_000),
      );
    });
    refusedAsBadInput(reply as GraphqlReply);
    expect(leaseReads(log)).toEqual([]);
  });
});

describe('the estimate: what the fields read', () => {
  it("counts each lease's history (its streams), so many pages of histories are refused before they run", async () => {
    let reply: GraphqlReply | undefined;
    const log = await logDuring(seeder, async () => {
      reply = await post(seeder, 'attacker', aliases(30, PAGE_WITH_HISTORY), AbortSignal.timeout(30_000));
    });
    expect(reply?.status).toBe(400);
    expect(reply?.errors?.[0]?.message).toMatch(/^Query too costly: it may read up to \d+ rows, at most 200000/);
    expect(leaseReads(log)).toEqual([]);
  });

  it('counts the values an answer holds, so a flood of aliases of plain fields is refused before it runs', async () => {
    let reply: GraphqlReply | undefined;
    const flood = `{ leases(first: 500) { edges { node { ${Array.from({ length: 9000 }, (_, i) => `a${i}: id`).join(' ')} } } } }`;
    const log = await logDuring(seeder, async () => {
      reply = await post(seeder, 'attacker', flood, AbortSignal.timeout(30_000));
    });
    expect(reply?.status).toBe(400);
    expect(reply?.errors?.[0]?.message).toMatch(/^Query too large: its answer may hold up to \d+ values, at most 500000/);
    expect(leaseReads(log)).toEqual([]);
  });

  const b = '{ project_id: "project-b" }';
  const REPRESENTATIVE: readonly [string, Who, string, Record<string, unknown>?][] = [
    ['a page of leases', 'victim', `{ leases(first: ${VICTIM_LEASES}) { edges { node { id name status } } } }`],
    [
      'a page of leases with what their reservations hold',
      'admin',
      `{ leases(first: ${VICTIM_LEASES}, filter: ${b}) { edges { node { id reservations { id allocations { resource_id } } } } } }`,
    ],
    [
      'a page of leases with their histories',
      'admin',
      `{ leases(first: ${VICTIM_LEASES}, filter: ${b}) { edges { node { id history { type } } } } }`,
    ],
    [
      'one lease with its history and allocations',
      'admin',
      'query($id: ID!) { lease(id: $id) { id history { position type } reservations { allocations { resource_id } } } }',
      { id: '<lease>' },
    ],
    [
      "a zone's hosts with their bookings",
      'admin',
      '{ hosts(filter: { capabilities: [{ key: "zone", value: "b" }] }) { id allocations { lease_id } } }',
    ],
    ['one host with its bookings', 'admin', 'query($id: ID!) { host(id: $id) { id allocations { lease_id } } }', { id: '<host>' }],
    ['the floating IPs', 'admin', '{ floatingIps { id floating_ip_address } }'],
  ];

  it.each(REPRESENTATIVE)('%s: the estimate is at least the rows read, and at most 10 times as many', async (_, who, query, variables) => {
    const given = Object.fromEntries(
      Object.entries(variables ?? {}).map(([key, value]) => [
        key,
        value === '<lease>' ? victimLeases[0] : value === '<host>' ? victimHosts[0] : value,
      ]),
    );
    const reply = await gql(seeder, who)(query, given);
    expect(reply.errors, JSON.stringify(reply.errors)).toBeUndefined();
    const cost = reply.extensions?.cost as { estimated_rows: number; rows_read: number };
    expect(cost.rows_read).toBeGreaterThan(0);
    expect(cost.estimated_rows, JSON.stringify(cost)).toBeGreaterThanOrEqual(cost.rows_read);
    expect(cost.estimated_rows, JSON.stringify(cost)).toBeLessThanOrEqual(10 * cost.rows_read);
  });

  it("the rows read are the read model's rows and the streams' events, each stream once however many histories share it", async () => {
    let reply: GraphqlReply | undefined;
    const log = await logDuring(seeder, async () => {
      reply = await gql(seeder, 'attacker')(`{ leases(first: ${ATTACKER_LEASES}) { edges { node { id history { type } } } } }`);
    });
    expect(reply?.errors).toBeUndefined();
    const histories = (reply?.data.leases.edges as { node: { history: unknown[] } }[]).map((edge) => edge.node.history.length);
    expect(leaseReads(log)).toEqual([ATTACKER_LEASES]);
    // the page, each lease's own stream (its creation), and each host's stream (a booking of every lease) once: read
    // per lease, the hosts' streams would be 2 x 300 x 300 rows
    expect(reply?.extensions?.cost.rows_read).toBeLessThanOrEqual(ATTACKER_LEASES + ATTACKER_LEASES + 2 * (ATTACKER_LEASES + 10));
    expect(histories.every((length) => length === 3)).toBe(true);
  });
});

describe('the rows budget: reads stop once an operation has read LEASEHOLD_GRAPHQL_MAX_ROWS', () => {
  let tight: RunningSystem;
  beforeAll(async () => {
    tight = await apiWith({ LEASEHOLD_GRAPHQL_MAX_ROWS: '1000' });
  });
  afterAll(async () => {
    await tight?.stop();
  });

  it('pages of leases: the reads stop at the first past the budget, and one clear error answers', async () => {
    let reply: GraphqlReply | undefined;
    const log = await logDuring(tight, async () => {
      reply = await post(tight, 'attacker', aliases(10, PAGE_OF_IDS(ATTACKER_LEASES)));
    });
    expect(reply?.status).toBe(400);
    expect(reply?.data).toBeUndefined();
    expect(reply?.errors).toHaveLength(1);
    expect(reply?.errors?.[0]?.extensions).toEqual({
      code: 'BAD_REQUEST',
      error_code: 400,
      error_message: 'Query stopped: it read more than 1000 rows, the most one query may read (ask for smaller pages or fewer fields)',
    });
    // 300 rows a page: the fourth passes 1000, none after it starts
    expect(leaseReads(log)).toEqual([ATTACKER_LEASES, ATTACKER_LEASES, ATTACKER_LEASES, ATTACKER_LEASES]);
    expect(reply?.extensions?.cost.rows_read).toBe(4 * ATTACKER_LEASES);
  });

  it("histories: the streams' reads stop near the budget too", async () => {
    const reply = await post(tight, 'attacker', `{ leases(first: ${ATTACKER_LEASES}) { edges { node { id history { type } } } } }`);
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]?.message).toMatch(/^Query stopped: it read more than 1000 rows/);
    // past 1000 by at most the read that passed it: one host's stream (a booking of every lease, and its own events)
    expect(reply.extensions?.cost.rows_read).toBeGreaterThan(1000);
    expect(reply.extensions?.cost.rows_read).toBeLessThanOrEqual(1000 + ATTACKER_LEASES + 10);
  });
});

describe('the time budget: reads stop once an operation has run LEASEHOLD_GRAPHQL_TIMEOUT_MS', () => {
  let quick: RunningSystem;
  beforeAll(async () => {
    quick = await apiWith({ LEASEHOLD_GRAPHQL_TIMEOUT_MS: '200', LEASEHOLD_GRAPHQL_MAX_ROWS: '10000000' });
  });
  afterAll(async () => {
    await quick?.stop();
  });

  it('answers 503 with Retry-After, having read only what the time allowed', async () => {
    let reply: GraphqlReply | undefined;
    const log = await logDuring(quick, async () => {
      reply = await post(quick, 'attacker', aliases(60, PAGE_OF_IDS(ATTACKER_LEASES)), AbortSignal.timeout(60_000));
    });
    expect(reply?.status).toBe(503);
    expect(reply?.headers.get('retry-after')).toBe('1');
    expect(reply?.errors).toHaveLength(1);
    expect(reply?.errors?.[0]?.extensions.error_message).toBe(
      'Query stopped: it ran longer than 200 ms, the longest one query may run (ask for smaller pages or fewer fields)',
    );
    expect(leaseReads(log).length).toBeLessThan(60);
  });
});

describe('a client that leaves, and expensive operations per project', () => {
  let roomy: RunningSystem;
  beforeAll(async () => {
    roomy = await apiWith({
      LEASEHOLD_GRAPHQL_TIMEOUT_MS: '300000',
      LEASEHOLD_GRAPHQL_MAX_ROWS: '100000000',
      LEASEHOLD_GRAPHQL_MAX_COST: '100000000',
    });
  });
  afterAll(async () => {
    await roomy?.stop();
  });

  /** Many pages of the attacker's leases, each page one statement: seconds of reads. Its page size tells its statements apart. */
  const LONG = (first: number) => aliases(150, PAGE_OF_IDS(first));
  const readsOfSize = (from: number, rows: number): number =>
    leaseReads(roomy.output().slice(from)).filter((count) => count === rows).length;

  /** Waits until the log is quiet (no new lease read for a second), then returns what it read. */
  const settled = async (from: number): Promise<number[]> => {
    let last = -1;
    return eventually(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const reads = leaseReads(roomy.output().slice(from));
        if (reads.length === last) return reads;
        last = reads.length;
        return undefined;
      },
      120_000,
      'the reads to stop',
    );
  };

  it('a client that disconnects mid-query stops its reads', async () => {
    const from = roomy.output().length;
    const client = new AbortController();
    const running = post(roomy, 'attacker', LONG(ATTACKER_LEASES - 1), client.signal).catch((error: unknown) => error);
    await eventually(async () => (readsOfSize(from, ATTACKER_LEASES) >= 2 ? true : undefined), 60_000, 'the query to be reading');
    client.abort();
    expect(await running).toBeInstanceOf(Error);
    const reads = await settled(from);
    expect(reads.length, `${reads.length} of 150 pages read`).toBeLessThan(75);
  });

  it('a third expensive query of one project is 429 while two run; another project runs its own meanwhile', async () => {
    const from = roomy.output().length;
    const clients = [new AbortController(), new AbortController()];
    // 300 and 299 leases a page (first: 299 and 298): each one's statements are told apart by their rows
    const first = post(roomy, 'attacker', LONG(ATTACKER_LEASES - 1), clients[0]?.signal).catch((error: unknown) => error);
    const second = post(roomy, 'attacker', LONG(ATTACKER_LEASES - 2), clients[1]?.signal).catch((error: unknown) => error);
    await eventually(
      async () => (readsOfSize(from, ATTACKER_LEASES) >= 1 && readsOfSize(from, ATTACKER_LEASES - 1) >= 1 ? true : undefined),
      60_000,
      'both queries to be reading',
    );
    const third = await post(roomy, 'attacker', aliases(20, PAGE_OF_IDS(100)));
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('300');
    expect(third.data).toBeUndefined();
    expect(third.errors).toHaveLength(1);
    expect(third.errors?.[0]?.extensions).toEqual({
      code: 'TOO_MANY_REQUESTS',
      error_code: 429,
      error_message:
        'Too many expensive queries of this project at once: at most 2 estimated to read over 1000 rows or answer over ' +
        '100000 values may run together (try again after 300 s, or ask for less)',
    });
    // a cheap query of the same project runs
    expect((await gql(roomy, 'attacker')(`{ ${PAGE_OF_IDS(5)} }`)).data.leases.edges).toHaveLength(5);
    const other = await post(roomy, 'victim', aliases(20, PAGE_OF_IDS(100)));
    expect(other.status).toBe(200);
    expect(other.data.a0.edges).toHaveLength(VICTIM_LEASES);
    expect(other.extensions?.cost.estimated_rows).toBeGreaterThan(1000);
    // the two leave: their slots are free again
    for (const client of clients) client.abort();
    await Promise.all([first, second]);
    await settled(from);
    const again = await post(roomy, 'attacker', aliases(20, PAGE_OF_IDS(100)));
    expect(again.status).toBe(200);
  });
});
