/**
 * GET /v1/events through HTTP against the running system (api + projector + reactor, static tokens):
 * JSON pages in log order that follow `next_after` without a gap or a repeat, the `types` filter,
 * what an admin and members of two projects see, bad parameters answered with Blazar's 400; and the
 * same path as Server-Sent Events: catch-up then live, resumed exactly after `Last-Event-ID`,
 * heartbeats when idle, a bounded number of streams whose slots come back when clients leave.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SseClient, type SseMessage } from '../../bench/sse-client.js';
import { pinnedHost } from '../helpers/api-fixtures.js';
import { api, blazarDate } from '../helpers/http.js';
import { blazarError, describeBody } from '../helpers/lease-client.js';
import { type StaticAuth, staticAuth } from '../helpers/static-auth.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  admin: { token: 'tok-admin', user_id: 'u-admin', project_id: 'project-admin', roles: ['admin'] },
  memberA: { token: 'tok-member-a', user_id: 'u-a', project_id: 'project-a', roles: ['member', 'reader'] },
  memberB: { token: 'tok-member-b', user_id: 'u-b', project_id: 'project-b', roles: ['member', 'reader'] },
} as const;
type Who = keyof typeof IDENTITIES;

interface Entry {
  readonly position: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly actor: { readonly project_id: string | null };
}
interface Page {
  readonly events: Entry[];
  readonly next_after: number;
}

const MAX_STREAMS = 3;

let system: RunningSystem;
let tokens: StaticAuth;
let day = 0;
const open: SseClient[] = [];

const client = () => api(system.url);
const auth = (who: Who): Record<string, string> => ({ 'X-Auth-Token': IDENTITIES[who].token });

const page = async (who: Who, query: string): Promise<Page> => {
  const response = await client().get(`/v1/events?${query}`, auth(who));
  expect(response.status, describeBody(response)).toBe(200);
  return response.body as Page;
};

/** Every page from `after` on, following next_after until a page comes back empty at the same position. */
const readAll = async (who: Who, query: string, after = 0): Promise<{ entries: Entry[]; pages: number; last: number }> => {
  const entries: Entry[] = [];
  for (let pages = 1; ; pages++) {
    const next = await page(who, `${query}&after=${after}`);
    entries.push(...next.events);
    if (next.events.length === 0 && next.next_after === after) return { entries, pages, last: after };
    expect(next.next_after).toBeGreaterThan(after);
    after = next.next_after;
  }
};

/** A lease of `who`'s project a few days ahead (the reactor leaves it alone), on a host of its own. */
const leaseOf = async (who: Who, host: string): Promise<{ id: string; position: number }> => {
  day++;
  const response = await client().post(
    '/v1/leases',
    {
      name: `feed-${who}-${day}`,
      start_date: blazarDate(60 * 24 * 5 + day * 120),
      end_date: blazarDate(60 * 24 * 5 + day * 120 + 60),
      reservations: [pinnedHost(host)],
    },
    auth(who),
  );
  expect(response.status, describeBody(response)).toBe(201);
  return { id: response.body.lease.id as string, position: Number(response.headers.get('x-leasehold-position')) };
};

const stream = async (who: Who, query = '', headers: Record<string, string> = {}): Promise<SseClient> => {
  const sse = await SseClient.open(`${system.url}/v1/events${query}`, { ...auth(who), ...headers });
  open.push(sse);
  return sse;
};

/** A stream that was let in, waiting (bounded) for a slot while the server frees one. */
const openedStream = (): Promise<SseClient> =>
  eventually(
    async () => {
      const sse = await stream('admin');
      if (sse.response.status === 200) return sse;
      expect(sse.response.status).toBe(503);
      sse.close();
      return undefined;
    },
    10_000,
    'a stream slot',
  );

const entryOf = (message: SseMessage): Entry => JSON.parse(message.data) as Entry;
const leaseCreated = (leaseId: string) => (message: SseMessage) =>
  message.event === 'lease.created' && entryOf(message).data['lease_id'] === leaseId;

