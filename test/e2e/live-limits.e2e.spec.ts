/**
 * The bounds on live connections, through the running system with static tokens: GraphQL's WebSocket
 * (subscriptions per connection and per project, the size of a message before and after
 * `connection_init`, the time to send it, connections per project and per client address) and the
 * event streams of GET /v1/events (each project's share of them). One project at its bound is refused;
 * another is still served.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { type Client, createClient } from 'graphql-ws';
import WebSocket, { type RawData } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SseClient } from '../../bench/sse-client.js';
import { blazarDate } from '../helpers/http.js';
import { blazarError } from '../helpers/lease-client.js';
import { type StaticAuth, staticAuth } from '../helpers/static-auth.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  memberA: { token: 'tok-member-a', user_id: 'u-a', project_id: 'project-a', roles: ['member'] },
  memberB: { token: 'tok-member-b', user_id: 'u-b', project_id: 'project-b', roles: ['member'] },
  memberC: { token: 'tok-member-c', user_id: 'u-c', project_id: 'project-c', roles: ['member'] },
} as const;
type Who = keyof typeof IDENTITIES;

/** The defaults, except the times and the event streams, made small to be reached quickly. */
const LIMITS = {
  subscriptionsPerConnection: 20,
  subscriptionsPerTenant: 50,
  connectionsPerTenant: 10,
  connectionsPerAddress: 20,
  initBytes: 16_384,
  messageBytes: 102_400,
  initTimeoutMs: 1_000,
  streams: 6,
  streamsPerTenant: 2,
} as const;

const PROTOCOL = 'graphql-transport-ws';

let system: RunningSystem;
let tokens: StaticAuth;
let leaseOfA: string;
const clients: Client[] = [];
const sockets: WebSocket[] = [];
const streams: SseClient[] = [];

const auth = (who: Who): Record<string, string> => ({ 'X-Auth-Token': IDENTITIES[who].token });
const wsUrl = (): string => `${system.url.replace('http', 'ws')}/graphql`;

const createLease = async (who: Who): Promise<string> => {
  const response = await fetch(`${system.url}/v1/leases`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...auth(who) },
    body: JSON.stringify({
      name: `live-${who}`,
      start_date: blazarDate(60 * 24 * 300),
      end_date: blazarDate(60 * 24 * 300 + 60),
      reservations: [],
    }),
  });
  const body = (await response.json()) as { lease: { id: string } };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.lease.id;
};

const graphqlWs = (who: Who): Client => {
  const client = createClient({ url: wsUrl(), webSocketImpl: WebSocket, connectionParams: auth(who), retryAttempts: 0, lazy: true });
  clients.push(client);
  return client;
};

const textOf = (data: RawData): string =>
  (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString();

type Opened = { readonly socket: WebSocket } | { readonly status: number; readonly body: string };

/**
 * A raw graphql-ws socket: open, or the HTTP answer that refused the handshake. Its frames are masked
 * with zeros, which ws does not apply: masking 10 MB in JavaScript takes this machine about a second.
 */
const connect = (localAddress = '127.0.0.1'): Promise<Opened> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl(), PROTOCOL, { localAddress, generateMask: (mask) => mask.fill(0) });
    sockets.push(socket);
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.once('error', reject);
  });

const opened = async (localAddress?: string): Promise<WebSocket> => {
  const outcome = await connect(localAddress);
  if (!('socket' in outcome)) throw new Error(`handshake refused: ${outcome.status} ${outcome.body}`);
  return outcome.socket;
};

interface Closed {
  readonly code: number;
  readonly reason: string;
  readonly afterMs: number;
}

/** How the socket closed, or code 0 if it is still open after `timeoutMs`. */
const closed = (socket: WebSocket, timeoutMs = 10_000): Promise<Closed> => {
  const since = performance.now();
  return new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) return resolve({ code: -1, reason: 'already closed', afterMs: 0 });
    const timer = setTimeout(() => resolve({ code: 0, reason: 'still open', afterMs: timeoutMs }), timeoutMs);
    socket.once('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString(), afterMs: performance.now() - since });
    });
  });
};

