import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type Call, blazarDate, launch, percentile } from './bench-http.js';

/**
 * `as_of` over a long log: 100 hosts and 50 floating IPs, 500 leases (four whole hosts, or two
 * addresses), then 8 clients rename and reschedule them round-robin (an update is 4 to 6 events)
 * until the log holds `AS_OF_BENCH_EVENTS` events (default 100,000). Then GETs with `as_of` at
 * instants spread over the whole log (the recording instants of random positions), each timed, next
 * to the same GETs live. `AS_OF_BENCH_DATA_DIR`: the system's data folder, kept afterwards (to time
 * a rebuild of that log, say); a log kept there by an earlier run is timed again as it is.
 */

const HOSTS = 100;
const HOSTS_PER_LEASE = 4;
const ADDRESSES = 50;
const LEASES = 500;
const CLIENTS = 8;
const NETWORK = 'a5f0c2d3-1111-4000-8000-00000000a50f';
const HOUR = 3600_000;

const eventsWanted = (): number => Number(process.env.AS_OF_BENCH_EVENTS ?? 100_000);

export interface AsOfFigures {
  readonly events: number;
  readonly leases: number;
  /** Seconds to write the log; null when a kept one was timed again. */
  readonly fill_seconds: number | null;
  readonly lease_as_of_p50_ms: number;
  readonly lease_as_of_p95_ms: number;
  readonly lease_live_p50_ms: number;
  readonly lease_list_as_of_p50_ms: number;
  readonly lease_list_live_p50_ms: number;
  readonly host_allocations_as_of_p50_ms: number;
  readonly host_allocations_live_p50_ms: number;
  readonly floatingip_allocations_as_of_p50_ms: number;
}

const must = async (call: Call, method: string, path: string, body?: unknown) => {
  const reply = await call(method, path, body);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply;
};

/** A day long each, 25 at a time (as many as the hosts hold), the next 25 two days later. */
const createLeases = async (call: Call, t0: number): Promise<{ id: string; end: number }[]> => {
  const leases: { id: string; end: number }[] = [];
  const together = HOSTS / HOSTS_PER_LEASE;
  for (let i = 0; i < LEASES; i++) {
    const start = t0 + Math.floor(i / together) * 48 * HOUR;
    const reservations =
      i % 5 === 4
        ? [{ resource_type: 'virtual:floatingip', network_id: NETWORK, amount: 2 }]
        : [
            {
              resource_type: 'physical:host',
              min: HOSTS_PER_LEASE,
              max: HOSTS_PER_LEASE,
              hypervisor_properties: '',
              resource_properties: '',
            },
          ];
    const reply = await must(call, 'POST', '/v1/leases', {
      name: `as-of-${i}`,
      start_date: blazarDate(start),
      end_date: blazarDate(start + 24 * HOUR),
      reservations,
    });
    leases.push({ id: reply.body.lease.id, end: start + 24 * HOUR });
  }
  return leases;
};

/** Renames and moves each lease's end by an hour, back and forth, until the log is long enough. */
const fill = async (call: Call, leases: readonly { id: string; end: number }[], head: () => number): Promise<void> => {
  let next = 0;
  const client = async (): Promise<void> => {
    while (head() < eventsWanted()) {
      const n = next++;
      const lease = leases[n % leases.length];
      if (lease === undefined) return;
      const end = lease.end + (Math.floor(n / leases.length) % 2 === 0 ? HOUR : 0);
      await must(call, 'PUT', `/v1/leases/${lease.id}`, { name: `as-of-${n}`, end_date: blazarDate(end) });
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, () => client()));
};

/** A lease asked for before its creation is a 404, as it should be: timed all the same. */
const newLog = async (call: Call, head: () => number): Promise<{ id: string; end: number }[]> => {
  for (let i = 1; i <= HOSTS; i++) await must(call, 'POST', '/v1/os-hosts', { name: `as-of-${String(i).padStart(3, '0')}` });
  for (let i = 1; i <= ADDRESSES; i++)
    await must(call, 'POST', '/v1/floatingips', { floating_network_id: NETWORK, floating_ip_address: `10.90.0.${i}` });
  const leases = await createLeases(call, Math.ceil(Date.now() / HOUR) * HOUR + 24 * HOUR);
  await fill(call, leases, head);
  return leases;
};

