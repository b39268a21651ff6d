import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import { SqliteSnapshotStore } from '#event-store/snapshots/sqlite-snapshot-store.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { ADMISSION_REGISTRY, Admissions } from '#plugins/admission/admission.registry.js';
import type { ReservationRequest } from '#plugins/reservation-types.js';
import { buildInstanceRequest } from '#plugins/instance/instance-reservation.request.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import type { ApplicationContext } from '../application-context.js';
import { isCapacityRefusal } from '../availability/window-search.js';
import { CommandHandler } from '../command-handler.js';
import { LeaseUseCases } from '../leases/lease.use-cases.js';
import type { SnapshotConfig } from '../snapshots/snapshot.config.js';
import { encodeState } from '../snapshots/state-codec.js';
import { DEFAULT_SETTINGS, commandMetadata, testCaller } from '../testing/application.specification.js';
import { at, floatingIpRegistered, hostRegistered } from '../testing/calendars.fixture.js';
import { appendGiven } from '../testing/given-events.js';
import { admissionContext, bookingPlan } from './lease-admission.js';
import { WRITE_INDEX_SCHEMA_VERSION, WRITE_INDEX_SNAPSHOT_KIND, openWriteIndex, restoreWriteIndex } from './write-index.snapshots.js';
import { WriteIndex } from './write-index.js';

const NOW = at(9);
const BASE = Date.parse(NOW);
const member = testCaller('member');
const iso = (minute: number): string => new Date(BASE + minute * MINUTE_MS).toISOString();
/** Written only when asked (writer.write / stop), never on a timer during a test. */
const CONFIG: SnapshotConfig = { everyMs: 3_600_000, everyEvents: 1 };
const noError = (error: unknown): never => {
  throw error;
};

const given = [
  hostRegistered('1', { gpu: 'true' }),
  hostRegistered('2'),
  hostRegistered('3', { gpu: 'true' }),
  floatingIpRegistered('f1', '10.0.0.1'),
  floatingIpRegistered('f2', '10.0.0.2'),
];

const reservation: fc.Arbitrary<ReservationRequest> = fc.oneof(
  fc.record({ min: fc.integer({ min: 1, max: 2 }), gpu: fc.boolean() }).map(({ min, gpu }) =>
    buildHostRequest({
      min,
      max: min,
      hypervisorProperties: '',
      resourceProperties: gpu ? '["=", "$gpu", "true"]' : '',
      beforeEnd: 'default',
    }),
  ),
  fc
    .record({ amount: fc.integer({ min: 1, max: 3 }), vcpus: fc.constantFrom(2, 4) })
    .map(({ amount, vcpus }) =>
      buildInstanceRequest({ amount, vcpus, memoryMb: 1024, diskGb: 10, affinity: null, resourceProperties: '' }),
    ),
  fc
    .integer({ min: 1, max: 2 })
    .map((amount): ReservationRequest => ({ resourceType: 'virtual:floatingip', networkId: 'net-1', amount, requiredFloatingIps: [] })),
);