/** Sends `connection_init`: the server's `connection_ack`, or how it closed the socket. */
const initialise = (socket: WebSocket, who: Who | null): Promise<'ack' | Closed> => {
  const ending = closed(socket);
  const acked = new Promise<'ack'>((resolve) =>
    socket.on('message', (data) => {
      if ((JSON.parse(textOf(data)) as { type: string }).type === 'connection_ack') resolve('ack');
    }),
  );
  socket.send(JSON.stringify({ type: 'connection_init', payload: who === null ? {} : auth(who) }));
  return Promise.race([acked, ending]);
};

/** A socket of `who`'s that the server acknowledged. */
const acknowledged = async (who: Who, localAddress?: string): Promise<WebSocket> => {
  const socket = await opened(localAddress);
  const outcome = await initialise(socket, who);
  if (outcome !== 'ack') throw new Error(`not acknowledged: ${outcome.code} ${outcome.reason}`);
  return socket;
};

const closeAll = async (list: WebSocket[]): Promise<void> => {
  await Promise.all(
    list.splice(0).map((socket) => {
      const ending = closed(socket);
      socket.terminate();
      return ending;
    }),
  );
};

/** The first answer to a subscription: its first event, or its errors. */
const firstAnswer = async (client: Client, query: string, variables: Record<string, unknown>) => {
  const iterator = client.iterate({ query, variables });
  const first = await iterator.next();
  return { answer: first.value as { data?: unknown; errors?: { message: string; extensions: Record<string, unknown> }[] }, iterator };
};

const LEASE_EVENTS = 'subscription($id: ID!) { leaseEvents(leaseId: $id) { position } }';

/** The API process of the system (a child of the launcher): the one whose environment names its port. */
const apiPid = (): number => {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const environment = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (command.includes('apps/api/src/main.js') && environment.includes(`LEASEHOLD_PORT=${system.port}`)) return Number(entry);
    } catch {
      // a process that ended, or not ours
    }
  }
  throw new Error('no API process');
};

const rssBytes = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((text) => text.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? Number.NaN) * 1024;
};

beforeAll(async () => {
  tokens = staticAuth(IDENTITIES);
  system = await startSystem({
    env: {
      ...tokens.env,
      LEASEHOLD_GRAPHQL_WS_INIT_TIMEOUT_MS: String(LIMITS.initTimeoutMs),
      LEASEHOLD_FEED_MAX_STREAMS: String(LIMITS.streams),
      LEASEHOLD_FEED_MAX_STREAMS_PER_TENANT: String(LIMITS.streamsPerTenant),
      LEASEHOLD_FEED_HEARTBEAT_MS: '200',
    },
  });
  leaseOfA = await createLease('memberA');
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.dispose();
  for (const stream of streams.splice(0)) stream.close();
  await closeAll(sockets);
});

afterAll(async () => {
  await system?.stop();
  tokens?.remove();
});

