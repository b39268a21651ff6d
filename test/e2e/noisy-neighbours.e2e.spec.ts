/**
 * The noisy-neighbour suite (issue 31; docs/operations.md, "Per-tenant limits: what a tenant sees"):
 * one project attacks the running system (launcher: api, projector, reactor, publisher; static
 * tokens) in each of the ways issue 31 lists, while another project, the victim, reads, writes,
 * streams its events and receives its webhook. For each attack the victim's requests keep p95 under
 * 100 ms and max under 500 ms, its webhook and its stream get every event of its writes within one
 * webhook timeout, the API's resident memory grows by less than RSS_GROWTH_MB, and the attacker is
 * refused where the limits refuse it. A line of figures per attack is printed, and all of them at the
 * end. The attacks are scaled to take seconds, not minutes: the limits they reach are set small below
 * (LIMITS), and each can be set from the environment under its own name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SseClient } from '../../bench/sse-client.js';
import { api, blazarDate } from '../helpers/http.js';
import { describeBody } from '../helpers/lease-client.js';
import type { AttackPlan } from '../helpers/noisy-attacks.js';
import {
  Attackers,
  type Figures,
  apiPid,
  figuresLine,
  outcomeCount,
  percentile,
  rssMb,
  settle,
  victimFigures,
  watchPeakRss,
} from '../helpers/noisy-neighbours.js';
import { Victim, VictimReceiver, deliveriesOf, streamArrivals } from '../helpers/noisy-victim.js';
import { type RunningSystem, freePort, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  'tok-admin': { user_id: 'u-admin', project_id: 'project-admin', roles: ['admin'] },
  'tok-noisy': { user_id: 'u-noisy', project_id: 'project-noisy', roles: ['member'] },
  'tok-quiet': { user_id: 'u-quiet', project_id: 'project-quiet', roles: ['member'] },
};
const ATTACKER = 'tok-noisy';
const VICTIM = 'tok-quiet';

/**
 * The limits of issue 31 as this suite runs the system: those an attack has to reach within seconds
 * are set low (streams, the init wait, the webhook timeout); the others are the agreed defaults,
 * pinned because the attacks are sized against them. The attacks and the assertions read them from
 * here, and each can be set in the environment instead. The GraphQL budgets (LEASEHOLD_GRAPHQL_MAX_COST,
 * _MAX_VALUES, _TIMEOUT_MS, _MAX_ROWS, _EXPENSIVE_COST, _EXPENSIVE_VALUES, _TENANT_EXPENSIVE) keep
 * their defaults, or what the environment sets (startSystem hands it on): no assertion reads them.
 */
const LIMITS = {
  LEASEHOLD_GRAPHQL_WS_INIT_TIMEOUT_MS: 1_500,
  LEASEHOLD_GRAPHQL_WS_MAX_INIT_BYTES: 16_384,
  LEASEHOLD_GRAPHQL_WS_MAX_MESSAGE_BYTES: 102_400,
  LEASEHOLD_GRAPHQL_WS_MAX_CONNECTIONS_PER_TENANT: 10,
  LEASEHOLD_GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS: 20,
  LEASEHOLD_GRAPHQL_WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: 20,
  LEASEHOLD_GRAPHQL_WS_MAX_SUBSCRIPTIONS_PER_TENANT: 50,
  LEASEHOLD_FEED_MAX_STREAMS: 20,
  LEASEHOLD_FEED_MAX_STREAMS_PER_TENANT: 5,
  LEASEHOLD_WEBHOOK_MAX_PER_PROJECT: 25,
  LEASEHOLD_WEBHOOK_PROJECT_CONCURRENCY: 4,
  LEASEHOLD_WEBHOOK_CONCURRENCY: 16,
  LEASEHOLD_WEBHOOK_TIMEOUT_SECONDS: 2,
};
const limit = (name: keyof typeof LIMITS): number => Number(process.env[name] ?? LIMITS[name]);

/** The requirement's bounds for every request of the victim. */
const P95_MS = 100;
const MAX_MS = 500;
/** Each event of the victim's writes reaches its webhook and its stream within one webhook timeout ("promptly"). */
const PROMPT_MS = limit('LEASEHOLD_WEBHOOK_TIMEOUT_SECONDS') * 1000;
/**
 * How much the API's resident memory may grow during an attack. Bounded work under these attacks is
 * a few MB per refused request or socket and a page of rows per admitted query; an attack that is not
 * bounded grows it by whole attack payloads (one 99 MB frame is a third of this, the cost bypass of
 * main reaches a gigabyte), while V8 may keep what it took for a while, so the bound leaves it room.
 */
