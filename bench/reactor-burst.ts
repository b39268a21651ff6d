import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  HOST_REGISTRY_STREAM,
  type HostRegistryEvent,
  type Reservation,
  hostDecider,
  hostRegistryDecider,
  hostStream,
  leaseStream,
} from '#domain/index.js';
import { appendTo } from '#application/command.js';
import { CommandHandler } from '#application/command-handler.js';
import type { EventMetadata } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { StandaloneCloud } from '#plugins/standalone/standalone-cloud.js';
import { standaloneEffectsRegistry } from '#plugins/standalone/standalone-effects.registry.js';
import { Reactor } from '#reactor/reactor.js';
import type { ReactorLogEntry } from '#reactor/scheduler.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import { percentile } from './bench-http.js';

/**
 * `node dist/bench/reactor-burst.js [--leases 150] [--hosts 20] [--addresses 30]`: the reactor alone (standalone
 * cloud, real SQLite store) at a minute boundary of the soak: `leases` leases (instance slots, whole
 * hosts, floating IPs, as the soak's mix) start at one instant T1 and end at T2, when as many leases
 * start on the same resources. The reactor's clock is moved to just before each instant, so nothing
 * else runs meanwhile; prints how late each begun phase was (at its dispatch) and how long each burst
 * took to drain.
 */

const { values: args } = parseArgs({
  options: {
    leases: { type: 'string', default: '150' },
    hosts: { type: 'string', default: '20' },
    addresses: { type: 'string', default: '30' },
  },
});

const LEASES = Number(args.leases);
const HOSTS = Number(args.hosts);
const ADDRESSES = Number(args.addresses);
const MINUTE = 60_000;
const NETWORK = '50ac0000-0000-4000-8000-00000000500a';
const SLOTS_PER_HOST = 32;

const metadata = (correlationId: string): EventMetadata => ({
  correlationId,
  causationId: correlationId,
  actor: { userId: 'bench', projectId: 'bench' },
});

const registerHost = async (handler: CommandHandler, name: string): Promise<string> => {
  const { result } = await handler.handle(async () => {
    const registry = await handler.load(hostRegistryDecider, HOST_REGISTRY_STREAM);
    const added = hostRegistryDecider.decide({ type: 'AddHostToRegistry', data: { hypervisorHostname: name } }, registry.state);
    const { hostId } = (added[0] as Extract<HostRegistryEvent, { type: 'HostRegistry.HostAdded' }>).data;
    const info = {
      hypervisorHostname: name,
      serviceName: name,
      vcpus: 64,
      memoryMb: 262144,
      localGb: 2000,
      cpuInfo: '{}',
      hypervisorType: 'QEMU',
      hypervisorVersion: 8002000,
      availabilityZone: 'nova',
    };
    const registered = hostDecider.decide(
      { type: 'RegisterHost', data: { hostId, info, capabilities: {}, now: new Date().toISOString() } },
      hostDecider.initialState(),
    );
    const appends = [
      appendTo(HOST_REGISTRY_STREAM, registry.revision, added, metadata(name), randomUUID),
      appendTo(hostStream(hostId), 'no_stream', registered, metadata(name), randomUUID),
    ];
    return { appends, result: hostId };
  });
  return result;
};

/**
 * One generation of reservations: hosts whole or by slots and addresses handed out so that no two
 * reservations of a generation overlap (the API's calendars would refuse that), in the soak's mix.
 */
const generation = (hostIds: readonly string[], random: () => number): ((id: string) => Reservation)[] => {
  const wholeHosts = hostIds.slice(0, Math.floor(hostIds.length / 4));
  const freeSlots = new Map(hostIds.slice(wholeHosts.length).map((hostId) => [hostId, SLOTS_PER_HOST]));
  const addresses = Array.from({ length: ADDRESSES }, (_, i) => `198.18.0.${i + 1}`);
  return Array.from({ length: LEASES }, (): ((id: string) => Reservation) => {
    const roll = random();
    if (roll >= 0.8 && addresses.length > 0) {
      const address = addresses.pop() as string;
      return (id) => ({
        id,
        resourceId: randomUUID(),
        resourceType: 'virtual:floatingip',
        networkId: NETWORK,
        amount: 1,
        requiredFloatingIps: [],
        allocations: [{ floatingIpId: `fip-${address}`, address }],
      });
    }
    if (roll >= 0.6 && wholeHosts.length > 0) {
      const hostId = wholeHosts.pop() as string;
      return (id) => ({
        id,
        resourceId: randomUUID(),
        resourceType: 'physical:host',
        min: 1,
        max: 1,
        hypervisorProperties: '',
        resourceProperties: '',
        beforeEnd: 'default',
        hostIds: [hostId],
      });
    }
    const count = 1 + Math.floor(random() * 4);
    const candidates = [...freeSlots].filter(([, free]) => free >= count);
    const [hostId] = candidates[Math.floor(random() * candidates.length)] ?? [];
    if (hostId === undefined) throw new Error('more slots asked for than the hosts have: fewer --leases or more --hosts');
    freeSlots.set(hostId, (freeSlots.get(hostId) ?? 0) - count);
    const allocations = [{ hostId, count }];
    return (id) => ({
      id,
      resourceId: randomUUID(),
      resourceType: 'virtual:instance',
      amount: count,
      vcpus: 2,
      memoryMb: 4096,
      diskGb: 20,
      affinity: null,
      resourceProperties: '',
      allocations,
    });
  });
};

