/**
 * The lease_stacking enforcement filter through HTTP, two API processes over one SQLite log (and over
 * one PostgreSQL database when LEASEHOLD_TEST_PG_E2E_URL is set), with Chameleon's scope (a project may
 * hold at most 2 leases at once on hosts of one node_type): the third overlapping lease is a 403 in
 * Blazar's body that names the limit, the count and the scope, and writes nothing; a lease that
 * touches the others, one on another node type and another project's pass; in each of six windows
 * eight parallel clients of one project, each on a rack of its own (no host wanted by two), get exactly
 * two leases, as a fold of the whole log and a third API process started on it agree. With the filter
 * off the same race admits all 48.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoggedEvent, hostsWith, wholeLedger } from '../helpers/api-fixtures.js';
import { type JsonResponse, api, blazarDate } from '../helpers/http.js';
import { blazarError, describeBody } from '../helpers/lease-client.js';
import { queryPostgres } from '../helpers/postgres.js';
import { type StaticAuth, staticAuth } from '../helpers/static-auth.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const IDENTITIES = {
  admin: { token: 'tok-admin', user_id: 'u-admin', project_id: 'stack-admin', roles: ['admin'] },
  memberA: { token: 'tok-member-a', user_id: 'u-a', project_id: 'project-a', roles: ['member', 'reader'] },
  memberB: { token: 'tok-member-b', user_id: 'u-b', project_id: 'project-b', roles: ['member', 'reader'] },
} as const;
type Who = keyof typeof IDENTITIES;

const LIMIT = 2;
const RACKS = 10;
const CLIENTS = 8;
const STACKING = {
  LEASEHOLD_ENFORCEMENT_FILTERS: 'lease_stacking',
  LEASEHOLD_LEASE_STACKING_MAX: String(LIMIT),
  LEASEHOLD_LEASE_STACKING_SCOPE: 'property:node_type',
};
const refusal = (count: number, from: string, project = 'project-a') =>
  `Lease stacking limit exceeded for project ${project}: overlapping leases on hosts with node_type=gpu limit ${LIMIT}, this lease would make it ${count} from ${from}`;
const REFUSAL =
  /^Lease stacking limit exceeded for project project-a: overlapping leases on hosts with node_type=gpu limit 2, this lease would make it 3 from /;

/** One reading of the clock, a day ahead: every window of the test in minutes from it. */
const BASE = Date.now() + 24 * 3_600_000;
const at = (minutes: number): string => blazarDate(minutes, BASE);
const msAt = (minutes: number): number => Date.parse(`${at(minutes).replace(' ', 'T')}:00Z`);

let tokens: StaticAuth;
const auth = (who: Who): Record<string, string> => ({ 'X-Auth-Token': IDENTITIES[who].token });

/** A system under `env` with static tokens, its hosts: racks r1..r10 of GPU nodes and c1, c2 of CPU nodes, one host each. */
const startWith = async (env: Record<string, string>, apps: readonly ('api' | 'projector')[], dataDir?: string): Promise<RunningSystem> =>
  startSystem({
    apps,
    ...(dataDir === undefined ? {} : { dataDir }),
    env: { ...tokens.env, ...env },
  });

/** Host id to node_type, as registered. */
const registerHosts = async (url: string): Promise<Map<string, string>> => {
  const nodeTypes = new Map<string, string>();
  const hosts = [
    ...Array.from({ length: RACKS }, (_, i) => ({ name: `stack-gpu-${i + 1}`, node_type: 'gpu', rack: `r${i + 1}` })),
    ...[1, 2].map((i) => ({ name: `stack-cpu-${i}`, node_type: 'cpu', rack: `c${i}` })),
  ];
  for (const host of hosts) {
    const response = await api(url).post('/v1/os-hosts', host, auth('admin'));
    expect(response.status, describeBody(response)).toBe(201);
    nodeTypes.set(response.body.host.id as string, host.node_type);
  }
  return nodeTypes;
};

const createLease = (url: string, who: Who, rack: string, from: number, to: number): Promise<JsonResponse> =>
  api(url).post(
    '/v1/leases',
    { name: `stack-${rack}-${from}`, start_date: at(from), end_date: at(to), reservations: [hostsWith('rack', rack)], events: [] },
    auth(who),
  );

const RACE_FROM = 2 * 24 * 60;
const ROUNDS = 6;
/** Round `round`'s window: 2 hours, 3 hours after the previous round's start. */
const roundFrom = (round: number): number => RACE_FROM + round * 180;