beforeAll(async () => {
  tokens = staticAuth(IDENTITIES);
  system = await startSystem({
    env: {
      ...tokens.env,
      LEASEHOLD_FEED_MAX_STREAMS: String(MAX_STREAMS),
      LEASEHOLD_FEED_HEARTBEAT_MS: '200',
    },
  });
  for (const name of ['feed-host-a', 'feed-host-b']) {
    const host = await client().post('/v1/os-hosts', { name }, auth('admin'));
    expect(host.status, describeBody(host)).toBe(201);
  }
  await leaseOf('memberA', 'feed-host-a');
  await leaseOf('memberB', 'feed-host-b');
  await leaseOf('memberA', 'feed-host-a');
});

afterEach(() => {
  for (const sse of open.splice(0)) sse.close();
});

afterAll(async () => {
  await system?.stop();
  tokens?.remove();
});

describe('GET /v1/events (JSON pages)', () => {
  it('pages through the log in order: following next_after reads every event once, as one big page does', async () => {
    const paged = await readAll('admin', 'limit=2');
    const whole = await page('admin', 'after=0&limit=1000');
    expect(paged.entries).toEqual(whole.events);
    expect(paged.pages).toBeGreaterThan(whole.events.length / 2);
    const positions = paged.entries.map((entry) => entry.position);
    expect(positions).toEqual([...new Set(positions)].sort((a, b) => a - b));
    expect(paged.entries.slice(0, 4).map((entry) => entry.type)).toEqual([
      'host_registry.host_added',
      'host.registered',
      'host_registry.host_added',
      'host.registered',
    ]);
    expect(paged.entries.filter((entry) => entry.type === 'lease.created')).toHaveLength(3);
    expect(whole.next_after).toBe(positions.at(-1));
  });

  it('filters by public type; next_after is the last position scanned, so the filtered-out tail is not scanned again', async () => {
    const whole = await page('admin', 'after=0&limit=1000');
    const created = await page('admin', 'types=lease.created,host.booked&limit=1000');
    expect(created.events.map((entry) => entry.type)).toEqual(
      whole.events.filter((entry) => ['lease.created', 'host.booked'].includes(entry.type)).map((entry) => entry.type),
    );
    expect(created.next_after).toBe(whole.next_after);
    const none = await page('admin', 'types=flavor.added');
    expect(none).toEqual({ events: [], next_after: whole.next_after });
  });

  it("shows each member its own project's lease events only, an admin everything", async () => {
    const admin = (await page('admin', 'limit=1000')).events;
    for (const [who, project] of [
      ['memberA', 'project-a'],
      ['memberB', 'project-b'],
    ] as const) {
      const own = (await readAll(who, 'limit=1')).entries;
      const ownLeases = new Set(
        admin
          .filter((entry) => entry.type === 'lease.created' && entry.data['project_id'] === project)
          .map((entry) => entry.data['lease_id']),
      );
      expect(own.length).toBeGreaterThan(0);
      expect(own).toEqual(admin.filter((entry) => ownLeases.has(entry.data['lease_id'])));
      expect(own.every((entry) => entry.actor.project_id === project)).toBe(true);
    }
    expect(await page('memberA', 'types=host.registered,host_registry.host_added')).toMatchObject({ events: [] });
  });

  it.each([
    ['types=lease.exploded', 'Malformed parameter types (unknown event type lease.exploded; docs/events.md lists them)'],
    ['types=Lease.Created', 'Malformed parameter types (must be public event types separated by commas)'],
    ['limit=0', 'Malformed parameter limit (must be 1 to 1000)'],
    ['limit=1001', 'Malformed parameter limit (must be 1 to 1000)'],
    ['limit=abc', 'Malformed parameter limit (must be 1 to 1000)'],
    ['limit=2.5', 'Malformed parameter limit (must be 1 to 1000)'],
    ['after=-1', 'Malformed parameter after (must be a log position: 0 or a positive integer)'],
    ['after=1&after=2', 'Malformed parameter after (must be given once)'],
  ])('?%s: Blazar 400', async (query, message) => {
    const response = await client().get(`/v1/events?${query}`, auth('admin'));
    expect(response.status, describeBody(response)).toBe(400);
    expect(response.body).toEqual(blazarError(400, message));
  });
});

