/**
 * GraphQL subscriptions over WebSocket (graphql-ws), against the running system with static tokens:
 * the token in the connection's init payload, a lease's events from a position (catch-up) and then
 * as they are recorded (live), a project's lease events as GET /v1/events shows them to its member.
 */
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { docExamples } from '../helpers/graphql.js';
import { blazarDate } from '../helpers/http.js';
import { type StaticAuth, staticAuth } from '../helpers/static-auth.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  member: { token: 'tok-member', user_id: 'u-member', project_id: 'project-a', roles: ['member'] },
  ownerB: { token: 'tok-owner-b', user_id: 'u-owner-b', project_id: 'project-b', roles: ['member'] },
} as const;
type Who = keyof typeof IDENTITIES;

let system: RunningSystem;
let tokens: StaticAuth;
const clients: Client[] = [];

const rest = async (who: Who, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Auth-Token': IDENTITIES[who].token },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text.length > 0 ? JSON.parse(text) : null };
};

const socket = (token: string | null): Client => {
  const client = createClient({
    url: `${system.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token === null ? {} : { 'X-Auth-Token': token },
    retryAttempts: 0,
  });
  clients.push(client);
  return client;
};

let day = 0;
const leaseOf = async (who: Who): Promise<string> => {
  day++;
  const created = await rest(who, 'POST', '/v1/leases', {
    name: `sub-${who}-${day}`,
    start_date: blazarDate(60 * 24 * (200 + day)),
    end_date: blazarDate(60 * 24 * (200 + day) + 60),
    reservations: [],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.lease.id;
};

/** Collects a subscription's events until `count` have come (or it ends), with a deadline. */
const collect = async (
  iterator: AsyncIterableIterator<any>,
  count: number,
  onFirst: () => Promise<unknown> = async () => undefined,
): Promise<any[]> => {
  const seen: any[] = [];
  const deadline = setTimeout(() => void iterator.return?.(), 15_000);
  try {
    for await (const message of iterator) {
      seen.push(message);
      if (seen.length === 1) await onFirst();
      if (seen.length >= count) break;
    }
  } finally {
    clearTimeout(deadline);
  }
  return seen;
};

beforeAll(async () => {
  tokens = staticAuth(IDENTITIES);
  system = await startSystem({ env: { ...tokens.env } });
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.dispose();
});

afterAll(async () => {
  await system?.stop();
  tokens?.remove();
});

describe('leaseEvents', () => {
  it("catches up with the lease's history, then delivers each event as it is recorded, those asked for only", async () => {
    const leaseId = await leaseOf('member');
    const history = (await rest('member', 'GET', `/v1/leases/${leaseId}/history`)).body.history;
    const client = socket(IDENTITIES.member.token);
    const query = `subscription($id: ID!) { leaseEvents(leaseId: $id) { position type actor { user_id } data } }`;
    const seen = await collect(client.iterate({ query, variables: { id: leaseId } }), history.length + 2, async () => {
      expect((await rest('member', 'PUT', `/v1/leases/${leaseId}`, { name: 'renamed-live' })).status).toBe(200);
      expect((await rest('member', 'DELETE', `/v1/leases/${leaseId}`)).status).toBe(204);
    });
    const entries = seen.map((message) => message.data.leaseEvents);
    expect(entries.slice(0, history.length).map((e) => e.position)).toEqual(history.map((e: any) => e.position));
    expect(entries.slice(history.length).map((e) => e.type)).toEqual(['lease.renamed', 'lease.deleted']);
    expect(entries.every((e) => e.actor.user_id === 'u-member')).toBe(true);
    const positions = entries.map((e) => e.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));

    // from a position on, and of some types only
    const after = entries[0].position;
    const later = await collect(
      socket(IDENTITIES.member.token).iterate({
        query: `subscription($id: ID!, $after: Float) { leaseEvents(leaseId: $id, after: $after, types: ["lease.deleted"]) { position type } }`,
        variables: { id: leaseId, after },
      }),
      1,
    );
    expect(later.map((message) => message.data.leaseEvents.type)).toEqual(['lease.deleted']);
  });

  it("refuses another project's lease as reading its history is refused, and an unknown one as not found", async () => {
    const other = await leaseOf('ownerB');
    const client = socket(IDENTITIES.member.token);
    const query = `subscription($id: ID!) { leaseEvents(leaseId: $id) { position } }`;
    const forbidden = await collect(client.iterate({ query, variables: { id: other } }), 1);
    expect(forbidden[0].errors[0].extensions).toMatchObject({
      code: 'FORBIDDEN',
      error_message: "Policy doesn't allow blazar:leases:get to be performed",
    });
    const missing = await collect(client.iterate({ query, variables: { id: '00000000-0000-4000-8000-000000000000' } }), 1);
    expect(missing[0].errors[0].extensions).toMatchObject({ code: 'NOT_FOUND' });
    expect((await rest('member', 'GET', `/v1/leases/${other}/history`)).status).toBe(403);
  });
});

describe('the example of docs/graphql.md', () => {
  it('delivers the deletion of the lease it watches', async () => {
    const [example] = docExamples('subscription');
    expect(example).toBeDefined();
    const leaseId = await leaseOf('member');
    const seen = collect(socket(IDENTITIES.member.token).iterate({ query: example as string, variables: { id: leaseId } }), 1);
    expect((await rest('member', 'DELETE', `/v1/leases/${leaseId}`)).status).toBe(204);
    const [message] = await seen;
    expect(message.data.leaseEvents).toMatchObject({ type: 'lease.deleted', actor: { user_id: 'u-member', system: null } });
  });
});

describe('projectLeaseEvents', () => {
  it("delivers a member its own project's lease events, live, and never another project's", async () => {
    const head = (await rest('member', 'GET', '/v1/events?limit=1000')).body.next_after;
    const query = `subscription($after: Float) { projectLeaseEvents(after: $after, types: ["lease.created"]) { position type data } }`;
    // subscribed or not yet when the leases are made: it catches up from `after`
    const delivered = collect(socket(IDENTITIES.member.token).iterate({ query, variables: { after: head } }), 1);
    await leaseOf('ownerB');
    const own = await leaseOf('member');
    const [message] = await delivered;
    expect(message.data.projectLeaseEvents).toMatchObject({ type: 'lease.created', data: expect.objectContaining({ lease_id: own }) });
  });
});

describe('the socket carries subscriptions only', () => {
  it('refuses a query sent over it (the limits and the introspection setting are applied over HTTP)', async () => {
    const [message] = await collect(socket(IDENTITIES.member.token).iterate({ query: '{ leases { edges { cursor } } }' }), 1).then(
      () => [null],
      (errors: unknown) => [errors],
    );
    expect(JSON.stringify(message)).toContain('Queries and mutations are served over HTTP (POST /graphql)');
  });
});

describe('authentication', () => {
  it('closes a connection whose init payload carries no token or one nobody issued', async () => {
    for (const token of [null, 'not-a-token']) {
      const client = socket(token);
      const outcome = await collect(client.iterate({ query: 'subscription { projectLeaseEvents { position } }' }), 1).then(
        () => null,
        (error: unknown) => error,
      );
      expect((outcome as { code?: number } | null)?.code, String(token)).toBe(4403);
    }
  });
});
