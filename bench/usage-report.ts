import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppendRequest, EventMetadata } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { type Call, launch, percentile } from './bench-http.js';

/**
 * GET /v1/usage over a ledger of 100,000 leases (target: p50 under 1 s through the API). The ledger
 * is written straight into events.sqlite (creating 100,000 leases through the API would take most
 * of an hour): 1,000 hosts, 100 projects, leases of 1 to 48 hours over 2025 (80 % whole hosts,
 * 10 % three instance slots, 10 % one floating IP), each created, started and ended as the reactor
 * records it. The API alone is then started on it and asked for reports.
 */
const LEASES = Number(process.env.BENCH_USAGE_LEASES ?? 100_000);
const HOSTS = 1000;
const PROJECTS = 100;
const BATCH = 500;
const YEAR_START = Date.parse('2025-01-01T00:00:00.000Z');
const META: EventMetadata = { correlationId: 'bench', causationId: 'bench', actor: null, system: 'bench' };

/** A fixed pseudo-random sequence (the same ledger every run). */
const sequence = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};

const iso = (ms: number): string => new Date(ms).toISOString();

let eventId = 0;
const envelope = (type: string, data: unknown) => ({ id: `bench-${++eventId}`, type, data, metadata: META });

const hostInfo = (i: number) => ({
  hypervisorHostname: `bench-host-${i}`,
  serviceName: `bench-host-${i}`,
  vcpus: 48,
  memoryMb: 196_608,
  localGb: 900,
  cpuInfo: '',
  hypervisorType: 'QEMU',
  hypervisorVersion: 1,
  availabilityZone: 'nova',
});

const reservationOf = (kind: number, id: string, hostId: string) => {
  if (kind < 0.8)
    return {
      id,
      resourceId: `r-${id}`,
      resourceType: 'physical:host',
      min: 1,
      max: 1,
      hypervisorProperties: '',
      resourceProperties: '',
      beforeEnd: 'default',
      hostIds: [hostId],
    };
  if (kind < 0.9) {
    return {
      id,
      resourceId: `r-${id}`,
      resourceType: 'virtual:instance',
      amount: 3,
      vcpus: 2,
      memoryMb: 4096,
      diskGb: 20,
      affinity: null,
      resourceProperties: '',
      allocations: [{ hostId, count: 3 }],
    };
  }
  return {
    id,
    resourceId: `r-${id}`,
    resourceType: 'virtual:floatingip',
    networkId: 'net',
    amount: 1,
    requiredFloatingIps: [],
    allocations: [{ floatingIpId: `fip-${hostId}`, address: `10.0.${Math.floor(Number(hostId) / 250)}.${Number(hostId) % 250}` }],
  };
};

const leaseAppend = (i: number, random: () => number): AppendRequest => {
  const leaseId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const hostId = String(1 + Math.floor(random() * HOSTS));
  const start = YEAR_START + Math.floor(random() * 364 * 24) * 3_600_000;
  const end = start + (1 + Math.floor(random() * 48)) * 3_600_000;
  const reservation = reservationOf(random(), `res-${i}`, hostId);
  const startedAt = start + Math.floor(random() * 90_000);
  return {
    streamId: `lease-${leaseId}`,
    expectedRevision: 'no_stream',
    events: [
      envelope('Lease.Created', {
        leaseId,
        name: `bench-${i}`,
        projectId: `project-${i % PROJECTS}`,
        userId: 'bench',
        trustId: null,
        startDate: iso(start),
        endDate: iso(end),
        beforeEndDate: null,
        reservations: [reservation],
        eventIds: { start: `s-${i}`, end: `e-${i}`, beforeEnd: `b-${i}` },
        createdAt: iso(start - 86_400_000),
      }),
      envelope('Lease.StartRequested', { leaseId, at: iso(start) }),
      envelope('Lease.Started', { leaseId, at: iso(startedAt) }),
      envelope('Lease.EndRequested', { leaseId, at: iso(end), reason: 'scheduled' }),
      envelope('Lease.Ended', { leaseId, at: iso(end + 500) }),
    ],
  };
};

