import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplicationContext } from '#application/application-context.js';
import { systemCaller } from '#application/caller.js';
import { CommandHandler } from '#application/command-handler.js';
import { HostUseCases } from '#application/hosts/host.use-cases.js';
import { LeaseUseCases } from '#application/leases/lease.use-cases.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { StandaloneHostInventory } from '#plugins/standalone/standalone-host-inventory.js';
import { percentile } from './bench-http.js';
import { hostInfo } from './scale-ledger.js';

/**
 * `node dist/bench/capability-admission.js`, and a part of `npm run bench`: admission of one-host leases whose
 * `resource_properties` ask for capabilities (`gpu == true`, `arch == arm`, both with `ssd == true`), through the
 * application layer on the embedded store (the use cases the API calls, without HTTP: what the host count changes is
 * the decision, not the transport), over 100 hosts and over 10,000 hosts with the same mix of capabilities. Prints
 * the CPU per admission, its p50 and p95 at each size, and the ratio of the CPU figures.
 */
const HOUR = 3_600_000;
const ADMISSIONS = 500;
const WARM_UP = 50;
const SIZES = [100, 10_000] as const;

const QUERIES = [
  '["==", "$gpu", "true"]',
  '["==", "$arch", "arm"]',
  '["and", ["==", "$gpu", "true"], ["==", "$ssd", "true"]]',
  '["and", ["==", "$arch", "x86_64"], ["==", "$rack", "rack-03"]]',
];

/**
 * Varied capabilities, enrolled as a cloud grows, by generation: the first 60 % of hosts gen1 (no ssd), the next 30 %
 * gen2 (ssd), the last 10 % gen3 (ssd and gpu); arm on 15 % in the middle; 20 racks throughout. So the hosts a query
 * asks for may come late in the order an admission walks (ids), and it passes many that cannot match.
 */
const capabilitiesOf = (i: number, hosts: number): Record<string, string> => {
  const place = i / hosts;
  const generation = place < 0.6 ? 'gen1' : place < 0.9 ? 'gen2' : 'gen3';
  return {
    generation,
    gpu: generation === 'gen3' ? 'true' : 'false',
    ssd: generation === 'gen1' ? 'false' : 'true',
    arch: place >= 0.3 && place < 0.45 ? 'arm' : 'x86_64',
    rack: `rack-${String(i % 20).padStart(2, '0')}`,
  };
};

export interface CapabilityAdmissionSize {
  readonly hosts: number;
  /** The process's CPU per admission: what the host count changes, less disturbed by a busy machine than latencies. */
  readonly cpuMs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly perSecond: number;
}

export interface CapabilityAdmissionFigures {
  readonly sizes: readonly CapabilityAdmissionSize[];
  /** CPU per admission at 10,000 hosts over that at 100. */
  readonly ratio: number;
}

const measureSize = async (hosts: number): Promise<CapabilityAdmissionSize> => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-capability-admission-'));
  const store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
  try {
    let ids = 0;
    const context: ApplicationContext = {
      handler: new CommandHandler(store),
      index: new WriteIndex(store),
      settings: { cleaningTimeMinutes: 0, minutesBeforeEnd: 60, allocationRatios: { cpu: 1, ram: 1, disk: 1 } },
      newId: () => `00000000-0000-4000-9000-${String(++ids).padStart(12, '0')}`,
    };
    const actor = systemCaller('bench-capability-admission');
    const now = Date.now();
    const metadata = () => ({ actor, correlationId: `cap-${++ids}`, causationId: 'bench', now: new Date(now).toISOString() });
    const registry = new HostUseCases(context, new StandaloneHostInventory());
    for (let i = 0; i < hosts; i++) {
      const host = { source: 'request' as const, info: hostInfo(i), capabilities: capabilitiesOf(i, hosts) };
      await registry.register({ type: 'RegisterHost', data: { host }, metadata: metadata() });
    }
    const leases = new LeaseUseCases(context);
    const base = Math.ceil(now / HOUR) * HOUR + 24 * HOUR;
    const times: number[] = [];
    let cpu = process.cpuUsage();
    for (let i = 0; i < WARM_UP + ADMISSIONS; i++) {
      if (i === WARM_UP) cpu = process.cpuUsage();
      // one-hour leases 10 minutes apart: a handful overlap, so each admission passes busy hosts by
      const start = base + i * 600_000;
      const reservation = buildHostRequest({
        min: 1,
        max: 1,
        hypervisorProperties: '',
        resourceProperties: QUERIES[i % QUERIES.length] as string,
        beforeEnd: 'default',
      });
      const data = {
        name: `cap-${i}`,
        startDate: new Date(start).toISOString(),
        endDate: new Date(start + HOUR).toISOString(),
        beforeEndDate: null,
        reservations: [reservation],
      };
      const started = performance.now();
      await leases.create({ type: 'CreateLease', data, metadata: metadata() });
      if (i >= WARM_UP) times.push(performance.now() - started);
    }
    const { user, system } = process.cpuUsage(cpu);
    const total = times.reduce((sum, ms) => sum + ms, 0);
    return {
      hosts,
      cpuMs: +((user + system) / 1000 / ADMISSIONS).toFixed(3),
      p50Ms: +percentile(times, 50).toFixed(3),
      p95Ms: +percentile(times, 95).toFixed(3),
      perSecond: +(times.length / (total / 1000)).toFixed(1),
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export const runCapabilityAdmission = async (): Promise<CapabilityAdmissionFigures> => {
  const sizes: CapabilityAdmissionSize[] = [];
  for (const hosts of SIZES) sizes.push(await measureSize(hosts));
  const [small, large] = sizes as [CapabilityAdmissionSize, CapabilityAdmissionSize];
  return { sizes, ratio: +(large.cpuMs / small.cpuMs).toFixed(2) };
};

export const capabilityAdmissionRows = (figures: CapabilityAdmissionFigures): string[] => [
  ...figures.sizes.map(
    (size) =>
      `| admission with resource_properties (capability queries), ${size.hosts.toLocaleString('en')} hosts, in process: CPU; p50 / p95; per second | ` +
      `${size.cpuMs} ms; ${size.p50Ms} / ${size.p95Ms} ms; ${size.perSecond}/s | |`,
  ),
  `| capability admission, 10,000 hosts over 100 (CPU per admission) | ${figures.ratio}x | |`,
];

if (process.argv[1]?.endsWith('capability-admission.js')) {
  runCapabilityAdmission().then(
    (figures) => console.log(JSON.stringify(figures)),
    (error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
      process.exit(1);
    },
  );
}