/**
 * `ROUNDS` windows, `CLIENTS` clients of project-a in each, all at once, spread over the APIs, each
 * asking a rack of its own: per window, only the project's quota stream stands between the clients.
 */
const race = async (urls: readonly string[]): Promise<JsonResponse[][]> =>
  Promise.all(
    Array.from({ length: ROUNDS }, (_, round) =>
      Promise.all(
        Array.from({ length: CLIENTS }, (_, i) =>
          createLease(urls[i % urls.length] as string, 'memberA', `r${i + 3}`, roundFrom(round), roundFrom(round) + 120),
        ),
      ),
    ),
  );

interface Held {
  readonly start: number;
  readonly end: number;
  readonly nodeTypes: ReadonlySet<string>;
}

/** project-a's standing leases, folded from the log's own events (no code shared with the filter). */
const heldInLog = (events: readonly LoggedEvent[], nodeTypes: ReadonlyMap<string, string>): Map<string, Held> => {
  const held = new Map<string, Held>();
  for (const { type, data } of events) {
    if (type === 'Lease.Created' && data.projectId === 'project-a') {
      const hostIds = (data.reservations as { hostIds?: string[] }[]).flatMap((r) => r.hostIds ?? []);
      const types = new Set(hostIds.map((id) => nodeTypes.get(id) ?? 'unknown'));
      held.set(data.leaseId, { start: Date.parse(data.startDate), end: Date.parse(data.endDate), nodeTypes: types });
    }
    if (type === 'Lease.Deleted') held.delete(data.leaseId);
  }
  return held;
};

/** The most leases on GPU nodes held at once: at some lease's start, by brute force. */
const peakOnGpu = (held: readonly Held[]): number => {
  const gpu = held.filter((h) => h.nodeTypes.has('gpu'));
  return Math.max(0, ...gpu.map((at) => gpu.filter((h) => h.start <= at.start && at.start < h.end).length));
};

beforeAll(() => {
  tokens = staticAuth(IDENTITIES);
});

afterAll(() => tokens.remove());

/** Where the verdicts run: the two APIs, the log as a replay reads it, and a third API started on that log. */
interface Setting {
  readonly urls: readonly [string, string];
  readonly nodeTypes: ReadonlyMap<string, string>;
  readonly log: () => Promise<LoggedEvent[]>;
  readonly startApi: () => Promise<RunningSystem>;
}

/** The filter's verdicts, whatever the store. */
const stackingVerdicts = (setting: () => Setting) => {
  let raced: JsonResponse[][] = [];

  it('refuses the third overlapping lease on GPU nodes with a 403 naming the limit, the count and the scope, and writes nothing', async () => {
    const { urls, log } = setting();
    expect((await createLease(urls[0], 'memberA', 'r1', 0, 240)).status).toBe(201);
    expect((await createLease(urls[1], 'memberA', 'r2', 120, 360)).status).toBe(201);
    const before = (await log()).length;
    const third = await createLease(urls[0], 'memberA', 'r3', 180, 300);
    expect(third.status, describeBody(third)).toBe(403);
    expect(third.body).toEqual(blazarError(403, refusal(3, at(180))));
    expect((await log()).length, 'a refused write must not append to the ledger').toBe(before);
    const audit = await api(urls[0]).get('/v1/audit', auth('admin'));
    const entry = (audit.body.audit as any[]).find((e) => e.request_id === third.headers.get('x-openstack-request-id'));
    expect(entry).toMatchObject({
      type: 'audit.write_refused',
      data: { operation: 'createLease', status: 403, code: 'ENFORCEMENT_LEASE_STACKING', reason: refusal(3, at(180)) },
    });
  });

  it('admits a lease that starts as the others end, one on CPU nodes, and another project on GPU nodes', async () => {
    for (const [who, rack, from, to] of [
      ['memberA', 'r4', 360, 480],
      ['memberA', 'c1', 180, 300],
      ['memberB', 'r5', 180, 300],
    ] as const) {
      const response = await createLease(setting().urls[1], who, rack, from, to);
      expect(response.status, describeBody(response)).toBe(201);
    }
  });

  it('admits exactly 2 of 8 parallel overlapping leases in each of 6 windows and refuses the others with the 403', async () => {
    raced = await race(setting().urls);
    for (const round of raced) {
      const statuses = round.map((r) => r.status).sort();
      expect(statuses, round.map(describeBody).join('\n')).toEqual([201, 201, 403, 403, 403, 403, 403, 403]);
      for (const refused of round.filter((r) => r.status === 403)) expect(refused.body.error_message).toMatch(REFUSAL);
    }
  }, 60_000);

  it('agrees on a replay: the log holds those 2 per window and never more than 2 at once, each fenced, and a third API folding it refuses a third', async () => {
    const { nodeTypes, log, startApi } = setting();
    const events = await log();
    const held = heldInLog(events, nodeTypes);
    const fenced = events.filter((e) => e.streamId === 'quota-project-a' && e.type === 'Quota.LeaseAdmitted').map((e) => e.data.leaseId);
    raced.forEach((round, i) => {
      const admitted = round.filter((r) => r.status === 201).map((r) => r.body.lease.id as string);
      const inWindow = [...held].filter(([, h]) => h.start === msAt(roundFrom(i))).map(([id]) => id);
      expect(inWindow.sort()).toEqual([...admitted].sort());
      expect(fenced).toEqual(expect.arrayContaining(admitted));
    });
    expect(peakOnGpu([...held.values()])).toBe(LIMIT);
    const third = await startApi();
    try {
      const refused = await createLease(third.url, 'memberA', 'r2', RACE_FROM + 60, RACE_FROM + 180);
      expect(refused.body).toEqual(blazarError(403, refusal(3, at(RACE_FROM + 60))));
    } finally {
      await third.stop();
    }
  }, 60_000);
};

