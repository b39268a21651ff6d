/**
 * Per-project quotas enforced inside the ledger's consistency boundary: sixteen parallel clients of
 * one project over two API processes never take it past its limit of hosts held at once, as the
 * API's allocations show and as a fold of the whole log shows (on SQLite; on PostgreSQL too when
 * LEASEHOLD_TEST_PG_E2E_URL is set). Then the 403's body, its audit entry, updates, the settings'
 * validation, the default from configuration, and the metric.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerCount } from '../helpers/api-fixtures.js';
import { type JsonResponse, api, blazarDate, hostReservation } from '../helpers/http.js';
import { queryPostgres } from '../helpers/postgres.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const PROJECT = 'leasehold-admin-project';
const LIMIT = 5;
const CLIENTS = 16;
const LEASES_PER_CLIENT = 5;
const HOSTS = 24;
const REFUSAL = new RegExp(`^Quota exceeded for project ${PROJECT}: hosts held at once limit ${LIMIT}, this lease would make it (\\d+)$`);
/** Every project's default: the test sets hosts for its project and reads this one back after a null. */
const DEFAULTS = { LEASEHOLD_QUOTA_DEFAULT_FLOATING_IPS: '3' };

interface LoggedEvent {
  readonly streamId: string;
  readonly type: string;
  readonly data: any;
}

interface Span {
  readonly start: number;
  readonly end: number;
  readonly hosts: number;
}

/** The most hosts held at once: at some span's start, by brute force (no code shared with the admission). */
const peakOf = (spans: readonly Span[]): number =>
  Math.max(0, ...spans.map((at) => spans.filter((s) => s.start <= at.start && at.start < s.end).reduce((n, s) => n + s.hosts, 0)));

/** Every lease of the project the log leaves standing, with its hosts, folded from its own events. */
const spansInLog = (events: readonly LoggedEvent[]): Map<string, Span> => {
  const leases = new Map<string, Span>();
  for (const { type, data } of events) {
    if (type === 'Lease.Created' && data.projectId === PROJECT) {
      const hosts = (data.reservations as { hostIds?: string[] }[]).reduce((n, r) => n + (r.hostIds?.length ?? 0), 0);
      leases.set(data.leaseId, { start: Date.parse(data.startDate), end: Date.parse(data.endDate), hosts });
    }
    if (type === 'Lease.Deleted') leases.delete(data.leaseId);
  }
  return leases;
};

interface Race {
  readonly accepted: Map<string, number>;
  readonly refusals: JsonResponse[];
}

/**
 * Sixteen clients spread over the APIs, each asking for leases of 1 or 2 hosts in overlapping 2-hour
 * windows, round after round. Each API's clients take hosts of their own side: no two processes compete for one host's
 * calendar, so only the project's quota stream stands between them and a limit passed together.
 */
const race = async (urls: readonly string[]): Promise<Race> => {
  const accepted = new Map<string, number>();
  const refusals: JsonResponse[] = [];
  const clients = Array.from({ length: CLIENTS }, (_, client) =>
    (async () => {
      const http = api(urls[client % urls.length] as string);
      const side = `["=", "$side", "${client % urls.length}"]`;
      for (let i = 0; i < LEASES_PER_CLIENT; i++) {
        // each round a window of its own, every client in it at once: the limit is reached anew each round
        const start = 24 * 60 + i * 180 + (client % 3) * 30;
        const hosts = 1 + ((client + i) % 2);
        const response = await http.post('/v1/leases', {
          name: `quota-${client}-${i}`,
          start_date: blazarDate(start),
          end_date: blazarDate(start + 120),
          reservations: [hostReservation(hosts, hosts, { resource_properties: side })],
        });
        if (response.status === 201) accepted.set(response.body.lease.id, hosts);
        else if (response.status === 403) refusals.push(response);
        else throw new Error(`unexpected ${response.status}: ${JSON.stringify(response.body)}`);
      }
    })(),
  );
  await Promise.all(clients);
  return { accepted, refusals };
};

