import type { ApplicationContext } from '#application/application-context.js';
import { systemCaller } from '#application/caller.js';
import { CommandHandler } from '#application/command-handler.js';
import { HostUseCases } from '#application/hosts/host.use-cases.js';
import { LeaseUseCases } from '#application/leases/lease.use-cases.js';
import { LeaseReactionUseCases } from '#application/reactions/lease-reactions.use-cases.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import { type LeaseCreated, type LeasePhase, isDomainError } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { StandaloneHostInventory } from '#plugins/standalone/standalone-host-inventory.js';

/**
 * The ledger of the scale bench, written through the application layer (the use cases and deciders
 * the API and the reactor call, without HTTP): `hosts` hosts registered, then leases created one after
 * another over a past timeline, each run through its life as the reactor records it (start begun and
 * completed, end begun and completed, at their dates), until the log holds `events` events. The last
 * leases are still running or to come at the real now, as a service's are: most of the log is history.
 */
export interface ScaleShape {
  readonly hosts: number;
  readonly events: number;
}

export interface ScaleLedger {
  readonly hosts: number;
  readonly leases: number;
  readonly refused: number;
  readonly events: number;
  /** Leases not ended at the real now (pending or active). */
  readonly live: number;
  readonly seconds: number;
}

const HOUR = 3_600_000;
/** Events per lease over its life (created with its booking, start and end each begun and completed), for the timeline's length. */
const EVENTS_PER_LEASE = 7;
/** Leases a host carries at once on average: enough to keep admission busy, few enough that most are admitted. */
const LEASES_PER_HOST_AT_ONCE = 0.3;
const REACTIONS_AT_ONCE = 64;
/** What the API's write index keeps of the past (LEASEHOLD_PAST_KEPT_HOURS' default), dropped as the API drops it. */
const PAST_KEPT_MS = 24 * HOUR;
const FORGET_EVERY = 1_000;

const bench = systemCaller('bench-scale');
let commands = 0;
const metadata = (now: number) => ({
  actor: bench,
  correlationId: `scale-${++commands}`,
  causationId: 'bench-scale',
  now: new Date(now).toISOString(),
});

/** A bench host's Nova facts: 32 vCPUs, 128 GiB, 1 TB, in one of four zones. */
export const hostInfo = (i: number) => ({
  hypervisorHostname: `scale-${String(i).padStart(5, '0')}`,
  serviceName: `scale-${String(i).padStart(5, '0')}`,
  vcpus: 32,
  memoryMb: 131072,
  localGb: 1000,
  cpuInfo: '',
  hypervisorType: 'QEMU',
  hypervisorVersion: 1,
  availabilityZone: `zone-${i % 4}`,
});

interface Due {
  readonly at: number;
  readonly leaseId: string;
  readonly phase: LeasePhase;
  readonly reservationIds: readonly string[];
}