const RSS_GROWTH_MB = 300;
/** How long the victim acts under each attack, and how long the API may take to recover from one. */
const VICTIM_MS = 4_000;
const SETTLE_MS = 30_000;
const ATTACK_TIMEOUT_MS = VICTIM_MS + 2 * SETTLE_MS + 20_000;
/** The attacker's leases: enough, with a few history entries each, that its GraphQL aliases do real work. */
const SEEDED_LEASES = 200;

let system: RunningSystem;
let tokensDir: string;
let attackers: Attackers;
let receiver: VictimReceiver;
let victim: Victim;
let victimStream: SseClient;
let pid: number;
const noisyLeases: string[] = [];
const quietLeases: string[] = [];
const printed: string[] = [];

const client = () => api(system.url);
const auth = (token: keyof typeof IDENTITIES): Record<string, string> => ({ 'X-Auth-Token': token });

let day = 0;
const createLease = async (token: keyof typeof IDENTITIES, name: string): Promise<string> => {
  day++;
  const body = {
    name,
    start_date: blazarDate(60 * 24 * (100 + day)),
    end_date: blazarDate(60 * 24 * (100 + day) + 60),
    reservations: [],
    events: [],
  };
  const created = await client().post('/v1/leases', body, auth(token));
  expect(created.status, describeBody(created)).toBe(201);
  return created.body.lease.id;
};

/** The attacker's leases, each created and renamed twice (three history entries), four writers at once. */
const seedAttackerLeases = async (): Promise<void> => {
  const writer = async (w: number): Promise<void> => {
    for (let n = w; n < SEEDED_LEASES; n += 4) {
      const leaseId = await createLease(ATTACKER, `noisy-${n}`);
      for (const name of [`noisy-${n}-b`, `noisy-${n}-c`]) {
        const renamed = await client().put(`/v1/leases/${leaseId}`, { name }, auth(ATTACKER));
        expect(renamed.status, describeBody(renamed)).toBe(200);
      }
      noisyLeases.push(leaseId);
    }
  };
  await Promise.all([0, 1, 2, 3].map(writer));
};

beforeAll(async () => {
  tokensDir = mkdtempSync(join(tmpdir(), 'leasehold-noisy-tokens-'));
  const tokensFile = join(tokensDir, 'tokens.json');
  writeFileSync(tokensFile, JSON.stringify(IDENTITIES));
  const limits = Object.fromEntries(Object.keys(LIMITS).map((name) => [name, String(limit(name as keyof typeof LIMITS))]));
  [system, attackers, receiver] = await Promise.all([
    startSystem({
      env: {
        LEASEHOLD_AUTH: 'static',
        LEASEHOLD_TOKENS_FILE: tokensFile,
        LEASEHOLD_WEBHOOKS: 'on',
        LEASEHOLD_WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
        LEASEHOLD_PUBLISHER_HEALTH_PORT: String(await freePort()),
        ...limits,
      },
    }),
    Attackers.build(),
    VictimReceiver.start(),
  ]);
  await system.healthy();
  pid = apiPid();
  await seedAttackerLeases();
  for (let n = 0; n < 5; n++) quietLeases.push(await createLease(VICTIM, `quiet-standing-${n}`));
  const webhook = await client().post(
    '/v1/webhooks',
    { url: receiver.url, event_types: ['*'], secret: 'quiet-secret-0123456789' },
    auth(VICTIM),
  );
  expect(webhook.status, describeBody(webhook)).toBe(201);
  victim = new Victim(system.url, VICTIM, quietLeases);
  victimStream = await victim.openStream();
  expect(victimStream.response.status).toBe(200);
}, 120_000);

afterAll(async () => {
  console.log(['noisy neighbours, all figures:', ...printed].join('\n  '));
  victimStream?.close();
  await system?.stop();
  await receiver?.close();
  attackers?.dispose();
  rmSync(tokensDir, { recursive: true, force: true });
});

/** The admin reads one of the victim's leases: a third project's probe, not counted as the victim's. */
const probe = (): Promise<unknown> => client().get(`/v1/leases/${quietLeases[0]}`, auth('tok-admin'));

/**
 * Runs one attack: waits for the API to be quiet, starts the attack, lets the victim act for
 * VICTIM_MS (after `meanwhile`, which may open more victim streams), stops the attack, waits for the
 * victim's events and for the API to settle, and prints the figures.
 */
