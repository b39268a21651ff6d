import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Call, blazarDate, launch, percentile } from './bench-http.js';

/**
 * Reads keep up (issue 32, line 4): a client creates a lease and at once reads it back (GET /v1/leases/{id}), which
 * waits for the projector to include its own write; measured alone, then while `WRITERS` other clients create leases as
 * fast as they can. The GET's time is the wait plus the read; a read served stale (the bounded wait ran out) is
 * counted. `node dist/bench/read-after-write.js` runs it alone.
 */

const HOSTS = 100;
const WRITERS = 8;
const PAIRS = 200;
const HOUR = 3_600_000;

export interface ReadAfterWriteFigures {
  readonly writers: number;
  readonly pairs: number;
  readonly alone_get_p50_ms: number;
  readonly alone_get_p95_ms: number;
  readonly alone_stale_reads: number;
  readonly loaded_get_p50_ms: number;
  readonly loaded_get_p95_ms: number;
  readonly loaded_stale_reads: number;
  readonly writers_leases_per_s: number;
}

const oneHost = (name: string, startMs: number) => ({
  name,
  start_date: blazarDate(startMs),
  end_date: blazarDate(startMs + HOUR),
  reservations: [{ resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' }],
  events: [],
});

/** Lease `n` of client `client`: its own hour, so every create is admitted and none waits on another's calendar. */
const slot = (t0: number, client: number, n: number): number => t0 + (client * 100_000 + n) * 2 * HOUR;

/** `PAIRS` creates, each read back at once: the reads' times and how many were stale. */
const readBack = async (call: Call, t0: number, client: number): Promise<{ times: number[]; stale: number }> => {
  const times: number[] = [];
  let stale = 0;
  for (let i = 0; i < PAIRS; i++) {
    const created = await call('POST', '/v1/leases', oneHost(`raw-${client}-${i}`, slot(t0, client, i)));
    if (created.status !== 201) throw new Error(`read-after-write create ${i}: ${created.status} ${JSON.stringify(created.body)}`);
    const read = await call('GET', `/v1/leases/${created.body.lease.id}`);
    if (read.status !== 200) throw new Error(`read-after-write read ${i}: ${read.status}`);
    if (read.body.stale !== undefined) stale++;
    times.push(read.ms);
  }
  return { times, stale };
};

/** Creates leases until `done` says stop; how many. */
const write = async (call: Call, t0: number, client: number, done: () => boolean): Promise<number> => {
  let n = 0;
  while (!done()) {
    const result = await call('POST', '/v1/leases', oneHost(`w-${client}-${n}`, slot(t0, client, n)));
    if (result.status !== 201) throw new Error(`writer ${client}: ${result.status} ${JSON.stringify(result.body)}`);
    n++;
  }
  return n;
};

export const runReadAfterWrite = async (port: number): Promise<ReadAfterWriteFigures> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-raw-'));
  try {
    const system = await launch(port, dataDir);
    try {
      const { call } = system;
      for (let i = 1; i <= HOSTS; i++) await call('POST', '/v1/os-hosts', { name: `raw-${String(i).padStart(3, '0')}` });
      const t0 = Math.ceil(Date.now() / HOUR) * HOUR + 24 * HOUR;
      const alone = await readBack(call, t0, 0);
      let finished = false;
      const started = performance.now();
      const writers = Array.from({ length: WRITERS }, (_, w) => write(call, t0, w + 2, () => finished));
      const loaded = await readBack(call, t0, 1);
      finished = true;
      const written = (await Promise.all(writers)).reduce((a, b) => a + b, 0);
      const seconds = (performance.now() - started) / 1000;
      return {
        writers: WRITERS,
        pairs: PAIRS,
        alone_get_p50_ms: +percentile(alone.times, 50).toFixed(1),
        alone_get_p95_ms: +percentile(alone.times, 95).toFixed(1),
        loaded_get_p50_ms: +percentile(loaded.times, 50).toFixed(1),
        loaded_get_p95_ms: +percentile(loaded.times, 95).toFixed(1),
        alone_stale_reads: alone.stale,
        loaded_stale_reads: loaded.stale,
        writers_leases_per_s: +(written / seconds).toFixed(1),
      };
    } finally {
      await system.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export const readAfterWriteRows = (figures: ReadAfterWriteFigures): string[] => [
  `| own lease read right after its create, alone, p50 / p95 | ${figures.alone_get_p50_ms} ms / ${figures.alone_get_p95_ms} ms, ${figures.alone_stale_reads} stale | - |`,
  `| the same while ${figures.writers} clients create ${figures.writers_leases_per_s} leases/s, p50 / p95 | ${figures.loaded_get_p50_ms} ms / ${figures.loaded_get_p95_ms} ms, ${figures.loaded_stale_reads} stale | - |`,
];

if (process.argv[1]?.endsWith('read-after-write.js')) {
  const figures = await runReadAfterWrite(Number(process.env.BENCH_PORT ?? 62250));
  console.log(JSON.stringify(figures, null, 2));
  for (const row of readAfterWriteRows(figures)) console.log(row);
}
