import { type Call, blazarDate, percentile } from './bench-http.js';

/**
 * GET /v1/capacity over 30 days in 1-hour steps (720 steps, two availability zones, failure domains by
 * rack) on the availability bench's calendar of 2,000 hosts and 20,000 lease requests (target: under
 * 200 ms through the API). Run by ./availability-query.ts on the system it launched.
 */
const RUNS = 21;
const DAYS = 30;
const DAY = 24 * 3600_000;

export interface CapacityFigures {
  readonly steps: number;
  readonly first_ms: number;
  readonly p50_ms: number;
  readonly p95_ms: number;
  readonly bytes: number;
  readonly leases_listed: number;
}

export const measureCapacity = async (call: Call, t0: number): Promise<CapacityFigures> => {
  const query = new URLSearchParams({ start: blazarDate(t0), end: blazarDate(t0 + DAYS * DAY), step: 'PT1H', failure_domain: 'rack' });
  const times: number[] = [];
  let body: { capacity: { pools: { steps: unknown[] }[]; leases: unknown[] } } | null = null;
  for (let i = 0; i < RUNS; i++) {
    const result = await call('GET', `/v1/capacity?${query.toString()}`);
    if (result.status !== 200) throw new Error(`capacity: ${result.status} ${JSON.stringify(result.body)}`);
    times.push(result.ms);
    body = result.body;
  }
  const rest = times.slice(1);
  return {
    steps: body?.capacity.pools[0]?.steps.length ?? 0,
    first_ms: +(times[0] ?? NaN).toFixed(1),
    p50_ms: +percentile(rest, 50).toFixed(1),
    p95_ms: +percentile(rest, 95).toFixed(1),
    bytes: JSON.stringify(body).length,
    leases_listed: body?.capacity.leases.length ?? 0,
  };
};

export const capacityRows = (figures: CapacityFigures): string[] => [
  `| capacity report, ${DAYS} days in ${figures.steps} 1-hour steps, failure domains (2,000 hosts, 20,000 leases) p50 / p95 | ${figures.p50_ms} ms / ${figures.p95_ms} ms | not offered |`,
];