const underAttack = async (
  name: string,
  plan: AttackPlan | null,
  meanwhile: () => Promise<readonly SseClient[]> = async () => [],
): Promise<Figures> => {
  await settle(probe, SETTLE_MS);
  const before = rssMb(pid);
  const peak = watchPeakRss(pid);
  const attack = plan === null ? null : await attackers.start(plan);
  const acting = (async () => {
    const streams = [victimStream, ...(await meanwhile())];
    return { streams, round: await victim.act(VICTIM_MS) };
  })();
  // stopped whatever happens on the victim's side: no attack runs on into the next one
  const attacker = await acting.then(
    () => attack?.stop() ?? null,
    async (error: unknown) => {
      await attack?.stop();
      throw error;
    },
  );
  const { streams, round } = await acting;
  const webhook = await deliveriesOf(round.written, () => receiver.arrivals, PROMPT_MS);
  const delivered = await Promise.all(streams.map((stream) => deliveriesOf(round.written, () => streamArrivals(stream), PROMPT_MS)));
  const highest = peak.stop();
  const settledMs = await settle(probe, SETTLE_MS).catch(() => null);
  const figures: Figures = {
    ...victimFigures(round.timed),
    webhook,
    streams: delivered,
    rss: { before, peak: highest, after: rssMb(pid) },
    attacker,
    settledMs,
  };
  const line = figuresLine(name, figures);
  printed.push(line);
  console.log(`[noisy-neighbours] ${line}`);
  return figures;
};

/** What every attack must leave the victim (soft: an attack's figures fail on every count they miss, not the first only). */
const expectVictimUnharmed = (figures: Figures): void => {
  expect.soft(figures.victim.failed, 'victim requests that failed or timed out').toBe(0);
  expect.soft(figures.victim.p95, 'victim p95 (ms)').toBeLessThan(P95_MS);
  expect.soft(figures.victim.max, 'victim max (ms)').toBeLessThan(MAX_MS);
  for (const [label, deliveries] of [['webhook', figures.webhook], ...figures.streams.map((s) => ['stream', s] as const)] as const) {
    expect.soft(deliveries.missing, `victim events missing at its ${label}`).toBe(0);
    expect.soft(percentile(deliveries.latencies, 100), `slowest victim event at its ${label} (ms)`).toBeLessThan(PROMPT_MS);
  }
  expect.soft(figures.rss.peak - figures.rss.before, 'API RSS growth (MB)').toBeLessThan(RSS_GROWTH_MB);
  expect.soft(figures.settledMs, 'the API answers quickly again once the attack stops').not.toBeNull();
};

const leasesAlias = (alias: string, first: number): string =>
  `${alias}: leases(first: ${first}) { edges { node { id history { position type } } } }`;