type Operation =
  | { readonly kind: 'create'; readonly requests: readonly ReservationRequest[]; readonly start: number; readonly duration: number }
  | { readonly kind: 'delete'; readonly pick: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      requests: fc.array(reservation, { minLength: 1, maxLength: 2 }),
      start: fc.integer({ min: 0, max: 600 }),
      duration: fc.integer({ min: 10, max: 240 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
);

const contextOf = (store: EventStore, index: WriteIndex): ApplicationContext => {
  let ids = 0;
  return {
    handler: new CommandHandler(store),
    index,
    settings: DEFAULT_SETTINGS,
    newId: () => `id-${(ids += 1)}-${Math.random().toString(36).slice(2)}`,
  };
};

/** Runs the operations through the write path; a refusal (no room, say) is part of the history, not a failure. */
const run = async (context: ApplicationContext, operations: readonly Operation[], leases: string[]): Promise<void> => {
  const useCases = new LeaseUseCases(context);
  for (const op of operations) {
    try {
      if (op.kind === 'create') {
        const data = {
          name: 'lease',
          startDate: iso(op.start),
          endDate: iso(op.start + op.duration),
          beforeEndDate: null,
          reservations: op.requests,
        };
        const written = await useCases.create({ type: 'CreateLease', data, metadata: commandMetadata(member, NOW) });
        leases.push(written.leaseId);
      } else if (leases.length > 0) {
        const [leaseId] = leases.splice(op.pick % leases.length, 1);
        await useCases.delete({ type: 'DeleteLease', data: { leaseId: leaseId as string }, metadata: commandMetadata(member, NOW) });
      }
    } catch (error) {
      if ((error as { readonly code?: string }).code === undefined) throw error;
    }
  }
};

const admits = (context: ApplicationContext, requests: readonly ReservationRequest[], start: number, duration: number): boolean => {
  const admission = admissionContext(
    context,
    bookingPlan(context),
    { leaseId: 'probe', startDate: iso(start), endDate: iso(start + duration) },
    member,
  );
  try {
    for (const request of requests) new Admissions(ADMISSION_REGISTRY).admit(admission, request);
    return true;
  } catch (error) {
    if (isCapacityRefusal(error)) return false;
    throw error;
  }
};

const folded = async (store: EventStore): Promise<WriteIndex> => {
  const index = new WriteIndex(store);
  await index.catchUp();
  return index;
};

let store: SqliteEventStore;
let snapshots: SnapshotStore;

beforeEach(async () => {
  store = SqliteEventStore.open({ file: ':memory:' });
  snapshots = SqliteSnapshotStore.open(':memory:');
  await appendGiven(store, given);
});

afterEach(async () => {
  await snapshots.close();
  await store.close();
});

describe('the write index started from its snapshot', () => {
  it('equals the index folded from the whole log, and admits and refuses the same leases', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(operation, { minLength: 1, maxLength: 14 }),
        fc.array(operation, { maxLength: 8 }),
        fc.array(
          fc.record({
            requests: fc.array(reservation, { minLength: 1, maxLength: 2 }),
            start: fc.integer({ min: 0, max: 600 }),
            duration: fc.integer({ min: 10, max: 240 }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        async (before, after, probes) => {
          const log = SqliteEventStore.open({ file: ':memory:' });
          const kept = SqliteSnapshotStore.open(':memory:');
          try {
            await appendGiven(log, given);
            const leases: string[] = [];
            const first = await openWriteIndex(log, kept, CONFIG, noError);
            await run(contextOf(log, first.index), before, leases);
            await first.writer.stop();
            await run(contextOf(log, first.index), after, leases);

            const restored = await openWriteIndex(log, kept, CONFIG, noError);
            const whole = await folded(log);
            expect(restored.restored).toEqual({ position: expect.any(Number) as number });
            expect(restored.index.capture()).toEqual(whole.capture());
            const fromSnapshot = contextOf(log, restored.index);
            const fromLog = contextOf(log, whole);
            for (const probe of probes)
              expect(admits(fromSnapshot, probe.requests, probe.start, probe.duration)).toBe(
                admits(fromLog, probe.requests, probe.start, probe.duration),
              );
            await restored.writer.stop();
          } finally {
            await kept.close();
            await log.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses a lease overlapping one booked before the snapshot', async () => {
    const first = await openWriteIndex(store, snapshots, CONFIG, noError);
    const whole = buildHostRequest({ min: 3, max: 3, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default' });
    await run(contextOf(store, first.index), [{ kind: 'create', requests: [whole], start: 60, duration: 60 }], []);
    // the index learns of its own append at its next catch-up (as before the next decision)
    await first.index.catchUp();
    await first.writer.stop();

    const restored = await openWriteIndex(store, snapshots, CONFIG, noError);
    expect(restored.restored).toEqual({ position: await store.headPosition() });
    const context = contextOf(store, restored.index);
    const one = buildHostRequest({ min: 1, max: 1, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default' });
    expect(admits(context, [one], 90, 10)).toBe(false);
    expect(admits(context, [one], 120, 10)).toBe(true);
  });

  it('folds the whole log, and says why, when the snapshot is of an older schema, corrupt, or past the log', async () => {
    const head = await store.headPosition();
    const expected = (await folded(store)).capture();
    const cases = [
      {
        schemaVersion: WRITE_INDEX_SCHEMA_VERSION - 1,
        position: head,
        payload: '{"hosts":"an older shape"}',
        reason: `no snapshot of schema version ${WRITE_INDEX_SCHEMA_VERSION}`,
      },
      { schemaVersion: WRITE_INDEX_SCHEMA_VERSION, position: head, payload: '{"hosts": [', reason: 'snapshot corrupt' },
      { schemaVersion: WRITE_INDEX_SCHEMA_VERSION, position: head, payload: '{"hosts": 3}', reason: 'snapshot corrupt' },
      { schemaVersion: WRITE_INDEX_SCHEMA_VERSION, position: head + 50, payload: '', reason: `past the log's head ${head}` },
    ];
    for (const { reason, ...snapshot } of cases) {
      const kept = SqliteSnapshotStore.open(':memory:');
      try {
        const past = snapshot.payload === '' ? { ...snapshot, payload: encodeState(expected.payload) } : snapshot;
        await kept.save({ kind: WRITE_INDEX_SNAPSHOT_KIND, ...past });
        const opened = await openWriteIndex(store, kept, { everyMs: 0, everyEvents: 1 }, noError);
        expect(opened.restored).toEqual({ reason: expect.stringContaining(reason) as string });
        expect(opened.index.capture()).toEqual(expected);
      } finally {
        await kept.close();
      }
    }
  });

  it('of an index its owner catches up only to decide, is written at the head when asked to catch up first', async () => {
    const head = await store.headPosition();
    const positionOf = async (kind: string): Promise<number | undefined> =>
      (await snapshots.load(kind, WRITE_INDEX_SCHEMA_VERSION))?.position;
    // the reactor's healing calendars: no healing pass ran, so nothing caught the index up
    for (const catchUpBeforeSnapshot of [false, true]) {
      const kind = `lazy-${String(catchUpBeforeSnapshot)}`;
      const opened = await restoreWriteIndex(store, { store: snapshots, config: CONFIG, onError: noError, kind, catchUpBeforeSnapshot });
      await opened.writer.write(1);
      expect(await positionOf(kind)).toBe(catchUpBeforeSnapshot ? head : 0);
    }
    const restored = await restoreWriteIndex(store, { store: snapshots, config: CONFIG, onError: noError, kind: 'lazy-true' });
    expect(restored.restored).toEqual({ position: head });
    expect(restored.index.capture()).toEqual((await folded(store)).capture());
  });
});