/** The race's verdicts, whatever the store: every refusal a quota 403, and no instant past the limit, through the API and in the log. */
const raceVerdicts = (
  setting: () => { readonly urls: readonly string[]; readonly result: Race; readonly log: () => Promise<LoggedEvent[]> },
) => {
  it('admits some and refuses the others with a 403 naming the quota, its limit and what the lease would have made it', () => {
    const { result } = setting();
    expect(result.accepted.size + result.refusals.length).toBe(CLIENTS * LEASES_PER_CLIENT);
    expect(result.accepted.size).toBeGreaterThan(0);
    expect(result.refusals.length).toBeGreaterThan(0);
    for (const refusal of result.refusals) {
      expect(refusal.body).toMatchObject({ error_code: 403, error_name: 403 });
      const match = REFUSAL.exec(refusal.body.error_message);
      expect(match, refusal.body.error_message).not.toBeNull();
      expect(Number(match?.[1])).toBeGreaterThan(LIMIT);
    }
  });

  it('never holds more hosts at once than the limit, as every API shows (allocations and the quota)', async () => {
    const { urls, result } = setting();
    const booked = [...result.accepted.values()].reduce((n, hosts) => n + hosts, 0);
    for (const url of urls) {
      const quota = await api(url).get(`/v1/quotas/${PROJECT}`);
      expect(quota.status).toBe(200);
      expect(quota.body.quota.limits.hosts).toBe(LIMIT);
      expect(quota.body.quota.peak_usage.hosts).toBeLessThanOrEqual(LIMIT);
    }
    const spans = await eventually(
      async () => {
        const { body } = await api(urls[0] as string).get('/v1/os-hosts/allocations');
        const all: Span[] = body.allocations.flatMap((a: { reservations: { start_date: string; end_date: string }[] }) =>
          a.reservations.map((r) => ({ start: Date.parse(`${r.start_date}Z`), end: Date.parse(`${r.end_date}Z`), hosts: 1 })),
        );
        return all.length === booked ? all : undefined;
      },
      20_000,
      'every admitted host allocation projected',
    );
    expect(peakOf(spans)).toBeLessThanOrEqual(LIMIT);
    expect((await api(urls[0] as string).get(`/v1/quotas/${PROJECT}`)).body.quota.peak_usage.hosts).toBe(peakOf(spans));
  });

  it('never holds more hosts at once than the limit when the whole log is replayed, and fenced every admission', async () => {
    const { result, log } = setting();
    const events = await log();
    const leases = spansInLog(events);
    expect([...leases.keys()].sort()).toEqual([...result.accepted.keys()].sort());
    expect(peakOf([...leases.values()])).toBeLessThanOrEqual(LIMIT);
    const fenced = events.filter((e) => e.streamId === `quota-${PROJECT}` && e.type === 'Quota.LeaseAdmitted').map((e) => e.data.leaseId);
    expect(fenced.sort()).toEqual([...result.accepted.keys()].sort());
  });
};

const registerHosts = async (url: string, sides: number): Promise<void> => {
  for (let i = 1; i <= HOSTS; i++)
    expect((await api(url).post('/v1/os-hosts', { name: `quota-${i}`, side: String(i % sides) })).status).toBe(201);
};

const setHostLimit = async (url: string): Promise<void> => {
  const set = await api(url).put(`/v1/quotas/${PROJECT}`, { hosts: LIMIT });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
};

