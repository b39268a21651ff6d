import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LedgerShape, writeAvailabilityLedger } from './availability-ledger.js';
import { type ListFigures, listRows, measureLists } from './list-latency.js';
import { type Call, blazarDate, launch, percentile } from './bench-http.js';
import { type CapacityFigures, capacityRows, measureCapacity } from './capacity-report.js';

/**
 * Availability query latency on a large calendar: 2,000 hosts (one in five with a GPU) and 20,000
 * lease requests (one host each, one in twenty three hosts) spread over 60 days, written through the application layer
 * (./availability-ledger.ts), then the API alone started on that log and asked POST and GET
 * /v1/availability for requests from easy (one host) to hard (200 hosts at once, a mixed request).
 * Calendars and queries come from a seeded generator, so every run asks the same questions of the
 * same calendar. `node dist/bench/availability-query.js` runs it alone.
 */
export const LEDGER: LedgerShape = { hosts: 2000, leases: 20_000, days: 60 };
const QUERIES_PER_KIND = 40;
const DAY = 24 * 3600_000;

/** mulberry32: a small seeded generator, so the bench is the same on every run. */
export const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const hosts = (min: number, gpu: boolean) => ({
  resource_type: 'physical:host',
  min,
  max: min,
  hypervisor_properties: '',
  resource_properties: gpu ? '["=", "$gpu", "true"]' : '',
});

/** The request kinds timed, each asked QUERIES_PER_KIND times from a random day of the 60. */
const KINDS: Readonly<Record<string, (notBefore: string) => readonly [string, string, unknown?]>> = {
  'one host, 1 day (GET)': (notBefore) => [
    'GET',
    `/v1/availability?resource_type=physical:host&min=1&max=1&duration=P1D&not_before=${encodeURIComponent(notBefore)}`,
  ],
  '10 GPU hosts, 3 days': (notBefore) => [
    'POST',
    '/v1/availability',
    { reservations: [hosts(10, true)], duration: 'P3D', not_before: notBefore },
  ],
  '200 hosts, 1 week': (notBefore) => [
    'POST',
    '/v1/availability',
    { reservations: [hosts(200, false)], duration: 'P7D', not_before: notBefore },
  ],
  'mixed: 2 GPU hosts + 8 instances apart, 12 h': (notBefore) => [
    'POST',
    '/v1/availability',
    {
      reservations: [
        hosts(2, true),
        { resource_type: 'virtual:instance', amount: 8, vcpus: 1, memory_mb: 512, disk_gb: 1, affinity: false },
      ],
      duration: 720,
      not_before: notBefore,
    },
  ],
};

export interface AvailabilityFigures {
  readonly hosts: number;
  readonly leases_accepted: number;
  readonly build_seconds: number;
  readonly queries: Readonly<Record<string, { readonly p50_ms: number; readonly p95_ms: number; readonly windows: number }>>;
  readonly all_p50_ms: number;
  readonly all_p95_ms: number;
  /** The capacity report on the same calendar (./capacity-report.ts). */
  readonly capacity: CapacityFigures;
  /** Lists of the same calendar, once the projector caught up (./list-latency.ts). */
  readonly lists: ListFigures;
}

const measure = async (
  call: Call,
  random: () => number,
  t0: number,
): Promise<Pick<AvailabilityFigures, 'queries' | 'all_p50_ms' | 'all_p95_ms'>> => {
  const queries: Record<string, { p50_ms: number; p95_ms: number; windows: number }> = {};
  const all: number[] = [];
  for (const [kind, ask] of Object.entries(KINDS)) {
    const times: number[] = [];
    let windows = 0;
    for (let i = 0; i < QUERIES_PER_KIND; i++) {
      const [method, path, body] = ask(blazarDate(t0 + Math.floor(random() * 60) * DAY));
      const result = await call(method, path, body);
      if (result.status !== 200) throw new Error(`${kind}: ${result.status} ${JSON.stringify(result.body)}`);
      windows += result.body.windows.length;
      times.push(result.ms);
    }
    all.push(...times);
    queries[kind] = { p50_ms: +percentile(times, 50).toFixed(1), p95_ms: +percentile(times, 95).toFixed(1), windows };
  }
  return { queries, all_p50_ms: +percentile(all, 50).toFixed(1), all_p95_ms: +percentile(all, 95).toFixed(1) };
};

/** The first answer folds the whole log into the API's calendars: asked once, untimed. */
const warmUp = async (call: Call, t0: number): Promise<void> => {
  const [method, path, body] = (KINDS['one host, 1 day (GET)'] as (notBefore: string) => readonly [string, string, unknown?])(
    blazarDate(t0),
  );
  const result = await call(method, path, body);
  if (result.status !== 200) throw new Error(`warm-up: ${result.status} ${JSON.stringify(result.body)}`);
};

export const runAvailabilityBench = async (port: number): Promise<AvailabilityFigures> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-availability-'));
  try {
    const random = seeded(20261126);
    const t0 = Math.ceil(Date.now() / DAY) * DAY + DAY;
    const { accepted, seconds } = await writeAvailabilityLedger(dataDir, LEDGER, random, t0);
    const system = await launch(port, dataDir, {}, 'apps/api/src/main.js');
    try {
      await warmUp(system.call, t0);
      const queries = await measure(system.call, random, t0);
      const capacity = await measureCapacity(system.call, t0);
      return {
        hosts: LEDGER.hosts,
        leases_accepted: accepted,
        build_seconds: +seconds.toFixed(1),
        ...queries,
        capacity,
        lists: await measureLists(system.call, dataDir),
      };
    } finally {
      await system.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export const availabilityRows = (figures: Omit<AvailabilityFigures, 'capacity' | 'lists'>): string[] => [
  `| availability queries (${figures.hosts} hosts, ${figures.leases_accepted} leases) p50 / p95 | ${figures.all_p50_ms} ms / ${figures.all_p95_ms} ms | not offered |`,
  ...Object.entries(figures.queries).map(([kind, q]) => `| availability: ${kind} p50 / p95 | ${q.p50_ms} ms / ${q.p95_ms} ms | |`),
];

if (process.argv[1]?.endsWith('availability-query.js')) {
  runAvailabilityBench(Number(process.env.BENCH_PORT ?? 62240))
    .then((figures) => {
      console.log(JSON.stringify(figures, null, 2));
      for (const row of [...availabilityRows(figures), ...capacityRows(figures.capacity), ...listRows(figures.lists)]) console.log(row);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
