import { describe, expect, it } from 'vitest';
import { type LeaseEvent, type ReservationOutcome, foldEvents, leaseStream } from '#domain/index.js';
import {
  END,
  LEASE_ID,
  START,
  at,
  created,
  failedOutcome,
  history,
  okOutcome,
  reservation,
  reservationChanged,
} from '#domain/lease/testing/lease.fixtures.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import { leaseReactionView } from './lease-reaction.view.js';
import { LeaseReactionUseCases } from './lease-reactions.use-cases.js';
import { deterministicId } from './reaction-ids.js';
import { type GivenEvent, handlerOn, racing, reactionLedger, reactorAt } from './testing/reaction-ledger.js';

const STREAM = leaseStream(LEASE_ID);
const spec = applicationSpecification((context) => new LeaseReactionUseCases(context));
const onLease = (events: readonly LeaseEvent[]) => events.map((event) => ({ streamId: STREAM, ...event }));
/** The specification's given events are `given-1`, `given-2`...: the n-th event of the lease. */
const givenId = (n: number): string => `given-${n}`;

const begin = (phase: 'start' | 'before_end' | 'end', now: string) =>
  ({ type: 'BeginLeasePhase', data: { leaseId: LEASE_ID, phase }, metadata: reactorAt(now) }) as const;
const complete = (beginId: string, outcomes: readonly ReservationOutcome[], now = START) =>
  ({
    type: 'CompleteLeasePhase',
    data: { leaseId: LEASE_ID, phase: 'start', beginId, outcomes },
    metadata: reactorAt(now, beginId),
  }) as const;
const reconcile = (outcome: ReservationOutcome, now = at(12)) =>
  ({ type: 'RecordReconciliation', data: { leaseId: LEASE_ID, outcome, round: 7 }, metadata: reactorAt(now) }) as const;

const changedRes1 = reservationChanged(reservation('res-1', { hostIds: ['8'] }), at(11));

describe('lease reactions: beginning a due phase', () => {
  it('records the begin once it is due, under an id derived from the timer and the revision it was decided on', async () => {
    const begun = await spec
      .given(onLease(history.Pending()))
      .when((reactions) => reactions.beginPhase(begin('start', START)))
      .then(onLease([{ type: 'Lease.StartRequested', data: { leaseId: LEASE_ID, at: START } }]));
    expect(begun).toEqual({ status: 'recorded', beginId: deterministicId(`${LEASE_ID}:start:begin:0`) });
  });

  it("a phase not due yet is refused and nothing is recorded (the reactor's view was behind)", async () => {
    const begun = await spec
      .given(onLease(history.Pending()))
      .when((reactions) => reactions.beginPhase(begin('start', at(9))))
      .then([]);
    expect(begun).toMatchObject({ status: 'refused' });
  });

  it('a phase already begun is refused', async () => {
    const begun = await spec
      .given(onLease(history.Starting()))
      .when((reactions) => reactions.beginPhase(begin('start', START)))
      .then([]);
    expect(begun).toMatchObject({ status: 'refused' });
  });

  it('no user may send a reaction', async () => {
    await spec
      .given(onLease(history.Pending()))
      .when((reactions) => reactions.beginPhase({ ...begin('start', START), metadata: commandMetadata(testCaller('admin'), START) }))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
  });
});

describe('lease reactions: completing a phase', () => {
  it("records every reservation's outcome and the phase's result", async () => {
    const completed = await spec
      .given(onLease(history.Starting()))
      .when((reactions) => reactions.completePhase(complete(givenId(2), [okOutcome('res-1'), failedOutcome('res-2')])))
      .then(
        onLease([
          {
            type: 'Reservation.EffectsApplied',
            data: { leaseId: LEASE_ID, reservationId: 'res-1', phase: 'start', effects: [{ operation: 'op' }], at: START },
          },
          {
            type: 'Reservation.EffectsFailed',
            data: { leaseId: LEASE_ID, reservationId: 'res-2', phase: 'start', error: 'boom', effects: [{ operation: 'op' }], at: START },
          },
          { type: 'Lease.StartFailed', data: { leaseId: LEASE_ID, at: START, reason: 'res-2: boom' } },
        ]),
      );
    expect(completed).toEqual({ status: 'recorded', type: 'Lease.StartFailed' });
  });

  it('the outcome of a begin that is no longer the latest is superseded', async () => {
    const completed = await spec
      .given(onLease(history.Starting()))
      .when((reactions) => reactions.completePhase(complete('an-older-begin', [okOutcome('res-1'), okOutcome('res-2')])))
      .then([]);
    expect(completed).toEqual({ status: 'superseded' });
  });

  it('an outcome recorded already is refused', async () => {
    const completed = await spec
      .given(onLease(history.Active()))
      .when((reactions) => reactions.completePhase(complete(givenId(2), [okOutcome('res-1'), okOutcome('res-2')])))
      .then([]);
    expect(completed).toMatchObject({ status: 'refused' });
  });
});