describe('GET /v1/events (Server-Sent Events)', () => {
  it('catches up with the log, then delivers an event appended after it connected; each frame is the page entry', async () => {
    const before = await page('admin', 'limit=1000');
    const sse = await stream('admin');
    expect(sse.response.status).toBe(200);
    expect(sse.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const last = before.events.at(-1)!;
    await sse.waitFor((message) => message.id === String(last.position));
    expect(sse.messages.map((message) => [Number(message.id), message.event])).toEqual(
      before.events.map((entry) => [entry.position, entry.type]),
    );
    expect(sse.messages.map(entryOf)).toEqual(before.events);

    const lease = await leaseOf('memberA', 'feed-host-a');
    const live = await sse.waitFor(leaseCreated(lease.id));
    expect(Number(live.id)).toBeGreaterThan(last.position);
    expect(Number(live.id)).toBeLessThanOrEqual(lease.position);
    const [asPaged] = (await page('admin', `after=${Number(live.id) - 1}&limit=1`)).events;
    expect(entryOf(live)).toEqual(asPaged);
  });

  it('resumes exactly after Last-Event-ID (which wins over after): no gap, no repeat', async () => {
    const first = await stream('admin');
    const lease = await leaseOf('memberB', 'feed-host-b');
    const resumeAt = await first.waitFor(leaseCreated(lease.id));
    first.close();
    await leaseOf('memberA', 'feed-host-a');
    const missed = await leaseOf('memberB', 'feed-host-b');

    const resumed = await stream('admin', '?after=0', { 'Last-Event-ID': resumeAt.id! });
    await resumed.waitFor(leaseCreated(missed.id));
    const expected = (await page('admin', `after=${resumeAt.id!}&limit=1000`)).events;
    const received = resumed.messages.map(entryOf);
    expect(received.slice(0, expected.length)).toEqual(expected);
    expect(received[0]?.position).toBe(expected[0]?.position);
    expect(expected[0]!.position).toBeGreaterThan(Number(resumeAt.id));
  });

  it("streams a member its own project's leases only, live as in catch-up", async () => {
    const sse = await stream('memberA');
    const other = await leaseOf('memberB', 'feed-host-b');
    const own = await leaseOf('memberA', 'feed-host-a');
    await sse.waitFor(leaseCreated(own.id));
    expect(sse.messages.some(leaseCreated(other.id))).toBe(false);
    expect(sse.messages.map(entryOf).every((entry) => entry.actor.project_id === 'project-a')).toBe(true);
    expect(sse.messages.map((message) => message.event)).not.toContain('host.registered');
  });

  it('sends comment lines while idle', async () => {
    const sse = await stream('admin', '?types=flavor.removed');
    await sse.waitForComments(2);
    expect(sse.messages).toEqual([]);
  });

  it('serves a bounded number of streams (503 beyond), and a slot comes back when its client leaves', async () => {
    const streams: SseClient[] = [];
    // one at a time, each retried while the server has not yet noticed the previous tests' clients leave
    while (streams.length < MAX_STREAMS) streams.push(await openedStream());
    const refused = await fetch(`${system.url}/v1/events`, { headers: { Accept: 'text/event-stream', ...auth('admin') } });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual(blazarError(503, `This server streams events to ${MAX_STREAMS} clients at most; try again later`));
    // JSON pages are not streams: still served
    expect((await client().get('/v1/events?limit=1', auth('admin'))).status).toBe(200);

    streams[0]!.close();
    const again = await openedStream();
    const lease = await leaseOf('memberA', 'feed-host-a');
    await again.waitFor(leaseCreated(lease.id));
  });

  it('a bad Last-Event-ID or type is a 400 before any stream opens', async () => {
    const badId = await fetch(`${system.url}/v1/events`, {
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': 'abc', ...auth('admin') },
    });
    expect(badId.status).toBe(400);
    expect(await badId.json()).toEqual(
      blazarError(400, 'Malformed header Last-Event-ID (must be a log position: 0 or a positive integer)'),
    );
    const badType = await fetch(`${system.url}/v1/events?types=nope.nope`, { headers: { Accept: 'text/event-stream', ...auth('admin') } });
    expect(badType.status).toBe(400);
  });
});

describe('stopping the API', () => {
  it('ends its open streams, so the process exits instead of waiting for their clients', async () => {
    const api = await startSystem({
      apps: ['api'],
      env: tokens.env,
    });
    const sse = await SseClient.open(`${api.url}/v1/events`, auth('memberA'));
    expect(sse.response.status).toBe(200);
    // SIGTERM straight to the API (no launcher to force an exit): stop() resolves only once it has exited
    await api.stop();
    await sse.waitForEnd();
    expect(api.output()).not.toMatch(/"level":(50|60)/);
  });
});
