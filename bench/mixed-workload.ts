import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Call, blazarDate, launch, percentile } from './bench-http.js';
import {
  type Hold,
  type Ratios,
  allHolds,
  doubleBookedAddresses,
  foldLedger,
  overCapacityInstants,
  readLedger,
  wholeHostClashes,
} from './ledger-audit.js';

/**
 * The mixed workload on a fresh system: 60 hosts of three sizes, 200 floating IPs and two flavors;
 * 500 leases one at a time mixing instance slots (every affinity), flavors, floating IPs and whole
 * hosts; then a burst of 8 clients x 25 for one hour, three times bigger, that cannot all fit. The
 * ledger is then replayed independently of the production code to count invariant violations.
 */

const HOSTS = 60;
const ADDRESSES = 200;
// a Neutron network id (the API takes UUIDs only)
const NETWORK = 'b0e1c2d3-0000-4000-8000-00000000be0c';
const HOST_SIZES = [
  { vcpus: 16, memory_mb: 65536, local_gb: 500 },
  { vcpus: 32, memory_mb: 131072, local_gb: 1000 },
  { vcpus: 8, memory_mb: 32768, local_gb: 200 },
];
const SMALL = { vcpus: 1, memory_mb: 2048, disk_gb: 10 };
const MEDIUM = { vcpus: 2, memory_mb: 4096, disk_gb: 20 };
const LARGE = { vcpus: 4, memory_mb: 8192, disk_gb: 40 };

const envNumber = (name: string, fallback: number): number => {
  const value = process.env[name];
  return value === undefined || value.trim() === '' ? fallback : Number(value);
};

/** What the launched system is told, so the audit checks the same rules. */
const RATIOS: Ratios = {
  cpu: envNumber('LEASEHOLD_CPU_ALLOCATION_RATIO', 1),
  ram: envNumber('LEASEHOLD_RAM_ALLOCATION_RATIO', 1),
  disk: envNumber('LEASEHOLD_DISK_ALLOCATION_RATIO', 1),
};
const CLEANING_MINUTES = envNumber('LEASEHOLD_CLEANING_TIME_MINUTES', 0);