describe('16 parallel clients of one project under a quota of 5 hosts, through two API processes on SQLite', () => {
  let first: RunningSystem;
  let second: RunningSystem;
  let result: Race;

  const sqliteLog = async (): Promise<LoggedEvent[]> => {
    const db = new Database(join(first.dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('select stream_id, type, data from events order by position').all() as {
        stream_id: string;
        type: string;
        data: string;
      }[];
      return rows.map((row) => ({ streamId: row.stream_id, type: row.type, data: JSON.parse(row.data) }));
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    first = await startSystem({ apps: ['api', 'projector'], env: DEFAULTS });
    second = await startSystem({ apps: ['api'], dataDir: first.dataDir, env: DEFAULTS });
    await registerHosts(first.url, 2);
    await setHostLimit(second.url);
    result = await race([first.url, second.url]);
  }, 120_000);

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  raceVerdicts(() => ({ urls: [first.url, second.url], result, log: sqliteLog }));

  it('audits a quota refusal as the other refused writes', async () => {
    const { body } = await api(first.url).get('/v1/audit');
    const entry = (body.audit as any[]).find((e) => e.data.code === 'QUOTA_EXCEEDED');
    expect(entry).toMatchObject({
      type: 'audit.write_refused',
      data: { operation: 'createLease', method: 'POST', path: '/v1/leases', status: 403 },
    });
    expect(entry.data.reason).toMatch(REFUSAL);
  });

  it('checks an update too: a lease grown past the limit is refused and stays as it was', async () => {
    const client = api(first.url);
    const created = await client.post('/v1/leases', {
      name: 'quota-grow',
      start_date: blazarDate(60 * 24 * 20),
      end_date: blazarDate(60 * 24 * 20 + 60),
      reservations: [hostReservation(1, 1)],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const reservationId = created.body.lease.reservations[0].id;
    const before = ledgerCount(first.dataDir);
    const grown = await client.put(`/v1/leases/${created.body.lease.id}`, {
      reservations: [{ id: reservationId, min: LIMIT + 1, max: LIMIT + 1 }],
    });
    expect(grown.status).toBe(403);
    expect(grown.body).toEqual({
      error_code: 403,
      error_message: `Quota exceeded for project ${PROJECT}: hosts held at once limit ${LIMIT}, this lease would make it ${LIMIT + 1}`,
      error_name: 403,
    });
    expect(ledgerCount(first.dataDir)).toBe(before);
    const within = await client.put(`/v1/leases/${created.body.lease.id}`, {
      reservations: [{ id: reservationId, min: LIMIT, max: LIMIT }],
    });
    expect(within.status, JSON.stringify(within.body)).toBe(200);
  });

  it.each([[{ hosts: -1 }], [{ hosts: 1.5 }], [{ hosts: '3' }], [{ cores: 3 }], [{}], [[1]], [{ hosts: 1e12 }]])(
    'refuses %j with 400 and writes nothing',
    async (body) => {
      const before = ledgerCount(first.dataDir);
      const reply = await api(first.url).put(`/v1/quotas/${PROJECT}`, body);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ error_code: 400, error_name: 400 });
      expect(ledgerCount(first.dataDir)).toBe(before);
    },
  );

  it('clears a limit back to the configured default with null', async () => {
    const client = api(first.url);
    const own = await client.put(`/v1/quotas/${PROJECT}`, { floating_ips: 7 });
    expect(own.body.quota).toMatchObject({ limits: { floating_ips: 7, hosts: LIMIT }, project_limits: { floating_ips: 7, hosts: LIMIT } });
    const cleared = await client.put(`/v1/quotas/${PROJECT}`, { floating_ips: null });
    expect(cleared.body.quota).toMatchObject({
      limits: { floating_ips: 3, hosts: LIMIT, vcpus: null },
      project_limits: { floating_ips: null, hosts: LIMIT },
    });
    expect((await client.get('/v1/quotas/another-project')).body.quota.limits).toEqual({
      hosts: null,
      vcpus: null,
      memory_mb: null,
      floating_ips: 3,
      networks: null,
      host_hours_per_month: null,
      vcpu_hours_per_month: null,
    });
  });

  it('exports each project use and limit as a metric', async () => {
    const response = await fetch(`${first.url}/metrics`);
    const text = await response.text();
    expect(text).toContain(`leasehold_quota_limit{project_id="${PROJECT}",quota="hosts"} ${LIMIT}`);
    expect(text).toMatch(new RegExp(`leasehold_quota_use\\{project_id="${PROJECT}",quota="host_hours_per_month"\\} \\d`));
  });
});

const pgUrl = process.env.LEASEHOLD_TEST_PG_E2E_URL ?? '';

describe.skipIf(pgUrl === '')(
  '16 parallel clients of one project under a quota of 5 hosts, through two API processes on PostgreSQL',
  () => {
    const database = `leasehold_quota_${randomBytes(6).toString('hex')}`;
    let db: string;
    const apis: RunningSystem[] = [];
    let projector: RunningSystem | undefined;
    let result: Race;

    const pgLog = async (): Promise<LoggedEvent[]> =>
      (
        await queryPostgres<{ stream_id: string; type: string; data: string }>(
          db,
          'select stream_id, type, data from leasehold.events order by position',
        )
      ).map((row) => ({
        streamId: row.stream_id,
        type: row.type,
        data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data,
      }));

    beforeAll(async () => {
      await queryPostgres(pgUrl, `create database ${database}`);
      const dbUrl = new URL(pgUrl);
      dbUrl.pathname = `/${database}`;
      db = dbUrl.toString();
      const env = { ...DEFAULTS, LEASEHOLD_EVENT_STORE_URL: db, LEASEHOLD_READ_MODEL_URL: db };
      apis.push(await startSystem({ apps: ['api'], env }));
      projector = await startSystem({ apps: ['projector'], env });
      apis.push(await startSystem({ apps: ['api'], env }));
      await registerHosts((apis[0] as RunningSystem).url, 2);
      await setHostLimit((apis[1] as RunningSystem).url);
      result = await race(apis.map((system) => system.url));
    }, 180_000);

    afterAll(async () => {
      for (const system of [...apis, projector]) await system?.stop();
      await queryPostgres(pgUrl, `drop database if exists ${database} with (force)`);
    });

    raceVerdicts(() => ({ urls: apis.map((system) => system.url), result, log: pgLog }));
  },
);
