import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type Capabilities,
  type Command,
  type Decider,
  DomainError,
  type DomainEvent,
  HOST_REGISTRY_STREAM,
  type HostInfo,
  type HostRegistryState,
  FLAVOR_CATALOG_STREAM,
  FLOATING_IP_REGISTRY_STREAM,
  type LeasePhase,
  flavorCatalogDecider,
  floatingIpDecider,
  floatingIpRegistryDecider,
  floatingIpStream,
  hostDecider,
  hostRegistryDecider,
  hostStream,
  leaseStream,
  propertyStream,
  resourcePropertyDecider,
} from '#domain/index.js';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import type { FloatingIpReservation } from '#plugins/floating-ip/floating-ip.reservation.js';
import type { VirtualInstanceReservation } from '#plugins/instance/instance.reservation.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import type { Actor, AppendRequest, EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { HOSTILE_STRINGS } from '#event-store/testing/hostile-strings.js';
import {
  AllocationEntity,
  AllocationVersionEntity,
  CheckpointEntity,
  HISTORY_FROM_CHECKPOINT,
  HostEntity,
  LeaseEntity,
  PropertyEntity,
  READ_MODELS,
  READ_MODEL_ENTITIES,
  READ_MODEL_SCHEMA_VERSION,
  type ReadModelDatabase,
  ReservationEntity,
  openReadModel,
} from '#read-model/index.js';
import {
  type Projection,
  ProjectionRunner,
  READ_MODEL_PROJECTIONS,
  type RunnerLogEntry,
  dumpReadModel,
  leasesProjection,
  projectBatch,
  propertyId,
  readCheckpoint,
  readCheckpoints,
  rebuildReadModel,
  writerThreadFromEnv,
} from '#projector/index.js';
import { markSchemaVersion } from '#projector/read-model-schema.js';

// ---------------------------------------------------------------------------------------------
// A tiny write side: runs domain deciders and appends their events atomically, like apps/api does.
// ---------------------------------------------------------------------------------------------

interface Step {
  readonly streamId: string;
  readonly initial: () => unknown;
  readonly run: (state: unknown) => { readonly events: readonly DomainEvent[]; readonly state: unknown };
}

const step = <S, C extends Command, E extends DomainEvent>(streamId: string, decider: Decider<S, C, E>, command: C): Step => ({
  streamId,
  initial: decider.initialState,
  run: (state) => {
    const events = decider.decide(command, state as S);
    return { events, state: events.reduce(decider.evolve, state as S) };
  },
});

class TestWriter {
  private readonly streams = new Map<string, { state: unknown; revision: number }>();
  appended = 0;

  constructor(
    private readonly store: EventStore,
    private readonly actor: Actor,
  ) {}

  state<S>(streamId: string): S | undefined {
    return this.streams.get(streamId)?.state as S | undefined;
  }

