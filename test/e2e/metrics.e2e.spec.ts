/**
 * `/metrics` on each process of the built system (API, projector, reactor, publisher), scraped as
 * Prometheus would: the counts follow what happened (hosts, a lease that started, a host reported
 * down), hostile paths create no series, and the host's health shows on GET /v1/os-hosts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.js';
import { reportHostDown } from '../helpers/host-health.js';
import { type RunningSystem, eventually, freePort, startSystem } from '../helpers/system.js';
import { blazarDate } from '../helpers/http.js';
import { pinnedHost } from '../helpers/api-fixtures.js';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Prometheus' text format, the lines that are samples (labels without escaped quotes: ours have none). */
const parseSamples = (text: string): Sample[] =>
  text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      return { name: match[1] ?? '', labels, value: Number(match[3]) };
    });

const scrape = async (
  base: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; text: string }> => {
  const response = await fetch(`${base}/metrics`, { headers });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};

const value = (samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

/** Polls a scrape until the sample has the wanted value (the projector and the reactor work asynchronously). */
const until = async (base: string, name: string, labels: Record<string, string>, wanted: (v: number) => boolean): Promise<number> =>
  eventually(
    async () => {
      const found = value(parseSamples((await scrape(base)).text), name, labels);
      return found !== undefined && wanted(found) ? found : undefined;
    },
    20_000,
    `${name}${JSON.stringify(labels)}`,
  );

describe('metrics of every process', () => {
  let system: RunningSystem;
  let publisherUrl: string;
  const zone = `metrics-az-${process.pid}`;

  beforeAll(async () => {
    const publisherPort = await freePort();
    publisherUrl = `http://127.0.0.1:${publisherPort}`;
    system = await startSystem({
      env: {
        LEASEHOLD_WEBHOOKS: 'on',
        LEASEHOLD_WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
        LEASEHOLD_PUBLISHER_HEALTH_PORT: String(publisherPort),
      },
    });
    await system.healthy();
    await eventually(
      async () => ((await fetch(`${publisherUrl}/readyz`).catch(() => null))?.status === 200 ? true : undefined),
      20_000,
      'publisher ready',
    );
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('counts hosts per zone, a started lease, its reservation and the timer that started it', async () => {
    const client = api(system.url);
    const hosts = [];
    for (const name of ['m-1', 'm-2']) {
      const created = await client.post('/v1/os-hosts', { name, vcpus: 4, memory_mb: 8192, local_gb: 100, availability_zone: zone });
      expect(created.status).toBe(201);
      hosts.push(created.body.host.id as string);
    }
    await until(system.projectorHealthUrl, 'leasehold_freepool_hosts_free', { zone }, (v) => v === 2);

    const lease = await client.post('/v1/leases', {
      name: 'metrics',
      start_date: 'now',
      end_date: blazarDate(120),
      reservations: [pinnedHost('m-1')],
      events: [],
    });
    expect(lease.status).toBe(201);
    await until(system.projectorHealthUrl, 'leasehold_leases', { status: 'ACTIVE' }, (v) => v === 1);
    const projector = parseSamples((await scrape(system.projectorHealthUrl)).text);
    expect(value(projector, 'leasehold_reservations_active', { resource_type: 'physical:host' })).toBe(1);
    expect(value(projector, 'leasehold_freepool_hosts', { zone })).toBe(2);
    expect(value(projector, 'leasehold_freepool_hosts_free', { zone })).toBe(1);
    expect(value(projector, 'leasehold_freepool_hosts_free_window', { zone })).toBe(1);
    expect(value(projector, 'leasehold_hosts_down', { zone })).toBe(0);

    // the reactor ran the start once, on time or a little late, and recorded no failure
    const reactor = parseSamples((await scrape(system.reactorHealthUrl)).text);
    expect(value(reactor, 'leasehold_reactor_timer_lateness_seconds_count', { phase: 'start' })).toBe(1);
    expect(value(reactor, 'leasehold_effect_failures_total', { type: 'Lease.StartFailed' })).toBe(0);
    expect(value(reactor, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    // every projection and the webhook channel reach the head
    for (const projection of ['leases', 'hosts', 'availability']) {
      await until(system.projectorHealthUrl, 'leasehold_projector_lag_positions', { projection }, (v) => v === 0);
    }
    await until(publisherUrl, 'leasehold_publisher_lag_positions', { channel: 'webhooks' }, (v) => v === 0);
    expect(value(parseSamples((await scrape(publisherUrl)).text), 'leasehold_publisher_failing', { channel: 'webhooks' })).toBe(0);
  }, 60_000);

  it("shows a host that went down on the host and in the freepool counts, beside the operator's reservable", async () => {
    const client = api(system.url);
    const created = await client.post('/v1/os-hosts', {
      name: 'm-down',
      vcpus: 4,
      memory_mb: 8192,
      local_gb: 100,
      availability_zone: zone,
    });
    const hostId = created.body.host.id as string;
    expect(created.body.host).toMatchObject({ reservable: true, health_status: 'up', health_reasons: [], health_monitor: null });

    await reportHostDown(system.dataDir, hostId);
    const shown = await eventually(
      async () => {
        const answer = await client.get(`/v1/os-hosts/${hostId}`);
        return answer.body.host.health_status === 'down' ? answer.body.host : undefined;
      },
      20_000,
      'the host shown down',
    );
    expect(shown).toMatchObject({ reservable: true, health_reasons: ['forced_down'], health_monitor: 'polling' });
    expect(shown.health_since).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{6})?$/);
    const listed = (await client.get('/v1/os-hosts')).body.hosts.find((h: { id: string }) => h.id === hostId);
    expect(listed).toMatchObject({ health_status: 'down', health_reasons: ['forced_down'] });

    await until(system.projectorHealthUrl, 'leasehold_hosts_down', { zone }, (v) => v === 1);
    const projector = parseSamples((await scrape(system.projectorHealthUrl)).text);
    // the down host takes no bookings: not counted in the freepool
    expect(value(projector, 'leasehold_freepool_hosts', { zone })).toBe(2);
  }, 60_000);

  it('labels API requests by route template and status, never by the path sent', async () => {
    const client = api(system.url);
    const marker = `zz${process.pid}hostile`;
    expect((await client.get(`/v1/leases/${marker}-1`)).status).toBe(404);
    expect((await client.get(`/v1/${marker}/..%2f..%2fetc`)).status).toBe(404);
    expect((await client.get(`/${marker}?x=${marker}`)).status).toBe(404);
    const { status, type, text } = await scrape(system.url);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(text).not.toContain(marker);
    const samples = parseSamples(text).filter((s) => s.name === 'leasehold_http_request_duration_seconds_count');
    expect(
      value(samples, 'leasehold_http_request_duration_seconds_count', { method: 'GET', route: '/v1/leases/:leaseId', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(samples, 'leasehold_http_request_duration_seconds_count', { method: 'GET', route: 'unrouted', status: '404' }),
    ).toBeGreaterThanOrEqual(2);
    expect(
      value(samples, 'leasehold_http_request_duration_seconds_count', { method: 'POST', route: '/v1/os-hosts', status: '201' }),
    ).toBeGreaterThanOrEqual(3);
    for (const sample of samples) expect(sample.labels.route).toMatch(/^(unrouted|\/[\w/:.-]*)$/);
  });
});

describe('the freepool watch', () => {
  let system: RunningSystem;
  const zone = `watch-az-${process.pid}`;

  beforeAll(async () => {
    system = await startSystem({ env: { LEASEHOLD_FREEPOOL_WATCH_SECONDS: '1', LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS: '1' } });
    await system.healthy();
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  const recorded = async (type: string) =>
    (await api(system.url).get(`/v1/events?types=${type}`)).body.events.filter((e: { data: { zone: string } }) => e.data.zone === zone);

  it('records the exhaustion of a zone and its recovery once each, with a metric that follows', async () => {
    const client = api(system.url);
    for (const name of ['w-1', 'w-2'])
      expect((await client.post('/v1/os-hosts', { name, vcpus: 4, memory_mb: 8192, local_gb: 100, availability_zone: zone })).status).toBe(
        201,
      );
    await until(system.reactorHealthUrl, 'leasehold_freepool_exhausted', { zone }, (v) => v === 0);

    // a lease from in an hour holds both hosts inside the 24-hour window: no host stays free for all of it
    const lease = await client.post('/v1/leases', {
      name: 'watch',
      start_date: blazarDate(60),
      end_date: blazarDate(120),
      reservations: [pinnedHost('w-1'), pinnedHost('w-2')],
      events: [],
    });
    expect(lease.status).toBe(201);
    await until(system.reactorHealthUrl, 'leasehold_freepool_exhausted', { zone }, (v) => v === 1);
    const [exhausted, ...again] = await recorded('freepool.exhausted');
    expect(again).toEqual([]);
    expect(exhausted).toMatchObject({ actor: { system: 'reactor' }, data: { zone, free_hosts: 0, reservable_hosts: 2, threshold: 1 } });
    expect(Date.parse(exhausted.data.window_end) - Date.parse(exhausted.data.window_start)).toBe(86_400_000);

    expect((await client.delete(`/v1/leases/${lease.body.lease.id}`)).status).toBe(204);
    await until(system.reactorHealthUrl, 'leasehold_freepool_exhausted', { zone }, (v) => v === 0);
    const recoveries = await eventually(
      async () => {
        const found = await recorded('freepool.recovered');
        return found.length > 0 ? found : undefined;
      },
      20_000,
      'freepool.recovered',
    );
    expect(recoveries).toEqual([expect.objectContaining({ data: expect.objectContaining({ zone, free_hosts: 2, reservable_hosts: 2 }) })]);
    expect(await recorded('freepool.exhausted')).toHaveLength(1);
  }, 60_000);
});

describe('metrics access', () => {
  it('LEASEHOLD_METRICS=off removes /metrics from every process', async () => {
    const system = await startSystem({ env: { LEASEHOLD_METRICS: 'off' } });
    try {
      await system.healthy();
      for (const base of [system.url, system.projectorHealthUrl, system.reactorHealthUrl]) expect((await scrape(base)).status).toBe(404);
      expect((await fetch(`${system.projectorHealthUrl}/healthz`)).status).toBe(200);
    } finally {
      await system.stop();
    }
  }, 60_000);

  it('LEASEHOLD_METRICS_TOKEN asks every process for the bearer token', async () => {
    const system = await startSystem({ env: { LEASEHOLD_METRICS_TOKEN: 'scrape-secret' } });
    try {
      await system.healthy();
      for (const base of [system.url, system.projectorHealthUrl, system.reactorHealthUrl]) {
        expect((await scrape(base)).status).toBe(401);
        expect((await scrape(base, { Authorization: 'Bearer wrong' })).status).toBe(401);
        const allowed = await scrape(base, { Authorization: 'Bearer scrape-secret' });
        expect(allowed.status).toBe(200);
        expect(allowed.text).toContain('process_cpu_user_seconds_total');
      }
    } finally {
      await system.stop();
    }
  }, 60_000);
});