/** mulberry32, seeded: the same ledger on every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

export const writeScaleLedger = async (store: EventStore, shape: ScaleShape, onProgress: (line: string) => void): Promise<ScaleLedger> => {
  const started = performance.now();
  const random = seeded(20261126);
  let ids = 0;
  const context: ApplicationContext = {
    handler: new CommandHandler(store),
    index: new WriteIndex(store),
    settings: { cleaningTimeMinutes: 0, minutesBeforeEnd: 60, allocationRatios: { cpu: 1, ram: 1, disk: 1 } },
    newId: () => `00000000-0000-4000-9000-${String(++ids).padStart(12, '0')}`,
  };
  const realNow = Date.now();
  const leasesWanted = Math.ceil((shape.events - shape.hosts * 2) / EVENTS_PER_LEASE);
  // average lease: 12.5 h; leases created at an even pace so that about LEASES_PER_HOST_AT_ONCE per host overlap
  const stepMs = Math.max(1000, Math.floor((12.5 * HOUR) / (shape.hosts * LEASES_PER_HOST_AT_ONCE)));
  const base = realNow - leasesWanted * stepMs + 12 * HOUR;

  const hosts = new HostUseCases(context, new StandaloneHostInventory());
  for (let i = 0; i < shape.hosts; i++) {
    const capabilities = { gpu: i % 5 === 0 ? 'true' : 'false', rack: `rack-${String(i % 200).padStart(3, '0')}` };
    await hosts.register({
      type: 'RegisterHost',
      data: { host: { source: 'request', info: hostInfo(i), capabilities } },
      metadata: metadata(base - HOUR),
    });
  }
  onProgress(`${shape.hosts} hosts registered`);

  const leases = new LeaseUseCases(context);
  const reactions = new LeaseReactionUseCases(context);
  const due: Due[] = [];
  const runDue = async (until: number): Promise<void> => {
    due.sort((a, b) => a.at - b.at);
    let count = 0;
    while (count < due.length && (due[count] as Due).at <= until) count++;
    const now = due.splice(0, count);
    for (let i = 0; i < now.length; i += REACTIONS_AT_ONCE) {
      // reactions asked together are written together (CommandHandler.handleOnStream), as the reactor's are
      const batch = now.slice(i, i + REACTIONS_AT_ONCE);
      await Promise.all(batch.map((item) => react(item)));
    }
  };
  const react = async ({ at, leaseId, phase, reservationIds }: Due): Promise<void> => {
    const begun = await reactions.beginPhase({ type: 'BeginLeasePhase', data: { leaseId, phase }, metadata: metadata(at) });
    if (begun.status !== 'recorded') throw new Error(`${leaseId} ${phase}: ${JSON.stringify(begun)}`);
    const outcomes = reservationIds.map((reservationId) => ({ reservationId, ok: true as const, effects: [] }));
    const completed = await reactions.completePhase({
      type: 'CompleteLeasePhase',
      data: { leaseId, phase, beginId: begun.beginId, outcomes },
      metadata: metadata(at + 1000),
    });
    if (completed.status !== 'recorded') throw new Error(`${leaseId} ${phase}: ${JSON.stringify(completed)}`);
  };

  let created = 0;
  let refused = 0;
  let live = 0;
  for (let i = 0; i < leasesWanted; i++) {
    const now = base + i * stepMs;
    await runDue(now);
    // the API drops ended bookings at each snapshot look; without it the timeline's calendars hold all history
    if (i % FORGET_EVERY === 0) context.index.forgetBookingsEndedBefore(now - PAST_KEPT_MS);
    const start = now + Math.floor(random() * 12) * HOUR + HOUR;
    const end = start + (1 + Math.floor(random() * 24)) * HOUR;
    const wanted = random() < 0.05 ? 3 : 1;
    const reservation = buildHostRequest({
      min: wanted,
      max: wanted,
      hypervisorProperties: '',
      resourceProperties: random() < 0.2 ? '["=", "$gpu", "true"]' : '',
      beforeEnd: 'default',
    });
    const data = {
      name: `scale-lease-${i}`,
      startDate: new Date(start).toISOString(),
      endDate: new Date(end).toISOString(),
      beforeEndDate: null,
      reservations: [reservation],
    };
    try {
      const written = await leases.create({ type: 'CreateLease', data, metadata: metadata(now) });
      const lease = written.events.find((event): event is LeaseCreated => event.type === 'Lease.Created');
      const reservationIds = lease?.data.reservations.map((r) => r.id) ?? [];
      created++;
      if (end > realNow) live++;
      if (start <= realNow) due.push({ at: start, leaseId: written.leaseId, phase: 'start', reservationIds });
      if (end <= realNow) due.push({ at: end, leaseId: written.leaseId, phase: 'end', reservationIds });
    } catch (error) {
      if (!isDomainError(error) || error.kind !== 'conflict') throw error;
      refused++;
    }
    if (i % 10_000 === 0 && i > 0) onProgress(`${i}/${leasesWanted} leases, ${Math.round(performance.now() - started) / 1000} s`);
  }
  await runDue(realNow);
  return {
    hosts: shape.hosts,
    leases: created,
    refused,
    events: await store.headPosition(),
    live,
    seconds: (performance.now() - started) / 1000,
  };
};