describe('subscriptions', () => {
  const CONNECTION_FULL = `This connection has ${LIMITS.subscriptionsPerConnection} subscriptions open, the most it may; complete one first`;
  const TENANT_FULL = `Project project-a has ${LIMITS.subscriptionsPerTenant} subscriptions open on this server, the most it may; complete one first`;

  it('serves 20 of the 30 subscriptions one socket asks for, refusing the rest clearly', async () => {
    const client = graphqlWs('memberA');
    const answers = await Promise.all(Array.from({ length: 30 }, () => firstAnswer(client, LEASE_EVENTS, { id: leaseOfA })));
    expect(answers.filter(({ answer }) => answer.errors === undefined)).toHaveLength(LIMITS.subscriptionsPerConnection);
    const refused = answers.filter(({ answer }) => answer.errors !== undefined);
    expect(new Set(refused.map(({ answer }) => answer.errors?.[0]?.extensions['error_message']))).toEqual(new Set([CONNECTION_FULL]));
    await client.dispose();
  });

  it('serves 50 of 600 subscriptions one project asks for over 3 sockets (20 per socket at most), refusing the rest clearly', async () => {
    const connections = [graphqlWs('memberA'), graphqlWs('memberA'), graphqlWs('memberA')];
    const asked = connections.flatMap((client, socket) =>
      Array.from({ length: 200 }, async () => ({ socket, ...(await firstAnswer(client, LEASE_EVENTS, { id: leaseOfA })) })),
    );
    const answers = await Promise.all(asked);
    const served = answers.filter(({ answer }) => answer.errors === undefined);
    const refused = answers.filter(({ answer }) => answer.errors !== undefined);
    expect(served).toHaveLength(LIMITS.subscriptionsPerTenant);
    for (const socket of [0, 1, 2])
      expect(served.filter((answer) => answer.socket === socket).length).toBeLessThanOrEqual(LIMITS.subscriptionsPerConnection);
    // the project's bound is reached (a socket's too, if its messages came before the others' sockets were open)
    const messages = new Set(refused.map(({ answer }) => answer.errors?.[0]?.extensions['error_message']));
    expect(messages).toContain(TENANT_FULL);
    expect([...messages].filter((message) => message !== TENANT_FULL && message !== CONNECTION_FULL)).toEqual([]);
    expect(refused[0]?.answer.errors?.[0]?.extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', error_code: 503 });

    // another project is served; and a subscription completed gives its slot back
    const other = await firstAnswer(graphqlWs('memberB'), LEASE_EVENTS, { id: await createLease('memberB') });
    expect(other.answer.errors).toBeUndefined();
    const [first] = served;
    await first!.iterator.return?.();
    const again = await eventually(async () => {
      const next = await firstAnswer(connections[first!.socket]!, LEASE_EVENTS, { id: leaseOfA });
      return next.answer.errors === undefined ? next : undefined;
    });
    expect(again.answer.data).toMatchObject({ leaseEvents: { position: expect.any(Number) } });

    // the project is at its bound again; its sockets closed, their subscriptions give their slots back
    for (const client of connections) await client.dispose();
    const fresh = await eventually(async () => {
      const next = await firstAnswer(graphqlWs('memberA'), LEASE_EVENTS, { id: leaseOfA });
      return next.answer.errors === undefined ? next : undefined;
    });
    expect(fresh.answer.data).toMatchObject({ leaseEvents: { position: expect.any(Number) } });
  });
});

describe('message sizes', () => {
  it('closes sockets whose first message is 10 MB with 1009 before reading it: the API does not grow by them', async () => {
    const SOCKETS = 10;
    const pid = apiPid();
    // one Buffer sent each time: converting 10 MB of text for each send takes this machine longer than the init timeout
    const big = Buffer.from(
      JSON.stringify({ type: 'connection_init', payload: { ...auth('memberA'), pad: 'x'.repeat(10 * 1024 * 1024) } }),
    );
    const sendBig = async (): Promise<Closed> => {
      const socket = await opened();
      const ending = closed(socket);
      socket.send(big);
      return ending;
    };
    // once before measuring: what the API's first socket loads and compiles is not the message
    expect(await sendBig()).toMatchObject({ code: 1009 });
    const before = rssBytes(pid);
    const outcomes = await Promise.all(Array.from({ length: SOCKETS }, sendBig));
    const grown = rssBytes(pid) - before;
    expect(outcomes.map((outcome) => outcome.code)).toEqual(Array.from({ length: SOCKETS }, () => 1009));
    // had it read them (as graphql-ws over ws's defaults did: 100 MB each), it would hold them all at once, and copies
    expect(grown, `the API's RSS grew by ${Math.round(grown / 1024 / 1024)} MB`).toBeLessThan((SOCKETS * big.length) / 2);
  });

  it(`refuses a message over ${LIMITS.initBytes} bytes before connection_init, and one over ${LIMITS.messageBytes} after it`, async () => {
    const early = await opened();
    const ending = closed(early);
    early.send(JSON.stringify({ type: 'connection_init', payload: { ...auth('memberA'), pad: 'x'.repeat(LIMITS.initBytes) } }));
    expect(await ending).toMatchObject({ code: 1009 });

    const socket = await acknowledged('memberA');
    const answers: unknown[] = [];
    socket.on('message', (data) => answers.push(JSON.parse(textOf(data))));
    // under the limit: a long comment in a subscription is read and served
    const comment = `# ${'x'.repeat(LIMITS.messageBytes / 2)}\n`;
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: comment + LEASE_EVENTS, variables: { id: leaseOfA } } }));
    await eventually(async () => (answers.some((answer) => (answer as { id?: string }).id === '1') ? true : undefined));
    const refused = closed(socket);
    socket.send(
      JSON.stringify({ id: '2', type: 'subscribe', payload: { query: `# ${'x'.repeat(LIMITS.messageBytes)}\n${LEASE_EVENTS}` } }),
    );
    expect(await refused).toMatchObject({ code: 1009 });
  });
});

