import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Call, percentile } from './bench-http.js';

/**
 * List latency on the availability bench's calendar (2,000 hosts, 20,000 leases): the projector is
 * started beside the API, the read models catch up, then the whole lease list (what Blazar clients ask
 * for) and pages of 100 are timed to the last byte received.
 */

const dist = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 15;

export interface ListFigures {
  readonly leases: number;
  readonly catch_up_seconds: number;
  readonly full_list_p50_ms: number;
  readonly full_list_p95_ms: number;
  readonly full_list_mb: number;
  readonly page_100_p50_ms: number;
  readonly page_100_p95_ms: number;
  readonly hosts_page_100_p50_ms: number;
}

const timed = async (call: Call, path: string): Promise<{ times: number[]; body: any }> => {
  const times: number[] = [];
  let body: any = null;
  for (let i = 0; i < RUNS; i++) {
    const result = await call('GET', path);
    if (result.status !== 200) throw new Error(`${path}: ${result.status} ${JSON.stringify(result.body).slice(0, 200)}`);
    times.push(result.ms);
    body = result.body;
  }
  return { times, body };
};

/** Waits until every read model the API reads has reached the head of the log (its /readyz lists their lag). */
const caughtUp = async (call: Call): Promise<number> => {
  const started = performance.now();
  for (;;) {
    const { body } = await call('GET', '/readyz');
    const models = (body?.read_models ?? []) as { lag_positions: number }[];
    if (models.length > 0 && models.every((model) => model.lag_positions === 0)) return (performance.now() - started) / 1000;
    if (performance.now() - started > 600_000) throw new Error('the read models did not catch up within 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
};

export const measureLists = async (call: Call, dataDir: string): Promise<ListFigures> => {
  const projector = spawn(process.execPath, [join(dist, 'apps/projector/src/main.js')], {
    env: { ...process.env, LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_PROJECTOR_HEALTH_PORT: 'off' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const catchUp = await caughtUp(call);
    const full = await timed(call, '/v1/leases');
    const bytes = JSON.stringify(full.body).length;
    const page = await timed(call, '/v1/leases?limit=100&sort_key=start_date');
    const hosts = await timed(call, '/v1/os-hosts?limit=100');
    return {
      leases: (full.body.leases as unknown[]).length,
      catch_up_seconds: +catchUp.toFixed(1),
      full_list_p50_ms: +percentile(full.times, 50).toFixed(0),
      full_list_p95_ms: +percentile(full.times, 95).toFixed(0),
      full_list_mb: +(bytes / 1e6).toFixed(1),
      page_100_p50_ms: +percentile(page.times, 50).toFixed(0),
      page_100_p95_ms: +percentile(page.times, 95).toFixed(0),
      hosts_page_100_p50_ms: +percentile(hosts.times, 50).toFixed(1),
    };
  } finally {
    const exited = new Promise((resolve) => projector.once('exit', resolve));
    projector.kill('SIGTERM');
    await exited;
  }
};

export const listRows = (figures: ListFigures): string[] => [
  `| GET /v1/leases, all ${figures.leases} leases (${figures.full_list_mb} MB) p50 / p95 | ${figures.full_list_p50_ms} ms / ${figures.full_list_p95_ms} ms | not measured |`,
  `| GET /v1/leases?limit=100 (of ${figures.leases}) p50 / p95 | ${figures.page_100_p50_ms} ms / ${figures.page_100_p95_ms} ms | no paging |`,
  `| GET /v1/os-hosts?limit=100 p50 | ${figures.hosts_page_100_p50_ms} ms | no paging |`,
];