const createLease = async (
  handler: CommandHandler,
  startMs: number,
  endMs: number,
  reservation: (id: string) => Reservation,
  now: string,
): Promise<void> => {
  const leaseId = randomUUID();
  await handler.handle(async () => {
    const lease = await handler.load(leaseDecider, leaseStream(leaseId));
    const events = leaseDecider.decide(
      {
        type: 'CreateLease',
        data: {
          leaseId,
          name: `burst-${leaseId.slice(0, 8)}`,
          projectId: 'bench',
          userId: 'bench',
          trustId: null,
          startDate: new Date(startMs).toISOString(),
          endDate: new Date(endMs).toISOString(),
          beforeEndDate: null,
          reservations: [reservation(randomUUID())],
          eventIds: { start: randomUUID(), end: randomUUID(), beforeEnd: randomUUID() },
          minutesBeforeEnd: 60,
          now,
        },
      },
      lease.state,
    );
    return { appends: [appendTo(leaseStream(leaseId), 'no_stream', events, metadata(leaseId), randomUUID)], result: null };
  });
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Seeded, so that runs compare. */
const seeded =
  (seed: number): (() => number) =>
  () =>
    ((seed = (seed * 48271) % 2147483647) - 1) / 2147483646;

type Entry = ReactorLogEntry & { readonly atMs: number };

/** Waits until the burst from `from` on has drained (nothing in flight, nothing new for a second) and prints it. */
const measureBurst = async (entries: readonly Entry[], from: number, realInstant: number, label: string): Promise<void> => {
  for (;;) {
    await sleep(100);
    const burst = entries.slice(from);
    const quiet = Date.now() - (burst.at(-1)?.atMs ?? realInstant) > 1_000;
    const settled = burst.filter((entry) => entry.event === 'action').length === burst.filter((entry) => entry.event !== 'action').length;
    if (Date.now() > realInstant && quiet && settled) break;
  }
  const burst = entries.slice(from);
  const lateness = burst.filter((entry) => entry.event === 'action' && entry.step === 'begin').map((entry) => entry.latenessMs as number);
  const drained = Math.max(...burst.map((entry) => entry.atMs)) - realInstant;
  console.log(
    `${label}: ${lateness.length} phases begun, lateness at dispatch p50 ${percentile(lateness, 50).toFixed(0)} ms, p99 ${percentile(lateness, 99).toFixed(0)} ms, max ${Math.max(...lateness).toFixed(0)} ms; drained in ${drained.toFixed(0)} ms`,
  );
};

const printOutcomes = (entries: readonly Entry[], cpu: NodeJS.CpuUsage): void => {
  const results = new Map<string, number>();
  for (const entry of entries.filter((e) => e.event === 'done')) {
    const key = `${String(entry.phase)} ${String(entry.result)}`;
    results.set(key, (results.get(key) ?? 0) + 1);
  }
  console.log(
    `results: ${[...results].map(([result, count]) => `${result} ${count}`).join(', ')}; retries: ${entries.filter((entry) => entry.event === 'retry').length}`,
  );
  const actions = entries.filter((entry) => entry.event === 'done').length;
  console.log(`cpu: ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms for ${actions} actions`);
};

/** The reactor on its own connection, its clock moved to 1.5 s before each instant in turn. */
const runBursts = async (file: string, cloud: StandaloneCloud, t1: number, t2: number): Promise<void> => {
  let offset = t1 - 2_000 - Date.now();
  const entries: Entry[] = [];
  const store = SqliteEventStore.open({ file });
  const clock = (): Date => new Date(Date.now() + offset);
  const reactor = await Reactor.start({
    store,
    effects: standaloneEffectsRegistry(cloud),
    clock,
    log: (entry) => entries.push({ ...entry, atMs: Date.now() }),
  });
  const cpu = process.cpuUsage();
  for (const [instant, label] of [
    [t1, 'T1 (starts)'],
    [t2, 'T2 (ends, then starts on the same resources)'],
  ] as const) {
    offset = instant - 1_500 - Date.now();
    await measureBurst(entries, entries.length, instant - offset, label);
  }
  printOutcomes(entries, process.cpuUsage(cpu));
  await reactor.stop();
  await store.close();
};

const main = async (): Promise<void> => {
  const dir = mkdtempSync(join(tmpdir(), 'reactor-burst-'));
  const file = join(dir, 'events.sqlite');
  const store = SqliteEventStore.open({ file });
  const cloud = StandaloneCloud.open({ file: join(dir, 'standalone-cloud.sqlite') });
  const handler = new CommandHandler(store);
  try {
    const hostIds: string[] = [];
    for (let i = 1; i <= HOSTS; i++) hostIds.push(await registerHost(handler, `burst-${String(i).padStart(2, '0')}`));
    const t1 = Math.ceil(Date.now() / MINUTE) * MINUTE + 10 * MINUTE;
    const t2 = t1 + MINUTE;
    const now = new Date().toISOString();
    const random = seeded(7);
    for (const reservation of generation(hostIds, random)) await createLease(handler, t1, t2, reservation, now);
    for (const reservation of generation(hostIds, random)) await createLease(handler, t2, t2 + MINUTE, reservation, now);
    await runBursts(file, cloud, t1, t2);
  } finally {
    await store.close();
    cloud.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