const instances = (amount: number, size: typeof SMALL, affinity: boolean | null) => ({
  resource_type: 'virtual:instance',
  amount,
  ...size,
  affinity,
  resource_properties: '',
});
const addresses = (amount: number) => ({ resource_type: 'virtual:floatingip', network_id: NETWORK, amount, required_floatingips: [] });
const wholeHost = () => ({ resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' });

/** The i-th lease's reservations, amounts times `scale`. */
const mixedReservations = (i: number, scale: number, flavors: readonly [string, string]): unknown[] => {
  const flavor = (flavorId: string, amount: number, affinity: boolean | null) => ({
    resource_type: 'flavor:instance',
    flavor_id: flavorId,
    amount,
    affinity,
  });
  switch (i % 8) {
    case 0:
      return [instances(4 * scale, MEDIUM, null)];
    case 1:
      return [instances(2 * scale, LARGE, true)];
    case 2:
      return [instances(3 * scale, SMALL, false)];
    case 3:
      return [flavor(flavors[0], 2 * scale, null)];
    case 4:
      return [addresses(2 * scale)];
    case 5:
      return [instances(scale, MEDIUM, null), addresses(scale)];
    case 6:
      return [flavor(flavors[1], scale, false)];
    default:
      return [wholeHost()];
  }
};

const lease = (name: string, startMs: number, hours: number, reservations: unknown[]) => ({
  name,
  start_date: blazarDate(startMs),
  end_date: blazarDate(startMs + hours * 3600_000),
  reservations,
  events: [],
});

const setUp = async (call: Call): Promise<[string, string]> => {
  for (let i = 1; i <= HOSTS; i++) {
    const created = await call('POST', '/v1/os-hosts', {
      name: `mixed-${String(i).padStart(3, '0')}`,
      ...HOST_SIZES[i % HOST_SIZES.length],
    });
    if (created.status !== 201) throw new Error(`host ${i}: ${created.status} ${JSON.stringify(created.body)}`);
  }
  for (let i = 0; i < ADDRESSES; i++) {
    const created = await call('POST', '/v1/floatingips', {
      floating_network_id: NETWORK,
      floating_ip_address: `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`,
    });
    if (created.status !== 201) throw new Error(`floating IP ${i}: ${created.status} ${JSON.stringify(created.body)}`);
  }
  const flavorIds: string[] = [];
  for (const flavor of [
    { name: 'bench.small', vcpus: 2, ram: 4096, disk: 20 },
    { name: 'bench.large', vcpus: 8, ram: 16384, disk: 80 },
  ]) {
    const created = await call('POST', '/v1/flavors', { flavor });
    if (created.status !== 201) throw new Error(`flavor ${flavor.name}: ${created.status} ${JSON.stringify(created.body)}`);
    flavorIds.push(created.body.flavor.id);
  }
  return [flavorIds[0]!, flavorIds[1]!];
};

const admitted = (result: { status: number; body: unknown }, what: string): boolean => {
  if (result.status === 201) return true;
  if (result.status === 409) return false;
  throw new Error(`${what}: ${result.status} ${JSON.stringify(result.body)}`);
};

export interface MixedFigures {
  readonly hosts_registered: number;
  readonly floating_ips_registered: number;
  readonly mixed_leases: number;
  readonly mixed_accepted: number;
  readonly mixed_leases_per_s: number;
  readonly mixed_create_p50_ms: number;
  readonly mixed_create_p95_ms: number;
  readonly mixed_create_p50_first50_ms: number;
  readonly mixed_create_p50_last50_ms: number;
  readonly burst_requests: number;
  readonly burst_accepted: number;
  readonly burst_refused: number;
  readonly burst_leases_per_s: number;
  readonly burst_p50_ms: number;
  readonly burst_p95_ms: number;
  readonly slot_holds: number;
  readonly whole_host_holds: number;
  readonly address_holds: number;
  readonly over_capacity_instants: number;
  readonly whole_host_clashes: number;
  readonly double_booked_addresses: number;
  readonly double_booked_addresses_api: number;
  readonly misfiled_events: number;
}

const round1 = (value: number): number => +value.toFixed(1);

const sequential = async (call: Call, t0: number, flavors: [string, string]) => {
  const times: number[] = [];
  let accepted = 0;
  const wall = performance.now();
  for (let i = 0; i < 500; i++) {
    const result = await call('POST', '/v1/leases', lease(`mixed-${i}`, t0 + i * 600_000, 6, mixedReservations(i, 1, flavors)));
    if (admitted(result, `mixed lease ${i}`)) accepted++;
    times.push(result.ms);
  }
  return { times, accepted, seconds: (performance.now() - wall) / 1000 };
};

const burst = async (call: Call, hour: number, flavors: [string, string]) => {
  const times: number[] = [];
  const wall = performance.now();
  const clients = Array.from({ length: 8 }, (_, c) =>
    (async () => {
      let accepted = 0;
      for (let i = 0; i < 25; i++) {
        const result = await call('POST', '/v1/leases', lease(`burst-${c}-${i}`, hour, 1, mixedReservations(c + i, 3, flavors)));
        if (admitted(result, `burst lease ${c}-${i}`)) accepted++;
        times.push(result.ms);
      }
      return accepted;
    })(),
  );
  const accepted = (await Promise.all(clients)).reduce((a, b) => a + b, 0);
  return { times, accepted, seconds: (performance.now() - wall) / 1000 };
};

const addressHoldsFromApi = (
  allocations: readonly { resource_id: string; reservations: { id: string; lease_id: string; start_date: string; end_date: string }[] }[],
): Hold[] =>
  allocations.flatMap((a) =>
    a.reservations.map((r) => ({
      resourceId: a.resource_id,
      reservationId: r.id,
      leaseId: r.lease_id,
      start: Date.parse(`${r.start_date}Z`),
      end: Date.parse(`${r.end_date}Z`),
      slots: null,
    })),
  );

type Audit = Pick<
  MixedFigures,
  | 'slot_holds'
  | 'whole_host_holds'
  | 'address_holds'
  | 'over_capacity_instants'
  | 'whole_host_clashes'
  | 'double_booked_addresses'
  | 'double_booked_addresses_api'
  | 'misfiled_events'
>;

/** The invariants, from the raw log folded independently (and, for addresses, from the API too). */
const audit = (dataDir: string, apiAddresses: readonly Hold[]): Audit => {
  const fold = foldLedger(readLedger(join(dataDir, 'events.sqlite')));
  const hostHolds = allHolds(fold.hostHolds);
  const addressHolds = allHolds(fold.ipHolds);
  const cleaningMs = CLEANING_MINUTES * 60_000;
  return {
    slot_holds: hostHolds.filter((h) => h.slots !== null).length,
    whole_host_holds: hostHolds.filter((h) => h.slots === null).length,
    address_holds: addressHolds.length,
    over_capacity_instants: overCapacityInstants(fold.hosts, hostHolds, RATIOS).length,
    whole_host_clashes: wholeHostClashes(hostHolds, cleaningMs).length,
    double_booked_addresses: doubleBookedAddresses(addressHolds, cleaningMs).length,
    double_booked_addresses_api: doubleBookedAddresses(apiAddresses, cleaningMs).length,
    misfiled_events: fold.misfiled.length,
  };
};

export const runMixedWorkload = async (port: number): Promise<MixedFigures> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-mixed-'));
  try {
    const system = await launch(port, dataDir, {
      LEASEHOLD_CPU_ALLOCATION_RATIO: String(RATIOS.cpu),
      LEASEHOLD_RAM_ALLOCATION_RATIO: String(RATIOS.ram),
      LEASEHOLD_DISK_ALLOCATION_RATIO: String(RATIOS.disk),
      LEASEHOLD_CLEANING_TIME_MINUTES: String(CLEANING_MINUTES),
    });
    try {
      const flavors = await setUp(system.call);
      const t0 = Math.ceil(Date.now() / 3600_000) * 3600_000 + 24 * 3600_000;
      const seq = await sequential(system.call, t0, flavors);
      const race = await burst(system.call, t0 + 40 * 24 * 3600_000, flavors);
      const apiAddresses = addressHoldsFromApi((await system.call('GET', '/v1/floatingips/allocations')).body.allocations);
      return {
        hosts_registered: HOSTS,
        floating_ips_registered: ADDRESSES,
        mixed_leases: 500,
        mixed_accepted: seq.accepted,
        mixed_leases_per_s: round1(500 / seq.seconds),
        mixed_create_p50_ms: round1(percentile(seq.times, 50)),
        mixed_create_p95_ms: round1(percentile(seq.times, 95)),
        mixed_create_p50_first50_ms: round1(percentile(seq.times.slice(0, 50), 50)),
        mixed_create_p50_last50_ms: round1(percentile(seq.times.slice(-50), 50)),
        burst_requests: 200,
        burst_accepted: race.accepted,
        burst_refused: 200 - race.accepted,
        burst_leases_per_s: round1(200 / race.seconds),
        burst_p50_ms: round1(percentile(race.times, 50)),
        burst_p95_ms: round1(percentile(race.times, 95)),
        ...audit(dataDir, apiAddresses),
      };
    } finally {
      await system.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/** Rows for the bench's comparison table (upstream was not measured on this workload). */
export const mixedRows = (f: MixedFigures): string[] => [
  `| mixed: leases/s (500 one at a time: slots of every affinity, flavors, floating IPs, whole hosts) | ${f.mixed_leases_per_s} (${f.mixed_accepted} accepted) | not measured |`,
  `| mixed: create p50 / p95 | ${f.mixed_create_p50_ms} ms / ${f.mixed_create_p95_ms} ms | not measured |`,
  `| mixed: create p50 first 50 -> last 50 | ${f.mixed_create_p50_first50_ms} ms -> ${f.mixed_create_p50_last50_ms} ms | not measured |`,
  `| mixed burst: 8 clients x 25 same hour, ${f.hosts_registered} hosts + ${f.floating_ips_registered} addresses | ${f.burst_accepted} accepted, ${f.burst_refused} refused (409); p50 ${f.burst_p50_ms} ms / p95 ${f.burst_p95_ms} ms | not measured |`,
  `| mixed invariants (log replay: ${f.slot_holds} slot, ${f.whole_host_holds} whole-host, ${f.address_holds} address holds) | ${f.over_capacity_instants} over-capacity instants, ${f.whole_host_clashes} whole-host clashes, ${f.double_booked_addresses} double-booked addresses (API: ${f.double_booked_addresses_api}) | not measured |`,
];