/** Writes the ledger of `leases` leases into the folder's events.sqlite; the seconds it took. */
export const writeLedger = async (dataDir: string, leases = LEASES): Promise<number> => {
  const started = performance.now();
  const store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  try {
    const hosts = Array.from({ length: HOSTS }, (_, i) => ({
      streamId: `host-${i + 1}`,
      expectedRevision: 'no_stream' as const,
      events: [
        envelope('Host.Registered', {
          hostId: String(i + 1),
          info: hostInfo(i + 1),
          capabilities: { node_type: i % 10 === 0 ? 'gpu' : 'compute' },
          registeredAt: iso(YEAR_START - 86_400_000),
        }),
      ],
    }));
    await store.appendMultiple(hosts);
    const random = sequence(42);
    for (let from = 0; from < leases; from += BATCH) {
      await store.appendMultiple(Array.from({ length: Math.min(BATCH, leases - from) }, (_, k) => leaseAppend(from + k, random)));
    }
  } finally {
    await store.close();
  }
  return (performance.now() - started) / 1000;
};

const timed = async (
  call: Call,
  path: string,
  runs: number,
): Promise<{ p50: number; p95: number; first: number; bytes: number; lines: number }> => {
  const times: number[] = [];
  let bytes = 0;
  let lines = 0;
  for (let i = 0; i < runs; i++) {
    const result = await call('GET', path);
    if (result.status !== 200) throw new Error(`${path}: ${result.status} ${JSON.stringify(result.body)}`);
    times.push(result.ms);
    bytes = JSON.stringify(result.body).length;
    lines = result.body.usage.lines.length;
  }
  return {
    first: +(times[0] ?? NaN).toFixed(1),
    p50: +percentile(times.slice(1), 50).toFixed(1),
    p95: +percentile(times.slice(1), 95).toFixed(1),
    bytes,
    lines,
  };
};

const RATE_CARD = {
  currency: 'EUR',
  effective_from: '2024-01-01 00:00',
  prices: { host_hours: '1.2', vcpu_hours: '0.01', floating_ip_hours: '0.005' },
  capability_prices: [{ capability: 'node_type', value: 'gpu', prices: { host_hours: '3.5' } }],
};

export const runUsageBench = async (port: number) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-usage-'));
  try {
    const ledgerSeconds = await writeLedger(dataDir);
    const booted = performance.now();
    const system = await launch(port, dataDir, {}, 'apps/api/src/main.js');
    const startupSeconds = (performance.now() - booted) / 1000;
    try {
      const put = await system.call('PUT', '/v1/rate-cards/bench', RATE_CARD);
      if (put.status !== 200) throw new Error(`rate card: ${put.status} ${JSON.stringify(put.body)}`);
      const year = 'start=2025-01-01%2000:00&end=2026-01-01%2000:00';
      return {
        usage_leases: LEASES,
        usage_ledger_write_s: +ledgerSeconds.toFixed(1),
        usage_api_start_s: +startupSeconds.toFixed(1),
        by_project: await timed(system.call, `/v1/usage?${year}`, 21),
        by_project_rated: await timed(system.call, `/v1/usage?${year}&rate_card=bench`, 21),
        by_resource_rated: await timed(system.call, `/v1/usage?${year}&group_by=resource&rate_card=bench`, 11),
        one_project: await timed(system.call, `/v1/usage?${year}&project_id=project-7&group_by=lease`, 21),
        by_lease_all: await timed(system.call, `/v1/usage?${year}&group_by=lease`, 6),
      };
    } finally {
      await system.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export type UsageFigures = Awaited<ReturnType<typeof runUsageBench>>;

export const usageRows = (figures: UsageFigures): string[] => {
  const row = (what: string, f: UsageFigures['by_project']) =>
    `| usage, ${figures.usage_leases} leases: ${what} (${f.lines} lines) p50 / p95 (first) | ${f.p50} ms / ${f.p95} ms (${f.first} ms) | no such route |`;
  return [
    row('all projects by project', figures.by_project),
    row('same, rated', figures.by_project_rated),
    row('by resource, rated', figures.by_resource_rated),
    row('one project by lease', figures.one_project),
    row('all projects by lease', figures.by_lease_all),
  ];
};