  /** Decides every step in order (several may target one stream) and appends all events in one go. */
  async exec(...steps: Step[]): Promise<number> {
    const pending = new Map<string, { state: unknown; revision: number; events: DomainEvent[] }>();
    for (const s of steps) {
      const known = this.streams.get(s.streamId);
      const current = pending.get(s.streamId) ?? { state: known?.state ?? s.initial(), revision: known?.revision ?? -1, events: [] };
      const result = s.run(current.state);
      pending.set(s.streamId, { ...current, state: result.state, events: [...current.events, ...result.events] });
    }
    const correlationId = randomUUID();
    const metadata = { correlationId, causationId: correlationId, actor: this.actor };
    const requests: AppendRequest[] = [...pending]
      .filter(([, p]) => p.events.length > 0)
      .map(([streamId, p]) => ({
        streamId,
        expectedRevision: p.revision === -1 ? 'no_stream' : p.revision,
        events: p.events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata })),
      }));
    if (requests.length === 0) return 0;
    const result = await this.store.appendMultiple(requests);
    for (const [streamId, p] of pending) this.streams.set(streamId, { state: p.state, revision: p.revision + p.events.length });
    this.appended += requests.reduce((n, r) => n + r.events.length, 0);
    return result.position;
  }

  // --- hosts ---

  async registerHost(name: string, capabilities: Capabilities, now: string): Promise<string> {
    const registry = this.state<HostRegistryState>(HOST_REGISTRY_STREAM);
    const hostId = String((registry?.lastHostId ?? 0) + 1);
    const info: HostInfo = {
      hypervisorHostname: name,
      serviceName: name,
      vcpus: 8,
      memoryMb: 16384,
      localGb: 100,
      cpuInfo: '{"arch": "x86_64"}',
      hypervisorType: 'QEMU',
      hypervisorVersion: 8002000,
      availabilityZone: 'nova',
    };
    await this.exec(
      step(HOST_REGISTRY_STREAM, hostRegistryDecider, { type: 'AddHostToRegistry', data: { hypervisorHostname: name } }),
      step(hostStream(hostId), hostDecider, { type: 'RegisterHost', data: { hostId, info, capabilities, now } }),
    );
    return hostId;
  }

  unregisterHost(hostId: string, name: string, now: string): Promise<number> {
    return this.exec(
      step(hostStream(hostId), hostDecider, { type: 'UnregisterHost', data: { now } }),
      step(HOST_REGISTRY_STREAM, hostRegistryDecider, { type: 'RemoveHostFromRegistry', data: { hostId, hypervisorHostname: name } }),
    );
  }

  updateCapabilities(hostId: string, capabilities: Capabilities, now: string): Promise<number> {
    return this.exec(step(hostStream(hostId), hostDecider, { type: 'UpdateHostCapabilities', data: { capabilities, now } }));
  }

  setReservable(hostId: string, reservable: boolean, now: string): Promise<number> {
    return this.exec(step(hostStream(hostId), hostDecider, { type: 'SetHostReservable', data: { reservable, reason: 'test', now } }));
  }

  setPrivacy(propertyName: string, isPrivate: boolean, now: string): Promise<number> {
    return this.exec(
      step(propertyStream(propertyName), resourcePropertyDecider, {
        type: 'SetPropertyPrivacy',
        data: { propertyName, private: isPrivate, known: true, now },
      }),
    );
  }

  // --- leases ---

  async createLease(
    name: string,
    hostId: string,
    startDate: string,
    endDate: string,
    now: string,
  ): Promise<{ leaseId: string; reservationId: string; hostId: string }> {
    const leaseId = randomUUID();
    const reservation: HostReservation = {
      id: randomUUID(),
      resourceId: randomUUID(),
      resourceType: 'physical:host',
      min: 1,
      max: 1,
      hypervisorProperties: '',
      resourceProperties: '',
      beforeEnd: 'default',
      hostIds: [hostId],
    };
    await this.exec(
      step(leaseStream(leaseId), leaseDecider, {
        type: 'CreateLease',
        data: {
          leaseId,
          name,
          projectId: this.actor.projectId,
          userId: this.actor.userId,
          trustId: null,
          startDate,
          endDate,
          beforeEndDate: null,
          reservations: [reservation],
          eventIds: { start: randomUUID(), end: randomUUID(), beforeEnd: randomUUID() },
          minutesBeforeEnd: 60,
          now,
        },
      }),
      step(hostStream(hostId), hostDecider, {
        type: 'BookHost',
        data: { reservationId: reservation.id, leaseId, startDate, endDate, propertyNames: [], cleaningTimeMinutes: 0 },
      }),
    );
    return { leaseId, reservationId: reservation.id, hostId };
  }

  rename(leaseId: string, name: string, now: string): Promise<number> {
    return this.exec(
      step(leaseStream(leaseId), leaseDecider, {
        type: 'UpdateLease',
        data: { leaseId, name, startDate: null, endDate: null, beforeEndDate: null, reservationIds: [], reservations: [], now },
      }),
    );
  }

  reschedule(
    lease: { leaseId: string; reservationId: string; hostId: string },
    startDate: string,
    endDate: string,
    now: string,
  ): Promise<number> {
    return this.exec(
      step(leaseStream(lease.leaseId), leaseDecider, {
        type: 'UpdateLease',
        data: { leaseId: lease.leaseId, name: null, startDate, endDate, beforeEndDate: null, reservationIds: [], reservations: [], now },
      }),
      step(hostStream(lease.hostId), hostDecider, {
        type: 'MoveHostBooking',
        data: { reservationId: lease.reservationId, startDate, endDate, propertyNames: [], cleaningTimeMinutes: 0 },
      }),
    );
  }

  /** Begins then completes a phase, as the reactor does (two appends). */
  async runPhase(lease: { leaseId: string; reservationId: string }, phase: LeasePhase, now: string): Promise<void> {
    const stream = leaseStream(lease.leaseId);
    await this.exec(step(stream, leaseDecider, { type: 'BeginLeasePhase', data: { leaseId: lease.leaseId, phase, now } }));
    await this.completePhase(lease, phase, now);
  }

  completePhase(lease: { leaseId: string; reservationId: string }, phase: LeasePhase, now: string): Promise<number> {
    const outcomes = [{ reservationId: lease.reservationId, ok: true as const, effects: [{ operation: `${phase}:noop` }] }];
    return this.exec(
      step(leaseStream(lease.leaseId), leaseDecider, {
        type: 'CompleteLeasePhase',
        data: { leaseId: lease.leaseId, phase, outcomes, now },
      }),
    );
  }

  // --- instance slots, floating IPs, flavors ---

  async createInstanceLease(name: string, hostId: string, count: number, startDate: string, endDate: string, now: string) {
    const leaseId = randomUUID();
    const size = { vcpus: 2, memoryMb: 2048, diskGb: 10 };
    const reservation: VirtualInstanceReservation = {
      id: randomUUID(),
      resourceId: randomUUID(),
      resourceType: 'virtual:instance',
      amount: count,
      ...size,
      affinity: true,
      resourceProperties: '',
      allocations: [{ hostId, count }],
    };
    await this.exec(
      this.createStep(leaseId, name, [reservation], startDate, endDate, now),
      step(hostStream(hostId), hostDecider, {
        type: 'BookHostSlots',
        data: {
          reservationId: reservation.id,
          leaseId,
          startDate,
          endDate,
          propertyNames: [],
          cleaningTimeMinutes: 0,
          slots: { count, ...size },
          allocationRatios: { cpu: 1, ram: 1, disk: 1 },
        },
      }),
    );
    return { leaseId, reservationId: reservation.id, hostId, reservation };
  }

  /** An active instance reservation grows by one slot, and the reactor records the cloud's answer. */
  async growInstances(
    lease: { leaseId: string; hostId: string; reservation: VirtualInstanceReservation },
    startDate: string,
    endDate: string,
    now: string,
  ) {
    const { reservation } = lease;
    const count = reservation.amount + 1;
    const grown: VirtualInstanceReservation = { ...reservation, amount: count, allocations: [{ hostId: lease.hostId, count }] };
    const changes = { name: null, startDate: null, endDate: null, beforeEndDate: null, reservationIds: [reservation.id] };
    await this.exec(
      step(leaseStream(lease.leaseId), leaseDecider, {
        type: 'UpdateLease',
        data: { leaseId: lease.leaseId, ...changes, reservations: [grown], now },
      }),
      step(hostStream(lease.hostId), hostDecider, {
        type: 'MoveHostSlots',
        data: {
          reservationId: reservation.id,
          startDate,
          endDate,
          propertyNames: [],
          cleaningTimeMinutes: 0,
          slots: { count, vcpus: reservation.vcpus, memoryMb: reservation.memoryMb, diskGb: reservation.diskGb },
          allocationRatios: { cpu: 1, ram: 1, disk: 1 },
        },
      }),
    );
    const outcome = { reservationId: reservation.id, ok: true as const, effects: [{ operation: 'inventory.set', total: count }] };
    await this.exec(
      step(leaseStream(lease.leaseId), leaseDecider, {
        type: 'CompleteReservationUpdates',
        data: { leaseId: lease.leaseId, updates: [{ sequence: 1, outcome }], now },
      }),
    );
  }

  async registerFloatingIp(address: string, now: string): Promise<string> {
    const floatingIpId = randomUUID();
    const networkId = 'net-public';
    await this.exec(
      step(FLOATING_IP_REGISTRY_STREAM, floatingIpRegistryDecider, {
        type: 'AddFloatingIpToRegistry',
        data: { floatingIpId, networkId, address },
      }),
      step(floatingIpStream(floatingIpId), floatingIpDecider, {
        type: 'RegisterFloatingIp',
        data: { floatingIpId, networkId, subnetId: null, address, now },
      }),
    );
    return floatingIpId;
  }

  async createFloatingIpLease(name: string, floatingIpId: string, address: string, startDate: string, endDate: string, now: string) {
    const leaseId = randomUUID();
    const reservation: FloatingIpReservation = {
      id: randomUUID(),
      resourceId: randomUUID(),
      resourceType: 'virtual:floatingip',
      networkId: 'net-public',
      amount: 1,
      requiredFloatingIps: [address],
      allocations: [{ floatingIpId, address }],
    };
    await this.exec(
      this.createStep(leaseId, name, [reservation], startDate, endDate, now),
      step(floatingIpStream(floatingIpId), floatingIpDecider, {
        type: 'BookFloatingIp',
        data: { reservationId: reservation.id, leaseId, startDate, endDate, cleaningTimeMinutes: 0 },
      }),
    );
    return { leaseId, reservationId: reservation.id, floatingIpId };
  }

  addFlavor(id: string, name: string, now: string): Promise<number> {
    const flavor = {
      id,
      name,
      vcpus: 2,
      ram: 2048,
      disk: 20,
      ephemeral: 0,
      swap: 0,
      rxtxFactor: 1,
      isPublic: true,
      extraSpecs: { 'hw:cpu_policy': 'shared' },
    };
    return this.exec(step(FLAVOR_CATALOG_STREAM, flavorCatalogDecider, { type: 'AddFlavor', data: { flavor, now } }));
  }

  private createStep(
    leaseId: string,
    name: string,
    reservations: readonly (VirtualInstanceReservation | FloatingIpReservation)[],
    startDate: string,
    endDate: string,
    now: string,
  ): Step {
    return step(leaseStream(leaseId), leaseDecider, {
      type: 'CreateLease',
      data: {
        leaseId,
        name,
        projectId: this.actor.projectId,
        userId: this.actor.userId,
        trustId: null,
        startDate,
        endDate,
        beforeEndDate: null,
        reservations,
        eventIds: { start: randomUUID(), end: randomUUID(), beforeEnd: randomUUID() },
        minutesBeforeEnd: 0,
        now,
      },
    });
  }

  deleteLease(lease: { leaseId: string; reservationId: string; hostId: string }, now: string): Promise<number> {
    return this.exec(
      step(leaseStream(lease.leaseId), leaseDecider, { type: 'DeleteLease', data: { leaseId: lease.leaseId, now } }),
      step(hostStream(lease.hostId), hostDecider, { type: 'ReleaseHostBooking', data: { reservationId: lease.reservationId } }),
    );
  }
}

// ---------------------------------------------------------------------------------------------

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const at = (offsetMs: number): string => new Date(T0 + offsetMs).toISOString();

/** Leases in the bulk part of the log (~10 events each); raise it for a bigger throughput run. */
const BULK_LEASES = Number(process.env.LEASEHOLD_TEST_PROJECTOR_BULK ?? '300');

interface Scenario {
  readonly hostA: string;
  readonly hostB: string;
  readonly hostGone: string;
  readonly hostBack: string;
  readonly leaseA: { leaseId: string; reservationId: string; hostId: string };
  readonly leaseB: { leaseId: string; reservationId: string; hostId: string };
  readonly leaseC: { leaseId: string; reservationId: string; hostId: string };
}