describe('lease reactions: changes of an active lease', () => {
  const owed = onLease([...history.Active(), changedRes1]);

  it('records the outcome of a change still owed', async () => {
    const completed = await spec
      .given(owed)
      .when((reactions) =>
        reactions.completeUpdates({
          type: 'CompleteReservationUpdates',
          data: { leaseId: LEASE_ID, updates: [{ sequence: 1, outcome: okOutcome('res-1') }] },
          metadata: reactorAt(at(11)),
        }),
      )
      .then(
        onLease([
          {
            type: 'Reservation.UpdateApplied',
            data: { leaseId: LEASE_ID, reservationId: 'res-1', sequence: 1, effects: [{ operation: 'op' }], at: at(11) },
          },
        ]),
      );
    expect(completed).toEqual({ status: 'recorded', type: 'Reservation.UpdateApplied' });
  });

  it('the outcome of a change superseded by a newer one is dropped', async () => {
    const completed = await spec
      .given([...owed, ...onLease([reservationChanged(reservation('res-1', { hostIds: ['9'] }), at(11, 30))])])
      .when((reactions) =>
        reactions.completeUpdates({
          type: 'CompleteReservationUpdates',
          data: { leaseId: LEASE_ID, updates: [{ sequence: 1, outcome: okOutcome('res-1') }] },
          metadata: reactorAt(at(12)),
        }),
      )
      .then([]);
    expect(completed).toEqual({ status: 'superseded' });
  });
});

describe('lease reactions: reconciliation', () => {
  const drift: ReservationOutcome = {
    reservationId: 'res-1',
    ok: true,
    effects: [{ operation: 'aggregate.add_host', already: true }, { operation: 'aggregate.add_host' }],
  };

  it('records drift (only the steps that changed the cloud); a clean check records nothing', async () => {
    const found = await spec
      .given(onLease(history.Active()))
      .when((reactions) => reactions.recordReconciliation(reconcile(drift)))
      .then(
        onLease([
          {
            type: 'Reservation.DriftRepaired',
            data: { leaseId: LEASE_ID, reservationId: 'res-1', effects: [{ operation: 'aggregate.add_host' }], at: at(12) },
          },
        ]),
      );
    expect(found).toEqual({ status: 'recorded', type: 'Reservation.DriftRepaired' });
    const clean = await spec
      .given(onLease(history.Active()))
      .when((reactions) =>
        reactions.recordReconciliation(reconcile({ reservationId: 'res-1', ok: true, effects: [{ operation: 'x', already: true }] })),
      )
      .then([]);
    expect(clean).toEqual({ status: 'clean' });
  });

  it('a lease no longer active is not reconciled', async () => {
    const found = await spec
      .given(onLease(history.Ended()))
      .when((reactions) => reactions.recordReconciliation(reconcile(drift, END)))
      .then([]);
    expect(found).toMatchObject({ status: 'refused' });
  });
});