const existingLeases = async (call: Call): Promise<{ id: string; end: number }[]> =>
  (await must(call, 'GET', '/v1/leases')).body.leases.map((lease: { id: string; end_date: string }) => ({
    id: lease.id,
    end: Date.parse(`${lease.end_date}Z`),
  }));

const timed = async (call: Call, paths: () => string, samples: number): Promise<number[]> => {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const path = paths();
    const reply = await call('GET', path);
    if (reply.status !== 200 && reply.status !== 404) throw new Error(`GET ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    times.push(reply.ms);
  }
  return times;
};

const p = (times: readonly number[], at: number): number => +percentile(times, at).toFixed(1);

export const runAsOfWorkload = async (port: number): Promise<AsOfFigures> => {
  const kept = process.env.AS_OF_BENCH_DATA_DIR;
  const dataDir = kept === undefined || kept === '' ? mkdtempSync(join(tmpdir(), 'leasehold-bench-as-of-')) : kept;
  try {
    const system = await launch(port, dataDir);
    const log = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const { call } = system;
      const head = (): number => (log.prepare('select coalesce(max(position), 0) as head from events').get() as { head: number }).head;
      const wall = performance.now();
      const reused = head() >= eventsWanted();
      const leases = reused ? await existingLeases(call) : await newLog(call, head);
      const fillSeconds = reused ? null : +((performance.now() - wall) / 1000).toFixed(1);
      const events = head();
      // what was written is projected before anything is timed
      await must(call, 'GET', '/v1/leases');
      const recordedAt = log.prepare('select recorded_at as at from events where position = ?');
      const instant = (): string => (recordedAt.get(1 + Math.floor(Math.random() * events)) as { at: string }).at;
      const asOf = (path: string) => () => `${path}${path.includes('?') ? '&' : '?'}as_of=${encodeURIComponent(instant())}`;
      const aLease = () => `/v1/leases/${leases[Math.floor(Math.random() * leases.length)]?.id ?? ''}`;
      const leaseAsOf = await timed(call, () => asOf(aLease())(), 200);
      return {
        events,
        leases: LEASES,
        fill_seconds: fillSeconds,
        lease_as_of_p50_ms: p(leaseAsOf, 50),
        lease_as_of_p95_ms: p(leaseAsOf, 95),
        lease_live_p50_ms: p(await timed(call, aLease, 200), 50),
        lease_list_as_of_p50_ms: p(await timed(call, asOf('/v1/leases'), 40), 50),
        lease_list_live_p50_ms: p(await timed(call, () => '/v1/leases', 40), 50),
        host_allocations_as_of_p50_ms: p(await timed(call, asOf('/v1/os-hosts/allocations'), 40), 50),
        host_allocations_live_p50_ms: p(await timed(call, () => '/v1/os-hosts/allocations', 40), 50),
        floatingip_allocations_as_of_p50_ms: p(await timed(call, asOf('/v1/floatingips/allocations'), 40), 50),
      };
    } finally {
      log.close();
      await system.stop();
    }
  } finally {
    if (dataDir !== kept) rmSync(dataDir, { recursive: true, force: true });
  }
};

export const asOfRows = (f: AsOfFigures): string[] => [
  `| as_of: log of ${f.events} events (${f.leases} leases renamed and rescheduled${f.fill_seconds === null ? '' : `, written in ${f.fill_seconds} s`}) | | |`,
  `| as_of: one lease p50 / p95 (live p50) | ${f.lease_as_of_p50_ms} ms / ${f.lease_as_of_p95_ms} ms (${f.lease_live_p50_ms} ms) | not available |`,
  `| as_of: list ${f.leases} leases p50 (live) | ${f.lease_list_as_of_p50_ms} ms (${f.lease_list_live_p50_ms} ms) | not available |`,
  `| as_of: host allocations p50 (live) | ${f.host_allocations_as_of_p50_ms} ms (${f.host_allocations_live_p50_ms} ms) | not available |`,
  `| as_of: floating-IP allocations p50 | ${f.floatingip_allocations_as_of_p50_ms} ms | not available |`,
];