describe('connection_init', () => {
  it(`closes a socket that sends none within ${LIMITS.initTimeoutMs} ms (4408)`, async () => {
    const socket = await opened();
    const outcome = await closed(socket);
    expect(outcome).toMatchObject({ code: 4408, reason: 'Connection initialisation timeout' });
    expect(outcome.afterMs).toBeGreaterThanOrEqual(LIMITS.initTimeoutMs - 100);
    expect(outcome.afterMs).toBeLessThan(LIMITS.initTimeoutMs + 1_500);
  });
});

describe('connections', () => {
  it(`keeps ${LIMITS.connectionsPerTenant} sockets per project: one more is closed with 1013, another project still connects`, async () => {
    const own = await eventually(async () => {
      try {
        return await Promise.all(Array.from({ length: LIMITS.connectionsPerTenant }, () => acknowledged('memberA')));
      } catch {
        await closeAll(sockets);
        return undefined;
      }
    });
    const extra = await opened();
    expect(await initialise(extra, 'memberA')).toMatchObject({
      code: 1013,
      reason: `This project has ${LIMITS.connectionsPerTenant} sockets open, the most it may`,
    });
    await acknowledged('memberB');

    own[0]!.terminate();
    await eventually(async () => {
      const socket = await opened();
      return (await initialise(socket, 'memberA')) === 'ack' ? true : undefined;
    });
  });

  it(`keeps ${LIMITS.connectionsPerAddress} sockets per client address, authenticated or not: one more is refused with 429`, async () => {
    await eventually(async () => {
      try {
        await Promise.all([
          ...Array.from({ length: LIMITS.connectionsPerAddress / 2 }, () => acknowledged('memberB')),
          ...Array.from({ length: LIMITS.connectionsPerAddress / 2 }, () => acknowledged('memberC')),
        ]);
        return true;
      } catch {
        await closeAll(sockets);
        return undefined;
      }
    });
    const refused = await connect();
    expect(refused).toEqual({
      status: 429,
      body: JSON.stringify(blazarError(429, `Too many WebSocket connections from 127.0.0.1: at most ${LIMITS.connectionsPerAddress}`)),
    });
    // another address is not held to this one's count
    expect(await initialise(await opened('127.0.0.2'), 'memberA')).toBe('ack');
  });
});

describe('event streams', () => {
  it(`serves each project ${LIMITS.streamsPerTenant} of the ${LIMITS.streams} streams: only the project over its share gets the 503`, async () => {
    const open = async (who: Who): Promise<SseClient> => {
      const stream = await SseClient.open(`${system.url}/v1/events`, auth(who));
      streams.push(stream);
      return stream;
    };
    for (let held = 0; held < LIMITS.streamsPerTenant; held++) expect((await open('memberA')).response.status).toBe(200);
    const refused = await fetch(`${system.url}/v1/events`, { headers: { Accept: 'text/event-stream', ...auth('memberA') } });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual(
      blazarError(
        503,
        `Project project-a already streams events to ${LIMITS.streamsPerTenant} clients, its share of this server's ${LIMITS.streams}; close one or try again later`,
      ),
    );
    const other = await open('memberB');
    expect(other.response.status).toBe(200);
    const lease = await createLease('memberB');
    await other.waitFor((message) => message.event === 'lease.created' && message.data.includes(lease));
  });
});

describe('stopping the API', () => {
  it("tells its sockets it goes away (1001) and ends its streams at once, not after Apollo's 10 s drain", async () => {
    const api = await startSystem({
      apps: ['api'],
      env: tokens.env,
    });
    const socket = new WebSocket(`${api.url.replace('http', 'ws')}/graphql`, PROTOCOL);
    sockets.push(socket);
    await new Promise<void>((resolve) => socket.once('open', resolve));
    expect(await initialise(socket, 'memberA')).toBe('ack');
    const stream = await SseClient.open(`${api.url}/v1/events`, auth('memberA'));
    streams.push(stream);
    expect(stream.response.status).toBe(200);

    const ending = closed(socket);
    const stopping = performance.now();
    await api.stop();
    expect(performance.now() - stopping).toBeLessThan(8_000);
    expect(await ending).toMatchObject({ code: 1001, reason: 'Going away' });
    await stream.waitForEnd();
    expect(api.output()).not.toMatch(/"level":(50|60)/);
  });
});