/** Part 1 of the log: hosts, leases through their whole lifecycle, a deleted lease, bulk traffic. */
const writeHistory = async (w: TestWriter): Promise<Scenario> => {
  const hostA = await w.registerHost('compute-a', { gpu: 'a100', rack: 'r1' }, at(0));
  const hostB = await w.registerHost('compute-b', { rack: 'r2' }, at(1 * MIN));
  const hostGone = await w.registerHost('compute-gone', { legacy: 'yes' }, at(2 * MIN));
  await w.unregisterHost(hostGone, 'compute-gone', at(3 * MIN));
  // same hypervisor name, new host id: the old row must be deleted before the new one is inserted (unique name)
  const hostBack = await w.registerHost('compute-gone', { legacy: 'again' }, at(3 * MIN + 1));
  await w.updateCapabilities(hostA, { rack: 'r9', zone: 'z1' }, at(4 * MIN));
  await w.setReservable(hostB, false, at(5 * MIN));
  await w.setReservable(hostB, true, at(6 * MIN));

  // lease A: created, renamed, rescheduled, started, before-end, ended
  const leaseA = await w.createLease('lease-a', hostA, at(1 * DAY), at(5 * DAY), at(10 * MIN));
  await w.rename(leaseA.leaseId, 'lease-a-renamed', at(20 * MIN));
  await w.reschedule(leaseA, at(2 * DAY), at(6 * DAY), at(30 * MIN));
  await w.runPhase(leaseA, 'start', at(2 * DAY));
  await w.runPhase(leaseA, 'before_end', at(6 * DAY - HOUR));
  await w.runPhase(leaseA, 'end', at(6 * DAY));

  // lease B: created then deleted before it started (booking released)
  const leaseB = await w.createLease('lease-b', hostB, at(3 * DAY), at(4 * DAY), at(11 * MIN));
  await w.deleteLease(leaseB, at(1 * HOUR));

  // lease C: stays pending
  const leaseC = await w.createLease('lease-c', hostA, at(10 * DAY), at(12 * DAY), at(12 * MIN));
  // a reallocation releases then books the same reservation on the same host: same allocation id in one batch
  await w.exec(
    step(hostStream(hostA), hostDecider, { type: 'ReleaseHostBooking', data: { reservationId: leaseC.reservationId } }),
    step(hostStream(hostA), hostDecider, {
      type: 'BookHost',
      data: {
        reservationId: leaseC.reservationId,
        leaseId: leaseC.leaseId,
        startDate: at(10 * DAY),
        endDate: at(12 * DAY),
        propertyNames: [],
        cleaningTimeMinutes: 0,
      },
    }),
  );

  // instance slots on the re-registered host: started, grown while active (update outcome recorded), ended
  const instances = await w.createInstanceLease('lease-slots', hostBack, 2, at(7 * DAY), at(8 * DAY), at(15 * MIN));
  await w.runPhase(instances, 'start', at(7 * DAY));
  await w.growInstances(instances, at(7 * DAY), at(8 * DAY), at(7 * DAY + HOUR));
  await w.runPhase(instances, 'end', at(8 * DAY));
  // a registered floating IP held by a pending lease, another one free; a catalog flavor
  const fip = await w.registerFloatingIp('172.24.4.10', at(16 * MIN));
  await w.registerFloatingIp('2001:db8::10', at(16 * MIN + 1));
  await w.createFloatingIpLease('lease-fip', fip, '172.24.4.10', at(9 * DAY), at(10 * DAY), at(17 * MIN));
  await w.addFlavor('3', 'm1.medium', at(18 * MIN));

  // bulk: many hosts, leases going through their whole lifecycle (multi-batch catch-up)
  const bulkHosts: string[] = [];
  for (let i = 0; i < Math.max(1, Math.ceil(BULK_LEASES / 20)); i++) {
    bulkHosts.push(await w.registerHost(`bulk-${i}`, { [`bulk-cap-${i % 7}`]: String(i) }, at(7 * MIN + i)));
  }
  for (let i = 0; i < BULK_LEASES; i++) {
    const hostId = bulkHosts[i % bulkHosts.length] as string;
    const slot = Math.floor(i / bulkHosts.length);
    const start = 20 * DAY + slot * 2 * DAY;
    const lease = await w.createLease(`bulk-lease-${i}`, hostId, at(start), at(start + DAY), at(13 * MIN));
    if (i % 3 === 0) await w.rename(lease.leaseId, `bulk-lease-${i}-renamed`, at(14 * MIN));
    await w.runPhase(lease, 'start', at(start));
    if (i % 2 === 0) await w.runPhase(lease, 'end', at(start + DAY));
  }
  return { hostA, hostB, hostGone, hostBack, leaseA, leaseB, leaseC };
};

/** Part 2, written while the live runner is tailing the log. */
const writeLiveTail = async (w: TestWriter, s: Scenario): Promise<{ leaseD: Scenario['leaseA'] }> => {
  await w.setPrivacy('gpu', true, at(2 * HOUR));
  await w.setPrivacy('zone', true, at(2 * HOUR + MIN));
  await w.setPrivacy('zone', false, at(2 * HOUR + 2 * MIN));
  // lease D: deleted while active (EndRequested + Deleted), its end completed after the deletion
  const leaseD = await w.createLease('lease-d', s.hostB, at(15 * DAY), at(17 * DAY), at(3 * HOUR));
  await w.runPhase(leaseD, 'start', at(15 * DAY));
  await w.deleteLease(leaseD, at(15 * DAY + HOUR));
  await w.completePhase(leaseD, 'end', at(15 * DAY + HOUR));
  return { leaseD };
};

const waitForCheckpoint = async (orm: MikroORM, position: number, timeout = 60_000): Promise<void> => {
  await vi.waitFor(
    async () => {
      expect(await readCheckpoint(orm.em)).toBeGreaterThanOrEqual(position);
    },
    { timeout, interval: 10 },
  );
};

const sqlite = (file: string): ReadModelDatabase => ({ kind: 'sqlite', file });

// ---------------------------------------------------------------------------------------------