describe('lease reactions in the ledger: ids, metadata and races', () => {
  const pending: GivenEvent[] = [{ id: 'created-id', streamId: STREAM, ...created(), correlationId: 'req-create' }];
  const withStore = async (given: readonly GivenEvent[], run: (store: EventStore) => Promise<void>): Promise<void> => {
    const store = await reactionLedger(given);
    try {
      await run(store);
    } finally {
      await store.close();
    }
  };

  it("a begin joins the lease's correlation, is caused by its latest event, and names the reactor (no user)", async () => {
    await withStore(pending, async (store) => {
      await new LeaseReactionUseCases(handlerOn(store)).beginPhase(begin('start', START));
      const [, requested] = await store.readStream(STREAM);
      expect(requested?.id).toBe(deterministicId(`${LEASE_ID}:start:begin:0`));
      expect(requested?.metadata).toEqual({
        correlationId: 'req-create',
        causationId: 'created-id',
        actor: null,
        system: 'reactor',
        reaction: 'begin-lease-phase',
      });
    });
  });

  it('a second reactor that decided the same begin on the same revision finds it recorded: a replay, recorded once', async () => {
    await withStore(pending, async (store) => {
      const other = new LeaseReactionUseCases(handlerOn(store));
      const reactions = new LeaseReactionUseCases(handlerOn(racing(store, () => other.beginPhase(begin('start', START)))));
      expect(await reactions.beginPhase(begin('start', START))).toEqual({
        status: 'replayed',
        beginId: deterministicId(`${LEASE_ID}:start:begin:0`),
      });
      expect((await store.readStream(STREAM)).map((event) => event.type)).toEqual(['Lease.Created', 'Lease.StartRequested']);
    });
  });

  it('a change recorded between the read and the append: the begin is decided again on the fresh lease, keyed and caused by it', async () => {
    await withStore(pending, async (store) => {
      const rename = () =>
        store.appendToStream(STREAM, 0, [
          {
            id: 'renamed-id',
            type: 'Lease.Renamed',
            data: { leaseId: LEASE_ID, name: 'other', renamedAt: at(9) },
            metadata: { correlationId: 'req-rename', causationId: 'req-rename', actor: null },
          },
        ]);
      const reactions = new LeaseReactionUseCases(handlerOn(racing(store, rename)));
      expect(await reactions.beginPhase(begin('start', START))).toEqual({
        status: 'recorded',
        beginId: deterministicId(`${LEASE_ID}:start:begin:1`),
      });
      const [, renamed, requested] = await store.readStream(STREAM);
      expect(renamed?.type).toBe('Lease.Renamed');
      expect(requested).toMatchObject({
        type: 'Lease.StartRequested',
        metadata: { correlationId: 'req-create', causationId: 'renamed-id' },
      });
    });
  });

  const viewOf = async (store: EventStore) => foldEvents(leaseReactionView, await store.readStream(STREAM));
  /** The store, counting the reads of the lease's stream. */
  const countingReads = (store: EventStore): { readonly store: EventStore; readonly reads: () => number } => {
    let reads = 0;
    const counted = new Proxy(store, {
      get: (target, key) => {
        if (key === 'readStream') reads++;
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { store: counted, reads: () => reads };
  };

  it("decides on the caller's view of the lease when it is current, without reading the stream", async () => {
    await withStore(pending, async (store) => {
      const known = await viewOf(store);
      const { store: counted, reads } = countingReads(store);
      const begun = await new LeaseReactionUseCases(handlerOn(counted)).beginPhase(begin('start', START), known);
      expect(begun).toEqual({ status: 'recorded', beginId: deterministicId(`${LEASE_ID}:start:begin:0`) });
      expect(reads()).toBe(0);
      expect((await store.readStream(STREAM)).map((event) => event.type)).toEqual(['Lease.Created', 'Lease.StartRequested']);
    });
  });

  it('a view behind the ledger costs a conflict: the begin is decided again on the lease as recorded, keyed and caused by it', async () => {
    await withStore(pending, async (store) => {
      const known = await viewOf(store);
      await store.appendToStream(STREAM, 0, [
        {
          id: 'renamed-id',
          type: 'Lease.Renamed',
          data: { leaseId: LEASE_ID, name: 'other', renamedAt: at(9) },
          metadata: { correlationId: 'req-rename', causationId: 'req-rename', actor: null },
        },
      ]);
      const begun = await new LeaseReactionUseCases(handlerOn(store)).beginPhase(begin('start', START), known);
      expect(begun).toEqual({ status: 'recorded', beginId: deterministicId(`${LEASE_ID}:start:begin:1`) });
      const [, renamed, requested] = await store.readStream(STREAM);
      expect(renamed?.type).toBe('Lease.Renamed');
      expect(requested).toMatchObject({ type: 'Lease.StartRequested', metadata: { causationId: 'renamed-id' } });
    });
  });

  it('a view on which nothing would be recorded is not trusted (no revision fences it): the lease as recorded decides', async () => {
    const requested: GivenEvent = {
      id: 'requested-id',
      streamId: STREAM,
      type: 'Lease.StartRequested',
      data: { leaseId: LEASE_ID, at: START },
      correlationId: 'req-create',
    };
    await withStore([...pending, requested], async (store) => {
      // a view that has not seen the begin yet: the outcome of that begin would be superseded on it
      const behind = foldEvents(leaseReactionView, (await store.readStream(STREAM)).slice(0, 1));
      const reactions = new LeaseReactionUseCases(handlerOn(store));
      const completed = await reactions.completePhase(complete('requested-id', [okOutcome('res-1'), okOutcome('res-2')]), behind);
      expect(completed).toEqual({ status: 'recorded', type: 'Lease.Started' });
    });
  });

  it("an update's outcome is caused by the change it answers and keyed by it", async () => {
    const active: GivenEvent[] = [
      ...pending,
      {
        id: 'requested-id',
        streamId: STREAM,
        type: 'Lease.StartRequested',
        data: { leaseId: LEASE_ID, at: START },
        correlationId: 'req-create',
      },
      { id: 'started-id', streamId: STREAM, type: 'Lease.Started', data: { leaseId: LEASE_ID, at: START }, correlationId: 'req-create' },
      { id: 'changed-id', streamId: STREAM, ...changedRes1, correlationId: 'req-update' },
      {
        id: 'renamed-id',
        streamId: STREAM,
        type: 'Lease.Renamed',
        data: { leaseId: LEASE_ID, name: 'other', renamedAt: at(11) },
        correlationId: 'req-rename',
      },
    ];
    await withStore(active, async (store) => {
      const updates = [{ sequence: 1, outcome: okOutcome('res-1') }];
      await new LeaseReactionUseCases(handlerOn(store)).completeUpdates({
        type: 'CompleteReservationUpdates',
        data: { leaseId: LEASE_ID, updates },
        metadata: reactorAt(at(11)),
      });
      const applied = (await store.readStream(STREAM)).at(-1);
      expect(applied?.id).toBe(deterministicId(`${LEASE_ID}:update:1:res-1`));
      expect(applied?.metadata).toMatchObject({
        correlationId: 'req-create',
        causationId: 'changed-id',
        reaction: 'complete-reservation-updates',
      });
    });
  });
});