describe('lease_stacking at most 2 leases at once per node_type, through two API processes on SQLite', () => {
  let first: RunningSystem;
  let second: RunningSystem;
  let nodeTypes: Map<string, string>;

  beforeAll(async () => {
    first = await startWith(STACKING, ['api', 'projector']);
    second = await startWith(STACKING, ['api'], first.dataDir);
    nodeTypes = await registerHosts(first.url);
  }, 60_000);

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  stackingVerdicts(() => ({
    urls: [first.url, second.url],
    nodeTypes,
    log: () => Promise.resolve(wholeLedger(first.dataDir)),
    startApi: () => startWith(STACKING, ['api'], first.dataDir),
  }));
});

const pgUrl = process.env.LEASEHOLD_TEST_PG_E2E_URL ?? '';

describe.skipIf(pgUrl === '')('lease_stacking at most 2 leases at once per node_type, through two API processes on PostgreSQL', () => {
  const database = `leasehold_stacking_${randomBytes(6).toString('hex')}`;
  const env = (db: string) => ({ ...STACKING, LEASEHOLD_EVENT_STORE_URL: db, LEASEHOLD_READ_MODEL_URL: db });
  let db: string;
  const apis: RunningSystem[] = [];
  let nodeTypes: Map<string, string>;

  beforeAll(async () => {
    await queryPostgres(pgUrl, `create database ${database}`);
    const dbUrl = new URL(pgUrl);
    dbUrl.pathname = `/${database}`;
    db = dbUrl.toString();
    apis.push(await startWith(env(db), ['api', 'projector']), await startWith(env(db), ['api']));
    nodeTypes = await registerHosts((apis[0] as RunningSystem).url);
  }, 120_000);

  afterAll(async () => {
    for (const system of apis) await system.stop();
    await queryPostgres(pgUrl, `drop database if exists ${database} with (force)`);
  });

  stackingVerdicts(() => ({
    urls: [(apis[0] as RunningSystem).url, (apis[1] as RunningSystem).url],
    nodeTypes,
    log: async () =>
      (
        await queryPostgres<{ stream_id: string; type: string; data: unknown }>(
          db,
          'select stream_id, type, data from leasehold.events order by position',
        )
      ).map((row) => ({ streamId: row.stream_id, type: row.type, data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data })),
    startApi: () => startWith(env(db), ['api']),
  }));
});

describe('the same race with the filter off', () => {
  let system: RunningSystem;

  beforeAll(async () => {
    system = await startWith({}, ['api']);
    await registerHosts(system.url);
  }, 60_000);

  afterAll(async () => system?.stop());

  it('admits all 48: the limit is the filter', async () => {
    const raced = await race([system.url]);
    expect(raced.flat().map((r) => r.status)).toEqual(Array.from({ length: ROUNDS * CLIENTS }, () => 201));
  }, 60_000);
});
