import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Call, blazarDate, launch, percentile } from './bench-http.js';

/**
 * `node dist/bench/one-client.js [creates]`: the first part of `npm run bench` alone, for measuring the API's
 * write path: on a fresh system (the launcher: api, projector, reactor), 100 hosts, then `creates` one-host
 * leases (500 by default) made one at a time by one client. Prints leases/s, p50 and p95, the client's own CPU
 * per create, the API process's CPU per create (from /proc: less disturbed by a busy machine than the
 * latencies), and the creates' window on CLOCK_MONOTONIC (microseconds: a V8 CPU profile's clock), so that a
 * profile of the API (`--cpu-prof`) can be cut to the creates alone.
 */
const PORT = Number(process.env.BENCH_PORT ?? 62264);

const lease = (name: string, startMs: number) => ({
  name,
  start_date: blazarDate(startMs),
  end_date: blazarDate(startMs + 6 * 3600_000),
  reservations: [{ resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' }],
  events: [],
});

const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

/** The API process the launcher started for this port: its `/proc` folder. */
const apiProcess = (): string => {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (command.includes('apps/api/src/main.js') && readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`LEASEHOLD_PORT=${PORT}\0`))
        return `/proc/${pid}`;
    } catch {
      // gone, or not ours to read
    }
  }
  throw new Error(`no API process on port ${PORT}`);
};

/** User and system CPU of a process, in milliseconds (fields 14 and 15 of its stat, in clock ticks of 10 ms). */
const cpuMillis = (proc: string): number => {
  const fields = readFileSync(`${proc}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const createLeases = async (call: Call, creates: number) => {
  for (let i = 1; i <= 100; i++) await call('POST', '/v1/os-hosts', { name: `bench-${String(i).padStart(3, '0')}` });
  const t0 = Math.ceil(Date.now() / 3600_000) * 3600_000 + 24 * 3600_000;
  const times: number[] = [];
  const api = apiProcess();
  const apiCpu = cpuMillis(api);
  const cpu = process.cpuUsage();
  const from = monotonicMicros();
  for (let i = 0; i < creates; i++) {
    const result = await call('POST', '/v1/leases', lease(`bench-${i}`, t0 + i * 600_000));
    if (result.status !== 201) throw new Error(`lease ${i}: ${result.status} ${JSON.stringify(result.body)}`);
    times.push(result.ms);
  }
  const to = monotonicMicros();
  const { user, system } = process.cpuUsage(cpu);
  const apiCpuMs = cpuMillis(api) - apiCpu;
  return {
    leases_created: creates,
    leases_per_s: +(creates / ((to - from) / 1e6)).toFixed(1),
    create_p50_ms: +percentile(times, 50).toFixed(2),
    create_p95_ms: +percentile(times, 95).toFixed(2),
    api_cpu_ms_per_create: +(apiCpuMs / creates).toFixed(3),
    client_cpu_ms_per_create: +((user + system) / 1000 / creates).toFixed(3),
    monotonic_window_us: [from, to],
  };
};

const main = async (): Promise<void> => {
  const creates = Number(process.argv[2] ?? 500);
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-one-client-'));
  try {
    // health ports on any free port: the defaults may be held by another system on the machine
    const system = await launch(PORT, dataDir, { LEASEHOLD_PROJECTOR_HEALTH_PORT: '0', LEASEHOLD_REACTOR_HEALTH_PORT: '0' });
    try {
      console.log(JSON.stringify(await createLeases(system.call, creates)));
    } finally {
      await system.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
