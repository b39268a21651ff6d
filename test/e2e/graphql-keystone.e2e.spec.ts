/**
 * /graphql in auth mode `keystone` against a real Keystone (scripts/services/keystone-up.sh, exported as
 * LEASEHOLD_TEST_KEYSTONE_URL): Keystone tokens over HTTP (X-Auth-Token) and over WebSocket (the
 * connection's init payload), with the roles Keystone gives, as REST. Skipped when no test Keystone runs.
 */
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstError, graphqlClient } from '../helpers/graphql.js';
import { blazarDate } from '../helpers/http.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const KEYSTONE = process.env.LEASEHOLD_TEST_KEYSTONE_URL;

/** Users seeded by keystone-up.sh: name, password, project (alice and bob members, rita a reader of project-a). */
const USERS = {
  alice: ['alice', 'alice-secret', 'project-a'],
  bob: ['bob', 'bob-secret', 'project-b'],
  rita: ['rita', 'rita-secret', 'project-a'],
} as const;

const tokenOf = async (user: keyof typeof USERS): Promise<string> => {
  const [name, password, project] = USERS[user];
  const response = await fetch(`${KEYSTONE}/auth/tokens?nocatalog`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      auth: {
        identity: { methods: ['password'], password: { user: { name, domain: { name: 'Default' }, password } } },
        scope: { project: { name: project, domain: { name: 'Default' } } },
      },
    }),
  });
  expect(response.status).toBe(201);
  return response.headers.get('x-subject-token') ?? '';
};

const CREATE = `mutation($input: CreateLeaseInput!) { createLease(input: $input) { id project_id } }`;
const window = (days: number) => ({ start_date: blazarDate(60 * 24 * days), end_date: blazarDate(60 * 24 * days + 60) });

describe.skipIf(KEYSTONE === undefined || KEYSTONE === '')('GraphQL with Keystone tokens', () => {
  let system: RunningSystem;
  const tokens: Record<string, string> = {};
  let client: Client | null = null;

  beforeAll(async () => {
    system = await startSystem({
      env: {
        LEASEHOLD_AUTH: 'keystone',
        LEASEHOLD_KEYSTONE_URL: KEYSTONE ?? '',
        LEASEHOLD_KEYSTONE_USERNAME: 'leasehold',
        LEASEHOLD_KEYSTONE_PASSWORD: 'leasehold-secret',
        LEASEHOLD_KEYSTONE_PROJECT_NAME: 'service',
      },
    });
    for (const user of Object.keys(USERS) as (keyof typeof USERS)[]) tokens[user] = await tokenOf(user);
  });

  afterAll(async () => {
    await client?.dispose();
    await system?.stop();
  });

  it("a member creates and reads its project's leases; another project's member and a reader are refused as by REST", async () => {
    const alice = graphqlClient(system.url, tokens.alice ?? null);
    const created = await alice(CREATE, { input: { name: 'ks-gql', ...window(300), reservations: [] } });
    expect(created.errors).toBeUndefined();
    const leaseId = created.data.createLease.id as string;
    const own = await alice(`{ leases { edges { node { id project_id } } } }`);
    expect(own.data.leases.edges.map((edge: any) => edge.node.id)).toContain(leaseId);
    const projectA = created.data.createLease.project_id;
    expect(own.data.leases.edges.every((edge: any) => edge.node.project_id === projectA)).toBe(true);

    const bob = graphqlClient(system.url, tokens.bob ?? null);
    expect(firstError(await bob(`query($id: ID!) { lease(id: $id) { id } }`, { id: leaseId }))).toEqual({
      code: 'FORBIDDEN',
      error_message: "Policy doesn't allow blazar:leases:get to be performed",
    });
    const rita = graphqlClient(system.url, tokens.rita ?? null);
    expect((await rita(`query($id: ID!) { lease(id: $id) { id } }`, { id: leaseId })).data.lease.id).toBe(leaseId);
    expect(firstError(await rita(CREATE, { input: { name: 'ks-reader', ...window(301) } }))).toEqual({
      code: 'FORBIDDEN',
      error_message: "Policy doesn't allow blazar:leases:post to be performed",
    });
    expect((await graphqlClient(system.url, 'not-a-keystone-token')(`{ leases { edges { cursor } } }`)).status).toBe(401);
  });

  it("a Keystone token in the WebSocket's init payload subscribes to the member's own lease", async () => {
    const alice = graphqlClient(system.url, tokens.alice ?? null);
    const leaseId = (await alice(CREATE, { input: { name: 'ks-sub', ...window(302), reservations: [] } })).data.createLease.id as string;
    client = createClient({
      url: `${system.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'X-Auth-Token': tokens.alice },
      retryAttempts: 0,
    });
    const iterator = client.iterate({
      query: `subscription($id: ID!) { leaseEvents(leaseId: $id) { type actor { project_id } } }`,
      variables: { id: leaseId },
    });
    const first = await iterator.next();
    await iterator.return?.();
    expect(first.value.data.leaseEvents.type).toBe('lease.created');
  });
});