describe('projector on SQLite', () => {
  let dir: string;
  let store: EventStore;
  let writer: TestWriter;
  let scenario: Scenario;
  const orms: MikroORM[] = [];
  const open = async (db: ReadModelDatabase): Promise<MikroORM> => {
    const orm = await openReadModel(db);
    orms.push(orm);
    return orm;
  };
  let live: MikroORM;
  let liveDump: Record<string, unknown[]>;
  let rebuiltDump: Record<string, unknown[]>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-projector-'));
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    writer = new TestWriter(store, { userId: 'user-1', projectId: 'project-1' });
    scenario = await writeHistory(writer);
  }, 120_000);

  afterAll(async () => {
    for (const orm of orms) await orm.close();
    await store?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('(a) projects the log live: catch-up, then tail, with the checkpoint at the head', async () => {
    live = await open(sqlite(join(dir, 'read-model.sqlite')));
    const runner = new ProjectionRunner({ store, orm: live });
    const historyHead = await store.headPosition();
    const started = performance.now();
    await runner.start();
    await waitForCheckpoint(live, historyHead);
    const seconds = (performance.now() - started) / 1000;
    console.info(`[projector] catch-up: ${historyHead} events in ${seconds.toFixed(2)} s = ${Math.round(historyHead / seconds)} events/s`);
    await runner.caughtUp;

    const { leaseD } = await writeLiveTail(writer, scenario);
    const head = await store.headPosition();
    await waitForCheckpoint(live, head);
    expect(runner.position()).toBe(head);
    await runner.stop();
    expect(await readCheckpoint(live.em)).toBe(head);

    const em = live.em.fork();
    const { hostA, hostB, hostGone, leaseA, leaseB, leaseC } = scenario;

    // leases: A went PENDING -> ACTIVE -> TERMINATED through its lifecycle
    const a = await em.findOneOrFail(LeaseEntity, { id: leaseA.leaseId });
    expect(a.doc.status).toBe('TERMINATED');
    expect(a.status).toBe('TERMINATED');
    expect(a.name).toBe('lease-a-renamed');
    expect(a.doc.name).toBe('lease-a-renamed');
    expect([a.startDate, a.endDate]).toEqual([at(2 * DAY), at(6 * DAY)]);
    expect(a.doc.start_date).toBe('2030-01-03T00:00:00.000000');
    expect(a.doc.events.map((e) => [e.event_type, e.status])).toEqual([
      ['start_lease', 'DONE'],
      ['end_lease', 'DONE'],
      ['before_end_lease', 'DONE'],
    ]);
    expect(a.doc.reservations.map((r) => r.status)).toEqual(['deleted']);
    expect(a.projectId).toBe('project-1');
    expect(a.userId).toBe('user-1');

    const c = await em.findOneOrFail(LeaseEntity, { id: leaseC.leaseId });
    expect([c.status, c.doc.status]).toEqual(['PENDING', 'PENDING']);
    expect(await em.findOne(LeaseEntity, { id: leaseB.leaseId })).toBeNull();
    expect(await em.findOne(LeaseEntity, { id: leaseD.leaseId })).toBeNull();
    const statuses = new Map((await em.find(LeaseEntity, { name: { $like: 'bulk-lease-%' } })).map((l) => [l.name, l.status]));
    expect(statuses.size).toBe(BULK_LEASES);
    expect(statuses.get('bulk-lease-0-renamed')).toBe('TERMINATED');
    if (BULK_LEASES > 1) expect(statuses.get('bulk-lease-1')).toBe('ACTIVE');

    // reservations follow their lease
    expect(await em.find(ReservationEntity, { leaseId: leaseA.leaseId })).toEqual([
      expect.objectContaining({ id: leaseA.reservationId, projectId: 'project-1', resourceType: 'physical:host', status: 'deleted' }),
    ]);
    expect(await em.find(ReservationEntity, { leaseId: leaseC.leaseId })).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect(await em.find(ReservationEntity, { leaseId: { $in: [leaseB.leaseId, leaseD.leaseId] } })).toEqual([]);

    // allocations: booked, moved, released (whole hosts: no slot sizes)
    const WHOLE_HOST = { slotCount: null, slotVcpus: null, slotMemoryMb: null, slotDiskGb: null };
    const allocations = await em.find(AllocationEntity, { hostId: { $in: [hostA, hostB] } }, { orderBy: { startDate: 'asc' } });
    expect(allocations.map((x) => ({ ...x }))).toEqual([
      {
        id: `${leaseA.reservationId}:${hostA}`,
        hostId: hostA,
        reservationId: leaseA.reservationId,
        leaseId: leaseA.leaseId,
        startDate: at(2 * DAY),
        endDate: at(6 * DAY),
        ...WHOLE_HOST,
        since: expect.any(Number),
      },
      {
        id: `${leaseC.reservationId}:${hostA}`,
        hostId: hostA,
        reservationId: leaseC.reservationId,
        leaseId: leaseC.leaseId,
        startDate: at(10 * DAY),
        endDate: at(12 * DAY),
        ...WHOLE_HOST,
        since: expect.any(Number),
      },
    ]);
    // the moved booking keeps what it was before the move, valid up to the move
    const [moved] = allocations;
    const versions = await em.find(AllocationVersionEntity, { id: moved?.id ?? '' }, { orderBy: { validFrom: 'asc' } });
    expect(versions.at(-1)?.validTo).toBe(moved?.since);
    expect(versions.every((version) => version.validFrom < version.validTo)).toBe(true);
    expect(versions.at(-1)).not.toMatchObject({ startDate: at(2 * DAY), endDate: at(6 * DAY) });

    // hosts: merged capabilities, reservable flag, unregistered host gone
    const hA = await em.findOneOrFail(HostEntity, { id: hostA });
    expect(hA.capabilities).toEqual({ gpu: 'a100', rack: 'r9', zone: 'z1' });
    expect(hA.doc).toMatchObject({ id: hostA, hypervisor_hostname: 'compute-a', gpu: 'a100', rack: 'r9', zone: 'z1', reservable: true });
    expect(hA.doc.updated_at).toBe('2030-01-01 00:04:00');
    expect(hA.sortKey).toBe(Number(hostA));
    const hB = await em.findOneOrFail(HostEntity, { id: hostB });
    expect([hB.doc.reservable, hB.doc.updated_at]).toEqual([true, '2030-01-01 00:06:00']);
    expect(await em.findOne(HostEntity, { id: hostGone })).toBeNull();
    const back = await em.findOneOrFail(HostEntity, { id: scenario.hostBack });
    expect([back.hypervisorHostname, back.capabilities]).toEqual(['compute-gone', { legacy: 'again' }]);

    // properties: every capability name ever seen (even of an unregistered host), deterministic ids
    const props = new Map((await em.find(PropertyEntity, {})).map((p) => [p.name, p]));
    expect(props.get('gpu')).toEqual(
      expect.objectContaining({ id: propertyId('gpu'), private: true, createdAt: at(0), updatedAt: at(2 * HOUR) }),
    );
    expect(props.get('zone')).toEqual(
      expect.objectContaining({ private: false, createdAt: at(4 * MIN), updatedAt: at(2 * HOUR + 2 * MIN) }),
    );
    expect(props.get('rack')).toEqual(expect.objectContaining({ private: false, createdAt: at(0), updatedAt: null }));
    expect(props.get('legacy')).toEqual(expect.objectContaining({ createdAt: at(2 * MIN) }));
    expect(propertyId('gpu')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    liveDump = await dumpReadModel(live);
    // the other reservation types and registries reached their tables
    expect([liveDump.lh_floatingips?.length, liveDump.lh_floatingip_allocations?.length, liveDump.lh_flavors?.length]).toEqual([2, 1, 1]);
    const slots = (await em.findOne(LeaseEntity, { name: 'lease-slots' }))?.doc;
    const [instances] = slots?.reservations ?? [];
    expect([slots?.status, instances?.resource_type, instances !== undefined && 'amount' in instances ? instances.amount : null]).toEqual([
      'TERMINATED',
      'virtual:instance',
      3,
    ]);
    expect(await em.find(AllocationEntity, { reservationId: instances?.id ?? '' })).toEqual([expect.objectContaining({ slotCount: 3 })]);
  }, 120_000);

  it('(b) a rebuild into another database through the same runner equals the live read model', async () => {
    const target = await open(sqlite(join(dir, 'rebuilt.sqlite')));
    const head = await store.headPosition();
    const result = await rebuildReadModel({ store, orm: target });
    expect(result).toEqual({ rebuilt: true, position: head, events: head });
    rebuiltDump = await dumpReadModel(target);
    expect(rebuiltDump).toEqual(liveDump);
    expect(JSON.stringify(rebuiltDump)).toBe(JSON.stringify(liveDump));
    const checkpoint = (name: string) => ({
      name,
      position: head,
      failedPosition: null,
      failedEventType: null,
      error: null,
      failedAt: null,
    });
    // and the versions are complete from the start of the log
    const historyFrom = { ...checkpoint(HISTORY_FROM_CHECKPOINT), position: 0 };
    expect(rebuiltDump.lh_checkpoints).toEqual(
      [...[...READ_MODELS].map(checkpoint), historyFrom].sort((x, y) => (x.name < y.name ? -1 : 1)),
    );

    // a second rebuild of the same target drops what was there and lands on the same rows
    await expect(rebuildReadModel({ store, orm: target, batchSize: 37 })).resolves.toEqual(result);
    expect(await dumpReadModel(target)).toEqual(liveDump);
  }, 120_000);

  /**
   * With `catchUpBatchSize` at the batch size the catch-up folds on this thread and writes on the writer
   * thread (SqlitePipeline): a fault found while folding there is found again in a transaction of its own.
   */
  const faultStopsItsProjection = async (file: string, catchUpBatchSize: number | undefined, throwsExpected: number): Promise<void> => {
    const batchSize = 50;
    const all = await store.readAll({ from: 0 });
    // fail mid-batch, on a lease event with earlier events of the same batch before it
    // a few batches in, so that the writer thread has written some before it
    const victim = all.find(
      (e) => e.type === 'Lease.Started' && e.position > 3 * batchSize && e.position % batchSize >= 10 && e.position % batchSize <= 45,
    );
    expect(victim).toBeDefined();
    const failAt = (victim as RecordedEvent).position;

    let thrown = 0;
    const faulty: Projection = {
      ...leasesProjection,
      async apply(em, event) {
        await leasesProjection.apply(em, event);
        if (event.position === victim?.position) {
          thrown++;
          // write the batch's rows so far into the open transaction, so the rollback has something to undo
          await em.write();
          throw new Error('injected projection fault');
        }
      },
    };
    const crashed = await open(sqlite(join(dir, file)));
    const projections = READ_MODEL_PROJECTIONS.map((p) => (p === leasesProjection ? faulty : p));
    const logs: unknown[] = [];
    const runner = new ProjectionRunner({
      store,
      orm: crashed,
      projections,
      batchSize,
      ...(catchUpBatchSize === undefined ? {} : { catchUpBatchSize }),
      log: (entry) => logs.push(entry),
    });
    await runner.start();
    await expect(runner.caughtUp).rejects.toThrow('injected projection fault');
    const head = await store.headPosition();
    // the other projections are not held back by the leases projection
    await vi.waitFor(
      async () => {
        const checkpoints = await readCheckpoints(crashed.em, READ_MODELS);
        expect([...checkpoints].filter(([name]) => name !== 'leases').map(([, position]) => position)).toEqual(
          new Array(READ_MODELS.length - 1).fill(head),
        );
      },
      { timeout: 60_000, interval: 20 },
    );
    await runner.stop();
    // the batch (folded for the writer thread, then in a transaction of its own), then the event alone, to name it exactly
    expect(thrown).toBe(throwsExpected);
    expect(runner.batchesByWriterThread() > 0).toBe(catchUpBatchSize !== undefined);
    expect((runner.failure() as Error).message).toBe('injected projection fault');
    expect(logs).toContainEqual(
      expect.objectContaining({ event: 'error', projection: 'leases', failedPosition: failAt, error: 'injected projection fault' }),
    );
    expect(runner.status().find((status) => status.name === 'leases')).toEqual({
      name: 'leases',
      position: failAt - 1,
      failure: expect.objectContaining({
        position: failAt,
        eventType: 'Lease.Started',
        error: 'injected projection fault',
        attempts: 1,
        retryAt: null,
      }),
    });

    // the failure is recorded beside the checkpoint, which stops right before the faulty event
    const row = await crashed.em.fork().findOneOrFail(CheckpointEntity, { name: 'leases' });
    expect({ ...row, failedAt: typeof row.failedAt }).toEqual({
      name: 'leases',
      position: failAt - 1,
      failedPosition: failAt,
      failedEventType: 'Lease.Started',
      error: 'injected projection fault',
      failedAt: 'string',
    });

    // the leases read model is exactly the log's prefix up to the event before the faulty one: nothing of it leaked
    const prefix = await open(sqlite(join(dir, `prefix-${file}`)));
    await projectBatch(
      prefix,
      [leasesProjection],
      all.filter((e) => e.position < failAt),
    );
    const crashedDump = await dumpReadModel(crashed);
    const prefixDump = await dumpReadModel(prefix);
    expect([crashedDump.lh_leases, crashedDump.lh_reservations]).toEqual([prefixDump.lh_leases, prefixDump.lh_reservations]);
    expect(crashedDump.lh_hosts).toEqual(rebuiltDump.lh_hosts);
    const victimLease = (victim as RecordedEvent<{ leaseId: string }>).data.leaseId;
    const victimRow = await crashed.em.fork().findOne(LeaseEntity, { id: victimLease });
    expect(victimRow?.status ?? 'absent').not.toBe('ACTIVE');

    // restart without the fault: resumes from the checkpoint, clears the failure and ends equal to a clean rebuild
    const restarted = new ProjectionRunner({ store, orm: crashed, batchSize });
    await restarted.start();
    await waitForCheckpoint(crashed, await store.headPosition());
    await restarted.stop();
    expect(restarted.eventsProjected()).toBe((await store.headPosition()) - (failAt - 1));
    expect(await dumpReadModel(crashed)).toEqual(rebuiltDump);
  };

  it('(c) a projection that cannot project an event stops right before it and says why; the others go on; a restart resumes it', async () => {
    await faultStopsItsProjection('crashed.sqlite', undefined, 2);
  }, 120_000);

  it('(c1) the same in a catch-up written by the writer thread', async () => {
    await faultStopsItsProjection('crashed-pipelined.sqlite', 50, 3);
  }, 120_000);

  /** A batch the writer thread cannot write, at the event `victimOf` picks among the leases projection's (the log, in batches of 50). */
  const refusedBatch = async (
    file: string,
    victimOf: (leaseEvents: readonly RecordedEvent[]) => RecordedEvent | undefined,
  ): Promise<void> => {
    const batchSize = 50;
    const all = await store.readAll({ from: 0 });
    const victim = victimOf(all.filter((e) => leasesProjection.canHandle.includes(e.type)));
    expect(victim).toBeDefined();
    const failAt = (victim as RecordedEvent).position;
    // at the victim the projection also writes a twin of a host under another id: lh_hosts holds hypervisor_hostname unique
    const clashing: Projection = {
      ...leasesProjection,
      async apply(rows, event) {
        await leasesProjection.apply(rows, event);
        if (event.position !== victim?.position) return;
        const host = await rows.table(HostEntity).get(scenario.hostA);
        if (host !== null) rows.table(HostEntity).put({ ...host, id: `${host.id}-twin` });
      },
    };
    const orm = await open(sqlite(join(dir, file)));
    const projections = READ_MODEL_PROJECTIONS.map((p) => (p === leasesProjection ? clashing : p));
    const logs: RunnerLogEntry[] = [];
    const runner = new ProjectionRunner({
      store,
      orm,
      projections,
      batchSize,
      catchUpBatchSize: batchSize,
      log: (entry) => logs.push(entry),
    });
    await runner.start();
    await expect(runner.caughtUp).rejects.toThrow(/UNIQUE constraint failed/);
    const head = await store.headPosition();
    await vi.waitFor(
      async () => {
        const checkpoints = await readCheckpoints(orm.em, READ_MODELS);
        expect([...checkpoints].filter(([name]) => name !== 'leases').map(([, position]) => position)).toEqual(
          new Array(READ_MODELS.length - 1).fill(head),
        );
      },
      { timeout: 60_000, interval: 20 },
    );
    await runner.stop();
    expect(runner.batchesByWriterThread()).toBeGreaterThan(0);
    expect(logs).toContainEqual(
      expect.objectContaining({ event: 'error', phase: 'catch-up', error: expect.stringMatching(/UNIQUE constraint failed/) }),
    );
    expect(runner.status().find((status) => status.name === 'leases')).toEqual({
      name: 'leases',
      position: failAt - 1,
      failure: expect.objectContaining({
        position: failAt,
        eventType: victim?.type,
        error: expect.stringMatching(/UNIQUE constraint failed/),
        retryAt: null,
      }),
    });
    // nothing of the refused batch, nor of any after it, was kept: the leases are exactly the log's prefix, the rest as a clean rebuild
    const prefix = await open(sqlite(join(dir, `prefix-${file}`)));
    await projectBatch(
      prefix,
      [leasesProjection],
      all.filter((e) => e.position < failAt),
    );
    const [dump, prefixDump] = [await dumpReadModel(orm), await dumpReadModel(prefix)];
    expect([dump.lh_leases, dump.lh_reservations, dump.lh_lease_versions]).toEqual([
      prefixDump.lh_leases,
      prefixDump.lh_reservations,
      prefixDump.lh_lease_versions,
    ]);
    expect([dump.lh_hosts, dump.lh_allocations]).toEqual([rebuiltDump.lh_hosts, rebuiltDump.lh_allocations]);
  };

  it('(c1b) a batch the writer thread cannot write (a unique index refuses a row) writes nothing; the catch-up finds the event in a transaction of its own', async () => {
    await refusedBatch('refused.sqlite', (events) =>
      events.find((e) => e.type === 'Lease.Started' && e.position > 150 && e.position % 50 >= 10),
    );
  }, 120_000);

  it("(c1b2) the same when the refused batch is the catch-up's last one", async () => {
    const head = await store.headPosition();
    // the last batch of 50 from position 0 starts after the last multiple of 50 below the head
    await refusedBatch('refused-last.sqlite', (events) => events.findLast((e) => e.position > Math.floor((head - 1) / 50) * 50));
  }, 120_000);

  it('(c1d) with the writer thread off (LEASEHOLD_PROJECTOR_WRITER_THREAD=off) the same catch-up runs on one thread to the same read model', async () => {
    const orm = await open(sqlite(join(dir, 'one-thread.sqlite')));
    const runner = new ProjectionRunner({ store, orm, batchSize: 50, catchUpBatchSize: 50, writerThread: writerThreadFromEnv('off') });
    await runner.start();
    await runner.caughtUp;
    await runner.stop();
    expect(runner.batchesByWriterThread()).toBe(0);
    expect(await dumpReadModel(orm)).toEqual(rebuiltDump);
  }, 120_000);

  it('(c1c) two projectors catching up one read model at once through writer threads project every event once', async () => {
    const file = join(dir, 'two-writers.sqlite');
    const first = await open(sqlite(file));
    const second = await open(sqlite(file));
    const runners = [first, second].map((orm) => new ProjectionRunner({ store, orm, batchSize: 50, catchUpBatchSize: 50 }));
    await Promise.all(runners.map((runner) => runner.start()));
    await Promise.all(runners.map((runner) => runner.caughtUp));
    await Promise.all(runners.map((runner) => runner.stop()));
    expect(runners.map((runner) => runner.status().every((status) => status.failure === null))).toEqual([true, true]);
    expect(await dumpReadModel(first)).toEqual(rebuiltDump);
  }, 120_000);

  it('(c2) with a retry delay, a failed batch is retried from the checkpoint until it succeeds', async () => {
    const all = await store.readAll({ from: 0 });
    const victim = all.find((e) => e.type === 'Lease.Ended') as RecordedEvent;
    let failures = 0;
    const flaky: Projection = {
      ...leasesProjection,
      async apply(em, event) {
        // each try runs the batch, then the event alone: the first try and the first retry fail
        if (event.position === victim.position && failures < 4) {
          failures++;
          throw new Error(`transient fault ${failures}`);
        }
        await leasesProjection.apply(em, event);
      },
    };
    const orm = await open(sqlite(join(dir, 'retried.sqlite')));
    const logs: Array<Record<string, unknown>> = [];
    const runner = new ProjectionRunner({
      store,
      orm,
      projections: READ_MODEL_PROJECTIONS.map((p) => (p === leasesProjection ? flaky : p)),
      retryDelayMs: 5,
      log: (entry) => logs.push(entry),
    });
    await runner.start();
    await runner.caughtUp;
    await runner.stop();
    expect(failures).toBe(4);
    expect(logs.filter((l) => l.event === 'retry').map((l) => l.inMs)).toEqual([5, 10]);
    expect(logs).toContainEqual(expect.objectContaining({ event: 'recovered', projection: 'leases', attempts: 2 }));
    expect(runner.failure()).toBeUndefined();
    expect(await dumpReadModel(orm)).toEqual(rebuiltDump);
  });
  it('(c2b) a retry waits its delay on the steady clock: a step of the wall clock back does not hold it back', async () => {
    const all = await store.readAll({ from: 0 });
    const victim = all.find((e) => e.type === 'Lease.Ended') as RecordedEvent;
    let failures = 0;
    const flaky: Projection = {
      ...leasesProjection,
      async apply(em, event) {
        // the batch, then the event alone: one try
        if (event.position === victim.position && failures < 2) {
          failures++;
          throw new Error(`transient fault ${failures}`);
        }
        await leasesProjection.apply(em, event);
      },
    };
    const orm = await open(sqlite(join(dir, 'stepped.sqlite')));
    let stepMs = 0;
    const runner = new ProjectionRunner({
      store,
      orm,
      projections: READ_MODEL_PROJECTIONS.map((p) => (p === leasesProjection ? flaky : p)),
      retryDelayMs: 50,
      clock: () => new Date(Date.now() + stepMs),
      // once the retry is set, the wall clock steps two hours back
      log: (entry) => {
        if (entry.event === 'retry') stepMs = -2 * HOUR;
      },
    });
    await runner.start();
    await runner.caughtUp;
    await runner.stop();
    expect(failures).toBe(2);
    expect(stepMs).toBe(-2 * HOUR);
    expect(await dumpReadModel(orm)).toEqual(rebuiltDump);
  });

  it("(c2c) a batch takes the read model's write lock first: another connection writing meanwhile waits, and the batch does not fail", async () => {
    const all = await store.readAll({ from: 0, limit: 200 });
    const file = join(dir, 'intruded.sqlite');
    const orm = await open(sqlite(file));
    const other = new Database(file, { timeout: 0 });
    let intruder: unknown = null;
    const intruding: Projection = {
      ...leasesProjection,
      canHandle: [...new Set([...leasesProjection.canHandle, ...all.map((e) => e.type)])],
      async apply(em, event) {
        // another connection (an operator, a rebuild's swap) writes in the middle of the batch
        if (intruder === null)
          intruder = (() => {
            try {
              other.exec('create table if not exists operator_notes (note text)');
              return 'written';
            } catch (error) {
              return (error as { code?: string }).code ?? String(error);
            }
          })();
        if (leasesProjection.canHandle.includes(event.type)) await leasesProjection.apply(em, event);
      },
    };
    const outcomes = await projectBatch(orm, [intruding], all);
    other.close();
    expect(intruder).toBe('SQLITE_BUSY');
    expect(outcomes.get('leases')).toEqual({ position: all.at(-1)?.position, fault: null });
  });

  it('(c3) a read model built from another log (its checkpoints beyond the head) is reported by every projection', async () => {
    const other = SqliteEventStore.open({ file: join(dir, 'other-events.sqlite') });
    const orm = await open(sqlite(join(dir, 'rebuilt.sqlite')));
    const before = await dumpReadModel(orm);
    const runner = new ProjectionRunner({ store: other, orm, retryDelayMs: 5 });
    try {
      await runner.start();
      expect(runner.status().map((status) => status.failure?.error)).toEqual(
        READ_MODEL_PROJECTIONS.map(() => expect.stringContaining("is beyond the log's head 0: it was built from another log")),
      );
      expect(await dumpReadModel(orm)).toEqual(before);
    } finally {
      await runner.stop();
      await other.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// PostgreSQL read model (set LEASEHOLD_TEST_PG_URL to a throwaway database: its lh_* tables are dropped).
// ---------------------------------------------------------------------------------------------

const PG_URL = process.env.LEASEHOLD_TEST_PG_URL;

describe.skipIf(PG_URL === undefined || PG_URL === '')('projector on PostgreSQL', () => {
  let dir: string;
  let store: EventStore;
  let orm: MikroORM;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-projector-pg-'));
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    const writer = new TestWriter(store, { userId: 'user-pg', projectId: 'project-pg' });
    const scenario = await writeHistory(writer);
    await writeLiveTail(writer, scenario);
    orm = await openReadModel({ kind: 'postgresql', url: PG_URL as string });
    await orm.schema.refreshDatabase();
  }, 120_000);

  afterAll(async () => {
    await orm?.close();
    await store?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('(d) live projection and rebuild produce the same PostgreSQL read model', async () => {
    const runner = new ProjectionRunner({ store, orm });
    const head = await store.headPosition();
    const started = performance.now();
    await runner.start();
    await waitForCheckpoint(orm, head);
    const seconds = (performance.now() - started) / 1000;
    console.info(`[projector] PostgreSQL catch-up: ${head} events in ${seconds.toFixed(2)} s = ${Math.round(head / seconds)} events/s`);
    await runner.stop();
    const liveDump = await dumpReadModel(orm);
    expect(liveDump.lh_leases?.length).toBeGreaterThan(0);

    await expect(rebuildReadModel({ store, orm })).resolves.toEqual({ rebuilt: true, position: head, events: head });
    expect(await dumpReadModel(orm)).toEqual(liveDump);
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------
// Batching: a random workload projected in batches equals the same log projected one event at a time.
// ---------------------------------------------------------------------------------------------

/** mulberry32: a seeded generator, so that a failing workload can be written again (the seed is in the test's name). */
const seeded = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

interface RandomLease {
  readonly leaseId: string;
  readonly reservationId: string;
  readonly hostId: string;
  readonly start: number;
  readonly end: number;
}

/**
 * `operations` random writes through the deciders: hosts registered, changed and unregistered,
 * leases created, renamed, rescheduled, started, ended and deleted, privacy changes, floating IPs
 * and their leases, flavors. A write the deciders refuse (an overlap, a lease not in the right
 * state) appends nothing and the workload goes on. One name or capability value in four is a hostile
 * string (HOSTILE_STRINGS: NUL, lone surrogates, quotes, SQL, very long text), kept unique where it
 * must be by the operation's number.
 */
const writeRandomWorkload = async (w: TestWriter, seed: number, operations: number): Promise<void> => {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)];
  const named = (plain: string, n: number): string => (random() < 0.25 ? `${pick(HOSTILE_STRINGS)?.value ?? ''}${n}` : plain);
  const hosts: { id: string; name: string }[] = [];
  const leases: RandomLease[] = [];
  const fips: { id: string; address: string }[] = [];
  const caps = ['rack', 'gpu', 'zone', 'ssd'];
  const capabilities = (): Capabilities =>
    Object.fromEntries(caps.filter(() => random() < 0.5).map((name) => [name, named(String(Math.floor(random() * 3)), 0)]));
  for (let n = 0; n < operations; n++) {
    const now = at(n * MIN);
    const roll = random();
    const host = pick(hosts);
    const lease = pick(leases);
    try {
      if (roll < 0.1 || host === undefined) {
        const name = named(`random-${n}`, n);
        hosts.push({ id: await w.registerHost(name, capabilities(), now), name });
      } else if (roll < 0.15) await w.updateCapabilities(host.id, capabilities(), now);
      else if (roll < 0.18) await w.setReservable(host.id, random() < 0.5, now);
      else if (roll < 0.2) await w.setPrivacy(pick(caps) ?? 'rack', random() < 0.5, now);
      else if (roll < 0.22) await w.unregisterHost(host.id, host.name, now);
      else if (roll < 0.5 || lease === undefined) {
        const start = 30 * DAY + Math.floor(random() * 200) * DAY;
        const end = start + (1 + Math.floor(random() * 3)) * DAY;
        leases.push({ ...(await w.createLease(named(`lease-${n}`, n), host.id, at(start), at(end), now)), start, end });
      } else if (roll < 0.62) await w.rename(lease.leaseId, named(`lease-${n}-renamed`, n), now);
      else if (roll < 0.7) await w.reschedule(lease, at(lease.start), at(lease.end + DAY), now);
      else if (roll < 0.78) await w.runPhase(lease, 'start', at(lease.start));
      else if (roll < 0.84) await w.runPhase(lease, 'end', at(lease.end));
      else if (roll < 0.89) await w.deleteLease(lease, now);
      else if (roll < 0.93)
        fips.push({
          id: await w.registerFloatingIp(`10.9.${Math.floor(n / 250)}.${n % 250}`, now),
          address: `10.9.${Math.floor(n / 250)}.${n % 250}`,
        });
      else if (roll < 0.98) {
        const fip = pick(fips);
        const start = 30 * DAY + Math.floor(random() * 200) * DAY;
        if (fip !== undefined) await w.createFloatingIpLease(`fip-lease-${n}`, fip.id, fip.address, at(start), at(start + DAY), now);
      } else await w.addFlavor(String(n), `flavor-${n}`, now);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }
};

const readModelOf = async (file: string): Promise<Record<string, unknown[]>> => {
  const orm = await openReadModel(sqlite(file));
  try {
    return await dumpReadModel(orm);
  } finally {
    await orm.close();
  }
};

/** The lowest checkpoint of the read-model file (or of a rebuild's copy in it), read the way an operator would (null while it has none). */
const checkpointInFile = (file: string, table = 'lh_checkpoints'): number | null => {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare(`select name, position from "${table}"`).all() as { name: string; position: number }[];
      const positions = READ_MODELS.map((name) => rows.find((row) => row.name === name)?.position ?? 0);
      return Math.min(...positions);
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
};

/** Every table's row count and the checkpoints, read in one transaction of `db`: two read models differ in it. */
const tableDigestOn = (db: Database.Database, tables: readonly string[]): string =>
  db.transaction(() =>
    JSON.stringify([
      ...tables.map((table) => db.prepare(`select count(*) from "${table}"`).pluck().get()),
      db.prepare(`select group_concat(name || '=' || position) from (select * from lh_checkpoints order by name)`).pluck().get(),
    ]),
  )();

const tableDigest = (file: string, tables: readonly string[]): string => {
  const db = new Database(file, { readonly: true });
  try {
    return tableDigestOn(db, tables);
  } finally {
    db.close();
  }
};

/** tableDigestOn in a loop, as another process: prints each state it reads, once. */
const READER_LOOP = `
import Database from 'better-sqlite3';
const [file, tables] = [process.argv[1], JSON.parse(process.argv[2])];
const db = new Database(file, { readonly: true });
db.pragma('busy_timeout = 5000');
const digest = db.transaction(() => JSON.stringify([
  ...tables.map((table) => db.prepare('select count(*) from "' + table + '"').pluck().get()),
  db.prepare("select group_concat(name || '=' || position) from (select * from lh_checkpoints order by name)").pluck().get(),
]));
let last = '';
for (;;) {
  const state = digest();
  if (state !== last) process.stdout.write(state + '\\n');
  last = state;
}
`;

/**
 * Every table and index of the read-model file as declared, by name (a renamed table's name is written back in double quotes, MikroORM's in
 * backticks).
 */
const schemaOf = (file: string): unknown[] => {
  const db = new Database(file, { readonly: true });
  try {
    const entries = db.prepare(`select type, name, tbl_name, sql from sqlite_master order by type, name`).all() as { sql: string | null }[];
    return entries.map((entry) => ({ ...entry, sql: entry.sql?.replaceAll('`', '"') ?? null }));
  } finally {
    db.close();
  }
};

/** The tables a rebuild's copy left in the read-model file. */
const copyTablesIn = (file: string): string[] => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(`select name from sqlite_master where type = 'table' and name like 'rebuild\\_%' escape '\\'`)
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
};

/** `npm run rebuild-read-models` on a data folder, as a process: its exit and what it printed. */
const spawnRebuild = (dataDir: string, args: readonly string[]) => {
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, '..', '..', 'dist', 'apps', 'projector', 'src', 'rebuild.js'), ...args],
    {
      env: { ...process.env, LEASEHOLD_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { process: child, exit, stdout: () => stdout };
};

const SEED = Number(process.env.LEASEHOLD_TEST_PROJECTOR_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe(`batched projection on a random workload (seed ${SEED})`, () => {
  let dir: string;
  let store: EventStore;
  let cleanDump: Record<string, unknown[]>;
  let processDump: Record<string, unknown[]>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-projector-random-'));
    store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    await writeRandomWorkload(new TestWriter(store, { userId: 'user-r', projectId: 'project-r' }), SEED, 1_000);
    const clean = await openReadModel(sqlite(join(dir, 'clean.sqlite')));
    try {
      await rebuildReadModel({ store, orm: clean });
      cleanDump = await dumpReadModel(clean);
      // as the projector process and `rebuild-read-models` leave it: the schema version its rows were projected at
      await markSchemaVersion(clean, READ_MODEL_SCHEMA_VERSION);
      processDump = await dumpReadModel(clean);
    } finally {
      await clean.close();
    }
  }, 180_000);

  afterAll(async () => {
    await store?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('a rebuild in batches of 5,000 and of a random size equals projecting one event at a time, every table and version', async () => {
    const stepwise = await openReadModel(sqlite(join(dir, 'stepwise.sqlite')));
    const odd = await openReadModel(sqlite(join(dir, 'odd.sqlite')));
    try {
      for (const event of await store.readAll({ from: 0 })) {
        const outcomes = await projectBatch(stepwise, READ_MODEL_PROJECTIONS, [event]);
        expect([...outcomes.values()].filter((outcome) => outcome.fault !== null)).toEqual([]);
      }
      await rebuildReadModel({ store, orm: odd, batchSize: 2 + (SEED % 97) });
      const one = await dumpReadModel(stepwise, { includeCheckpoint: false });
      // the workload reaches every table, versions included, or the comparison would prove little
      for (const table of [
        'lh_leases',
        'lh_reservations',
        'lh_hosts',
        'lh_allocations',
        'lh_properties',
        'lh_floatingips',
        'lh_floatingip_allocations',
        'lh_flavors',
        'lh_lease_versions',
        'lh_host_versions',
        'lh_allocation_versions',
      ]) {
        expect(one[table]?.length ?? 0, table).toBeGreaterThan(0);
      }
      const withoutCheckpoints = ({ lh_checkpoints: _, ...tables }: Record<string, unknown[]>) => tables;
      expect(withoutCheckpoints(cleanDump)).toEqual(one);
      expect(await dumpReadModel(odd)).toEqual(cleanDump);
    } finally {
      await stepwise.close();
      await odd.close();
    }
  }, 180_000);

  it('a catch-up through the writer thread that reads and folds each batch in chunks (batches of 300, chunks of 70) equals a clean rebuild', async () => {
    const chunked = await openReadModel(sqlite(join(dir, 'chunked.sqlite')));
    try {
      const runner = new ProjectionRunner({ store, orm: chunked, batchSize: 300, catchUpBatchSize: 300, foldChunkSize: 70 });
      await runner.start();
      await runner.caughtUp;
      await runner.stop();
      expect(runner.batchesByWriterThread()).toBeGreaterThan(3);
      expect(await dumpReadModel(chunked)).toEqual(cleanDump);
    } finally {
      await chunked.close();
    }
  }, 120_000);

  it('a projector killed (SIGKILL) mid catch-up resumes from its checkpoint to the same read model as a clean rebuild', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-projector-kill-'));
    try {
      copyFileSync(join(dir, 'events.sqlite'), join(dataDir, 'events.sqlite'));
      const head = await store.headPosition();
      const file = join(dataDir, 'read-model.sqlite');
      const child = spawn(process.execPath, [join(import.meta.dirname, '..', '..', 'dist', 'apps', 'projector', 'src', 'main.js')], {
        env: {
          ...process.env,
          LEASEHOLD_DATA_DIR: dataDir,
          LEASEHOLD_PROJECTOR_HEALTH_PORT: 'off',
          LEASEHOLD_PROJECTOR_BATCH_SIZE: '20',
          LEASEHOLD_PROJECTOR_CATCH_UP_BATCH_SIZE: '20',
        },
        stdio: 'ignore',
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await vi.waitFor(() => expect(checkpointInFile(file) ?? 0).toBeGreaterThan(0), { timeout: 60_000, interval: 2 });
      child.kill('SIGKILL');
      await exited;
      const killedAt = checkpointInFile(file) ?? 0;
      expect(killedAt, 'killed before the catch-up ended').toBeLessThan(head);

      const orm = await openReadModel(sqlite(file));
      const runner = new ProjectionRunner({ store, orm });
      try {
        await runner.start();
        await runner.caughtUp;
      } finally {
        await runner.stop();
        await orm.close();
      }
      expect(await readModelOf(file)).toEqual(processDump);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
  it('a rebuild killed (SIGKILL) mid replay leaves the read model it replaces serving as it was; a rerun swaps in the whole log', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-rebuild-kill-'));
    try {
      // the log as a whole, write-ahead log included (a copy of the file alone may miss its last events)
      const log = new Database(join(dir, 'events.sqlite'), { readonly: true });
      await log.backup(join(dataDir, 'events.sqlite')).finally(() => log.close());
      const head = await store.headPosition();
      const file = join(dataDir, 'read-model.sqlite');
      // the serving read model holds the first half of the log, the rebuild is to bring the rest
      const serving = await openReadModel(sqlite(file));
      try {
        await projectBatch(
          serving,
          READ_MODEL_PROJECTIONS,
          (await store.readAll({ from: 0 })).filter((event) => event.position <= head / 2),
        );
      } finally {
        await serving.close();
      }
      const before = await readModelOf(file);

      const child = spawnRebuild(dataDir, ['--batch-size', '1']);
      // the copy's tables (in the same file) hold committed batches: the replay is under way
      await vi.waitFor(() => expect(checkpointInFile(file, 'rebuild_lh_checkpoints') ?? 0).toBeGreaterThan(0), {
        timeout: 60_000,
        interval: 2,
      });
      child.process.kill('SIGKILL');
      expect(await child.exit, 'killed before the rebuild ended').toEqual({ code: null, signal: 'SIGKILL' });
      expect(await readModelOf(file)).toEqual(before);

      const rerun = spawnRebuild(dataDir, []);
      expect(await rerun.exit).toEqual({ code: 0, signal: null });
      expect(JSON.parse(rerun.stdout())).toEqual({ rebuilt: true, position: head, events: head });
      expect(copyTablesIn(file)).toEqual([]);
      expect(await readModelOf(file)).toEqual(processDump);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('a reader of the live file during a rebuild sees the read model it replaces or the rebuilt one, never a mix; a snapshot taken before the swap keeps the old one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-rebuild-reader-'));
    const file = join(dataDir, 'read-model.sqlite');
    try {
      const head = await store.headPosition();
      const serving = await openReadModel(sqlite(file));
      try {
        await projectBatch(
          serving,
          READ_MODEL_PROJECTIONS,
          (await store.readAll({ from: 0 })).filter((event) => event.position <= head / 2),
        );
      } finally {
        await serving.close();
      }
      const tables = READ_MODEL_ENTITIES.map((entity) => entity.meta.tableName);
      const before = tableDigest(file, tables);
      const schema = schemaOf(file);
      // another process reads every table in one transaction, over and over, and prints each state it saw
      const reader = spawn(process.execPath, ['--input-type=module', '-e', READER_LOOP, file, JSON.stringify(tables)], {
        cwd: join(import.meta.dirname, '..', '..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const seen = new Set<string>();
      let errors = '';
      reader.stdout.on('data', (chunk: Buffer) =>
        chunk
          .toString()
          .split('\n')
          .filter((line) => line !== '')
          .forEach((line) => seen.add(line)),
      );
      reader.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      const exited = new Promise((resolve) => reader.once('close', resolve));
      try {
        await vi.waitFor(() => expect(seen.has(before)).toBe(true), { timeout: 30_000, interval: 5 });
        const snapshot = new Database(file, { readonly: true });
        try {
          snapshot.exec('begin');
          const pinned = tableDigestOn(snapshot, tables);
          const orm = await openReadModel(sqlite(file));
          const swaps: { sortSeconds: number; lockedSeconds: number; checkpointSeconds: number }[] = [];
          try {
            await rebuildReadModel({ store, orm, onSwapped: (times) => swaps.push(times) });
          } finally {
            await orm.close();
          }
          expect(swaps).toEqual([
            { sortSeconds: expect.any(Number), lockedSeconds: expect.any(Number), checkpointSeconds: expect.any(Number) },
          ]);
          // the transaction begun before the swap still reads the old tables, whole
          expect(tableDigestOn(snapshot, tables)).toEqual(pinned);
          snapshot.exec('commit');
          expect(tableDigestOn(snapshot, tables)).not.toEqual(pinned);
        } finally {
          snapshot.close();
        }
        const after = tableDigest(file, tables);
        await vi.waitFor(() => expect(seen.has(after)).toBe(true), { timeout: 30_000, interval: 5 });
        expect(errors).toBe('');
        expect([...seen].filter((state) => state !== before && state !== after)).toEqual([]);
        expect(await readModelOf(file)).toEqual(cleanDump);
        // the renamed copies are the live tables as they were declared, indexes and their names included
        expect(schemaOf(file)).toEqual(schema);
      } finally {
        reader.kill('SIGTERM');
        await exited;
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