describe('a victim project under attack by another', { timeout: ATTACK_TIMEOUT_MS }, () => {
  it('baseline: no attacker (the bounds hold on this machine at all)', async () => {
    expectVictimUnharmed(await underAttack('baseline', null));
  });

  it('GraphQL cost bypass: a negative page size beside 300 aliases of 500 leases with their history', async () => {
    const aliases = Array.from({ length: 300 }, (_, i) => leasesAlias(`a${i}`, 500));
    const query = `{ ${leasesAlias('bypass', -100_000_000)} ${aliases.join(' ')} }`;
    const figures = await underAttack('graphql cost bypass', {
      kind: 'graphql',
      url: system.url,
      token: ATTACKER,
      query,
      connections: 1,
      once: true,
      intervalMs: 0,
    });
    expectVictimUnharmed(figures);
    // refused before it runs: an answer of 200, even with errors only, is a query that ran
    expect.soft(outcomeCount(figures.attacker, /^HTTP 200/), 'bypass queries that ran').toBe(0);
    expect.soft(outcomeCount(figures.attacker, /^HTTP 4\d\d$/), 'bypass queries refused').toBe(1);
  });

  it('GraphQL aliases: 30 aliases of 500 leases with their history, again and again from 4 clients', async () => {
    const query = `{ ${Array.from({ length: 30 }, (_, i) => leasesAlias(`a${i}`, 500)).join(' ')} }`;
    const figures = await underAttack('graphql aliases', {
      kind: 'graphql',
      url: system.url,
      token: ATTACKER,
      query,
      connections: 4,
      once: false,
      intervalMs: 250,
    });
    expectVictimUnharmed(figures);
    expect
      .soft(outcomeCount(figures.attacker, /^HTTP (400|429)$/), "alias queries refused (too costly, or over the project's share)")
      .toBeGreaterThan(0);
    expect.soft(outcomeCount(figures.attacker, /^HTTP 5|^no answer/), 'alias queries failed otherwise').toBe(0);
  });

  it('subscription fan-out: 600 leaseEvents subscriptions over 3 sockets on a lease renamed in a loop', async () => {
    const figures = await underAttack('subscription fan-out', {
      kind: 'subscriptions',
      url: system.url,
      token: ATTACKER,
      leaseId: noisyLeases[0] as string,
      sockets: 3,
      subscriptions: 600,
      renameIntervalMs: 20,
    });
    expectVictimUnharmed(figures);
    expect
      .soft(outcomeCount(figures.attacker, /^subscriptions live$/), 'subscriptions the attacker holds')
      .toBeLessThanOrEqual(limit('LEASEHOLD_GRAPHQL_WS_MAX_SUBSCRIPTIONS_PER_TENANT'));
  });

  it('websockets: 99 MB first messages before connection_init, and sockets that never send it', async () => {
    const figures = await underAttack('websocket 99 MB + silent', {
      kind: 'websockets',
      url: system.url,
      bigMessages: 4,
      bigMessageBytes: 99 * 1024 * 1024,
      silentSockets: 10,
    });
    expectVictimUnharmed(figures);
    expect.soft(outcomeCount(figures.attacker, /^big close 1009$/), '99 MB messages refused as too big (1009)').toBe(4);
    expect.soft(outcomeCount(figures.attacker, /^silent close /), 'silent sockets closed by the server').toBe(10);
    expect
      .soft(outcomeCount(figures.attacker, /^silent open for ms/), 'the longest a silent socket stayed open (ms)')
      .toBeLessThan(limit('LEASEHOLD_GRAPHQL_WS_INIT_TIMEOUT_MS') + 1_000);
  });

  it('webhooks: 100 webhooks to a receiver that answers slower than the timeout, and a stream of events', async () => {
    const figures = await underAttack('webhooks to a slow receiver', {
      kind: 'webhooks',
      url: system.url,
      token: ATTACKER,
      leaseId: noisyLeases[1] as string,
      webhooks: 100,
      receiverDelayMs: 3 * PROMPT_MS,
      writeIntervalMs: 100,
    });
    expectVictimUnharmed(figures);
    expect
      .soft(outcomeCount(figures.attacker, /^register HTTP 201$/), 'webhooks the attacker registered')
      .toBeLessThanOrEqual(limit('LEASEHOLD_WEBHOOK_MAX_PER_PROJECT'));
    expect.soft(outcomeCount(figures.attacker, /^register HTTP (403|409)$/), 'registrations refused').toBeGreaterThan(0);
  });

  it('event streams: the attacker asks for as many streams as the server serves; the victim still opens one', async () => {
    const streams: SseClient[] = [];
    const figures = await underAttack(
      'event streams',
      { kind: 'sse', url: system.url, token: ATTACKER, streams: limit('LEASEHOLD_FEED_MAX_STREAMS') },
      async () => {
        const stream = await victim.openStream();
        streams.push(stream);
        return stream.response.status === 200 ? [stream] : [];
      },
    );
    streams.forEach((stream) => stream.close());
    expectVictimUnharmed(figures);
    expect.soft(streams[0]?.response.status, "the victim's stream opened during the attack").toBe(200);
    expect
      .soft(outcomeCount(figures.attacker, /^stream HTTP 200$/), 'streams the attacker holds')
      .toBeLessThanOrEqual(limit('LEASEHOLD_FEED_MAX_STREAMS_PER_TENANT'));
  });

  it('slow headers: 200 requests whose headers never end, one byte a second', async () => {
    const figures = await underAttack('slow headers', { kind: 'slow-headers', url: system.url, sockets: 200, byteIntervalMs: 1_000 });
    expectVictimUnharmed(figures);
  });

  it('large bodies: 10 MB bodies to POST /v1/leases and /graphql, with and without a length, from 2 clients in a loop', async () => {
    const figures = await underAttack('large bodies', {
      kind: 'large-bodies',
      url: system.url,
      token: ATTACKER,
      connections: 2,
      bodyBytes: 10 * 1024 * 1024,
      intervalMs: 200,
    });
    expectVictimUnharmed(figures);
    expect.soft(outcomeCount(figures.attacker, /^HTTP 413$/), 'bodies refused as too large').toBeGreaterThan(0);
    expect.soft(outcomeCount(figures.attacker, /^HTTP [235]/), 'bodies accepted or failing otherwise').toBe(0);
  });
});
