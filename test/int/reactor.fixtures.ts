import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HOST_REGISTRY_STREAM,
  type LeaseCommand,
  type HostRegistryEvent,
  hostDecider,
  hostRegistryDecider,
  hostStream,
  leaseStream,
  type Reservation,
} from '#domain/index.js';
import { appendTo } from '#application/command.js';
import { CommandHandler } from '#application/command-handler.js';
import type { EventMetadata, EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { EffectsRegistry } from '#plugins/effects.port.js';
import { StandaloneCloud } from '#plugins/standalone/standalone-cloud.js';
import { standaloneEffectsRegistry } from '#plugins/standalone/standalone-effects.registry.js';
import { Reactor, type ReactorOptions } from '#reactor/reactor.js';
import type { ReactorLogEntry } from '#reactor/scheduler.js';
import type { FloatingIpReservation } from '#plugins/floating-ip/floating-ip.reservation.js';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import type { SlotAllocation, VirtualInstanceReservation } from '#plugins/instance/instance.reservation.js';

/** A data folder with the event log and the standalone cloud, as the reactor process opens them. */
export class World {
  readonly dir = mkdtempSync(join(tmpdir(), 'reactor-int-'));
  readonly eventsFile = join(this.dir, 'events.sqlite');
  readonly cloudFile = join(this.dir, 'standalone-cloud.sqlite');
  readonly store: EventStore = SqliteEventStore.open({ file: this.eventsFile });
  /** The test's own connection to the cloud, like an operator's. */
  readonly cloud = StandaloneCloud.open({ file: this.cloudFile });
  readonly logs: ReactorLogEntry[] = [];
  private readonly closers: (() => Promise<void> | void)[] = [];

  /** A reactor with its own store and cloud connections, as a separate process would have. */
  async startReactor(options: Partial<ReactorOptions> & { wrap?: (effects: EffectsRegistry) => EffectsRegistry } = {}): Promise<Reactor> {
    const store = SqliteEventStore.open({ file: this.eventsFile });
    const cloud = StandaloneCloud.open({ file: this.cloudFile });
    const standalone = standaloneEffectsRegistry(cloud);
    const { wrap, ...overrides } = options;
    const log = (entry: ReactorLogEntry): number => this.logs.push(entry);
    const reactor = await Reactor.start({ store, effects: wrap?.(standalone) ?? standalone, log, ...overrides });
    this.closers.push(async () => {
      await reactor.stop();
      await store.close();
      cloud.close();
    });
    return reactor;
  }

  /** Stops every reactor started here, each after its actions in flight. */
  async stopReactors(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close();
  }

  async close(): Promise<void> {
    await this.stopReactors();
    await this.store.close();
    this.cloud.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const hostInfo = (hypervisorHostname: string) => ({
  hypervisorHostname,
  serviceName: hypervisorHostname,
  vcpus: 8,
  memoryMb: 16384,
  localGb: 100,
  cpuInfo: '{}',
  hypervisorType: 'QEMU',
  hypervisorVersion: 8002000,
  availabilityZone: 'nova',
});

/** What a user's request records about itself (the API's writers record the same). */
const byUser = (correlationId: string): EventMetadata => ({
  correlationId,
  causationId: correlationId,
  actor: { userId: 'user-1', projectId: 'project-1' },
});

/** Registers hosts the way the API does: the registry hands out ids, the host stream records the facts. */
export const registerHosts = async (store: EventStore, names: readonly string[]): Promise<string[]> => {
  const handler = new CommandHandler(store);
  const ids: string[] = [];
  for (const name of names) {
    const { result: hostId } = await handler.handle(async () => {
      const registry = await handler.load(hostRegistryDecider, HOST_REGISTRY_STREAM);
      const added = hostRegistryDecider.decide({ type: 'AddHostToRegistry', data: { hypervisorHostname: name } }, registry.state);
      const { hostId } = (added[0] as Extract<HostRegistryEvent, { type: 'HostRegistry.HostAdded' }>).data;
      const registered = hostDecider.decide(
        { type: 'RegisterHost', data: { hostId, info: hostInfo(name), capabilities: {}, now: new Date().toISOString() } },
        hostDecider.initialState(),
      );
      const metadata = byUser(`register-${name}`);
      const appends = [
        appendTo(HOST_REGISTRY_STREAM, registry.revision, added, metadata, randomUUID),
        appendTo(hostStream(hostId), 'no_stream', registered, metadata, randomUUID),
      ];
      return { appends, result: hostId };
    });
    ids.push(hostId);
  }
  return ids;
};

/** Whole seconds, like the dates the API accepts. */
export const atSecond = (ms: number): string => new Date(Math.ceil(ms / 1000) * 1000).toISOString();

export interface LeaseSpec {
  readonly startDate: string;
  readonly endDate: string;
  readonly beforeEndDate?: string | null;
  readonly beforeEnd?: HostReservation['beforeEnd'];
  readonly hostIds?: readonly string[];
  /** The lease's one reservation, given its id; a physical:host reservation of `hostIds` when absent. */
  readonly reservation?: (reservationId: string) => Reservation;
  /** The creation time: an earlier one lets a test create a lease whose dates are already past. */
  readonly now?: string;
  /** A given id (the reactor orders leases due at one instant by id): random when absent. */
  readonly leaseId?: string;
}

export interface CreatedLease {
  readonly leaseId: string;
  readonly reservationId: string;
}

const hostReservation = (id: string, spec: LeaseSpec): HostReservation => ({
  id,
  resourceId: randomUUID(),
  resourceType: 'physical:host',
  min: 1,
  max: 1,
  hypervisorProperties: '',
  resourceProperties: '',
  beforeEnd: spec.beforeEnd ?? 'default',
  hostIds: spec.hostIds ?? ['1'],
});

/** A virtual:instance reservation of the given slots (allocation is the API's business: slots are given). */
export const instanceReservation =
  (allocations: readonly SlotAllocation[], affinity: boolean | null = false) =>
  (id: string): VirtualInstanceReservation => ({
    id,
    resourceId: randomUUID(),
    resourceType: 'virtual:instance',
    amount: allocations.reduce((sum, allocation) => sum + allocation.count, 0),
    vcpus: 1,
    memoryMb: 1024,
    diskGb: 10,
    affinity,
    resourceProperties: '',
    allocations,
  });

/** A virtual:floatingip reservation of the given addresses on one network. */
export const floatingIpReservation =
  (networkId: string, addresses: readonly string[]) =>
  (id: string): FloatingIpReservation => ({
    id,
    resourceId: randomUUID(),
    resourceType: 'virtual:floatingip',
    networkId,
    amount: addresses.length,
    requiredFloatingIps: [],
    allocations: addresses.map((address) => ({ floatingIpId: `fip-${address}`, address })),
  });

/** Changes one reservation of a lease as the API's writer does for a lease update (new full state, allocations included). */
export const changeReservation = (store: EventStore, leaseId: string, reservation: Reservation): Promise<void> =>
  decideAndAppend(store, leaseId, {
    type: 'UpdateLease',
    data: {
      leaseId,
      name: null,
      startDate: null,
      endDate: null,
      beforeEndDate: null,
      reservationIds: [reservation.id],
      reservations: [reservation],
      now: new Date().toISOString(),
    },
  });

/** Creates a lease through the real decider (allocation is the API's business: hosts are given). */
export const createLease = async (store: EventStore, spec: LeaseSpec): Promise<CreatedLease> => {
  const leaseId = spec.leaseId ?? randomUUID();
  const reservationId = randomUUID();
  await decideAndAppend(store, leaseId, {
    type: 'CreateLease',
    data: {
      leaseId,
      name: `lease-${leaseId.slice(0, 8)}`,
      projectId: 'project-1',
      userId: 'user-1',
      trustId: null,
      startDate: spec.startDate,
      endDate: spec.endDate,
      beforeEndDate: spec.beforeEndDate ?? null,
      reservations: [spec.reservation?.(reservationId) ?? hostReservation(reservationId, spec)],
      eventIds: { start: randomUUID(), end: randomUUID(), beforeEnd: randomUUID() },
      minutesBeforeEnd: 0,
      now: spec.now ?? new Date().toISOString(),
    },
  });
  return { leaseId, reservationId };
};

/** Loads the lease, decides the command and appends with the expected revision, through the one command handler as the API does. */
export const decideAndAppend = async (store: EventStore, leaseId: string, command: LeaseCommand): Promise<void> => {
  const handler = new CommandHandler(store);
  await handler.handle(async () => {
    const lease = await handler.load(leaseDecider, leaseStream(leaseId));
    const events = leaseDecider.decide(command, lease.state);
    const expected = lease.revision === -1 ? 'no_stream' : lease.revision;
    return { appends: [appendTo(leaseStream(leaseId), expected, events, byUser(`test-${leaseId}`), randomUUID)], result: null };
  });
};

export const leaseEvents = (store: EventStore, leaseId: string): Promise<RecordedEvent[]> => store.readStream(leaseStream(leaseId));

export const typesOf = (events: readonly RecordedEvent[]): string[] => events.map((event) => event.type);

export const find = (events: readonly RecordedEvent[], type: string): RecordedEvent => {
  const found = events.find((event) => event.type === type);
  if (found === undefined) throw new Error(`no ${type} in ${typesOf(events).join(', ')}`);
  return found;
};

/** Bounded polling on a condition; fails with the last observation instead of sleeping blindly. */
export const waitFor = async <T>(observe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await observe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/** Waits until the lease's stream holds an event of `type`, and returns the whole stream. */
export const waitForEvent = (store: EventStore, leaseId: string, type: string, timeoutMs?: number): Promise<RecordedEvent[]> =>
  waitFor(
    () => leaseEvents(store, leaseId),
    (events) => events.some((event) => event.type === type),
    timeoutMs,
  );
