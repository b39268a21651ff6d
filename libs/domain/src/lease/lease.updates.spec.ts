import { describe, expect, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import { foldEvents } from '../shared/decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { CompleteReservationUpdates, UpdateLease, UpdateOutcome } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import { nextDueAction } from './lease.schedule.js';
import type { LeaseData, LeaseState } from './lease.state.js';
import type { EffectPhase, Reservation } from './lease.types.js';
import {
  BEFORE_END,
  END,
  LEASE_ID,
  START,
  at,
  beforeEndCompleted,
  beforeEndRequested,
  created,
  deleted,
  endFailed,
  endRequested,
  ended,
  failedOutcome,
  floatingIpReservation,
  okOutcome,
  reservationChanged,
  startFailed,
  startRequested,
  started,
  updateApplied,
  updateFailed,
  virtualInstanceReservation,
} from './testing/lease.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Fixtures: the lease [10:00, 18:00) of ./testing/lease.fixtures.ts holding two instances (res-1)
// and one floating IP (res-2); changes of an active lease are owed to the cloud until recorded.
// ---------------------------------------------------------------------------------------------

const instances = virtualInstanceReservation('res-1');
const addresses = floatingIpReservation('res-2');
/** res-1 grown to three instances. */
const threeInstances = virtualInstanceReservation('res-1', { amount: 3, allocations: [{ hostId: '7', count: 3 }] });
/** res-1 grown to four instances, over two hosts. */
const fourInstances = virtualInstanceReservation('res-1', {
  amount: 4,
  allocations: [
    { hostId: '7', count: 3 },
    { hostId: '8', count: 1 },
  ],
});
/** res-2 holding a second address. */
const twoAddresses = floatingIpReservation('res-2', {
  amount: 2,
  allocations: [
    { floatingIpId: 'fip-1', address: '172.24.4.10' },
    { floatingIpId: 'fip-2', address: '172.24.4.11' },
  ],
});

const leaseCreated = (): LeaseEvent => created({ reservations: [instances, addresses] });

const histories = {
  Pending: (): LeaseEvent[] => [leaseCreated()],
  Starting: (): LeaseEvent[] => [leaseCreated(), startRequested()],
  Active: (): LeaseEvent[] => [leaseCreated(), startRequested(), started()],
  StartFailed: (): LeaseEvent[] => [leaseCreated(), startRequested(), startFailed()],
  /** Active with res-1 grown at 12:00 (change 1, owed). */
  ActiveOwingRes1: (): LeaseEvent[] => [...histories.Active(), reservationChanged(threeInstances, at(12))],
};

const given = DeciderSpecification.for(leaseDecider);
const fold = (events: readonly LeaseEvent[]): LeaseState => foldEvents(leaseDecider, events);
const leaseOf = (state: LeaseState): LeaseData => {
  if (state.status === 'Initial') throw new Error('expected an existing lease');
  return state.lease;
};

const completeUpdates = (updates: readonly UpdateOutcome[], now = at(12, 5)): CompleteReservationUpdates => ({
  type: 'CompleteReservationUpdates',
  data: { leaseId: LEASE_ID, updates, now },
});

const updateReservations = (reservations: readonly Reservation[], now: string): UpdateLease => ({
  type: 'UpdateLease',
  data: { leaseId: LEASE_ID, name: null, startDate: null, endDate: null, beforeEndDate: null, reservationIds: [], reservations, now },
});

const due = (phase: EffectPhase, step: 'begin' | 'complete', dueAt: string) => ({ leaseId: LEASE_ID, phase, step, dueAt });

// ---------------------------------------------------------------------------------------------
// evolve: pending updates
// ---------------------------------------------------------------------------------------------

describe('pending updates (evolve)', () => {
  it('a new lease has counted no change and owes none', () => {
    expect(leaseOf(fold(histories.Pending()))).toMatchObject({ changeSequence: 0, pendingUpdates: {} });
  });

  describe('When Pending', () => {
    it('counts a change but owes nothing: the start will act it out', () => {
      const state = fold([...histories.Pending(), reservationChanged(threeInstances, at(9))]);
      expect(state.status).toBe('Pending');
      expect(leaseOf(state)).toMatchObject({ changeSequence: 1, pendingUpdates: {}, reservations: [threeInstances, addresses] });
    });

    it('still owes nothing once started', () => {
      const state = fold([...histories.Pending(), reservationChanged(threeInstances, at(9)), startRequested(), started()]);
      expect(leaseOf(state)).toMatchObject({ changeSequence: 1, pendingUpdates: {} });
    });
  });

  describe.each([
    { status: 'Starting', history: histories.Starting },
    { status: 'StartFailed', history: histories.StartFailed },
  ])('When $status', ({ status, history }) => {
    it('counts a change but owes nothing', () => {
      const state = fold([...history(), reservationChanged(threeInstances, at(12))]);
      expect(state.status).toBe(status);
      expect(leaseOf(state)).toMatchObject({ changeSequence: 1, pendingUpdates: {} });
    });
  });

  describe('When Active', () => {
    it('owes a change, numbered by the change sequence', () => {
      const state = fold(histories.ActiveOwingRes1());
      expect(state.status).toBe('Active');
      expect(leaseOf(state)).toMatchObject({ changeSequence: 1, pendingUpdates: { 'res-1': 1 }, updatedAt: at(12) });
    });

    it('numbers an active change after the changes made while pending', () => {
      const state = fold([
        ...histories.Pending(),
        reservationChanged(threeInstances, at(9)),
        startRequested(),
        started(),
        reservationChanged(fourInstances, at(12)),
      ]);
      expect(leaseOf(state)).toMatchObject({ changeSequence: 2, pendingUpdates: { 'res-1': 2 } });
    });

    it('a second change of the same reservation supersedes the first', () => {
      const state = fold([...histories.ActiveOwingRes1(), reservationChanged(fourInstances, at(13))]);
      expect(leaseOf(state)).toMatchObject({ changeSequence: 2, pendingUpdates: { 'res-1': 2 }, reservations: [fourInstances, addresses] });
    });

    it('owes changes of several reservations, each with its own number', () => {
      const state = fold([...histories.ActiveOwingRes1(), reservationChanged(twoAddresses, at(13))]);
      expect(leaseOf(state)).toMatchObject({ changeSequence: 2, pendingUpdates: { 'res-1': 1, 'res-2': 2 } });
    });

    it.each([
      { name: 'UpdateApplied', outcome: updateApplied('res-1', 1, at(12, 5)) },
      { name: 'UpdateFailed', outcome: updateFailed('res-1', 1, at(12, 5)) },
    ])('$name with the pending number settles it and keeps the lease active', ({ outcome }) => {
      const state = fold([...histories.ActiveOwingRes1(), outcome]);
      expect(state.status).toBe('Active');
      expect(leaseOf(state)).toMatchObject({ changeSequence: 1, pendingUpdates: {} });
    });

    it.each([
      { name: 'UpdateApplied', outcome: updateApplied('res-1', 1, at(13, 5)) },
      { name: 'UpdateFailed', outcome: updateFailed('res-1', 1, at(13, 5)) },
    ])('$name of a superseded change leaves the newer one pending', ({ outcome }) => {
      const state = fold([...histories.ActiveOwingRes1(), reservationChanged(fourInstances, at(13)), outcome]);
      expect(leaseOf(state)).toMatchObject({ pendingUpdates: { 'res-1': 2 } });
    });

    it('an outcome for another reservation leaves the pending one alone', () => {
      const state = fold([...histories.ActiveOwingRes1(), updateApplied('res-2', 1, at(12, 5))]);
      expect(leaseOf(state)).toMatchObject({ pendingUpdates: { 'res-1': 1 } });
    });

    it('settles one reservation and keeps owing the other', () => {
      const state = fold([...histories.ActiveOwingRes1(), reservationChanged(twoAddresses, at(13)), updateApplied('res-2', 2, at(13, 5))]);
      expect(leaseOf(state)).toMatchObject({ pendingUpdates: { 'res-1': 1 } });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// CompleteReservationUpdates
// ---------------------------------------------------------------------------------------------

describe('CompleteReservationUpdates', () => {
  const NOT_PENDING = 'UPDATE_NOT_PENDING';

  describe('When the lease does not exist', () => {
    it('refuses: the lease is not found', () => {
      given([])
        .when(completeUpdates([{ sequence: 1, outcome: okOutcome('res-1') }]))
        .thenThrows('LEASE_NOT_FOUND', "Object with {'lease_id': 'lease-1'} not found");
    });
  });

  describe('When the lease was deleted', () => {
    it('refuses: the lease is not found, even with an update still recorded as owed', () => {
      given([...histories.ActiveOwingRes1(), endRequested('deleted', at(12, 30)), deleted(at(12, 30))])
        .when(completeUpdates([{ sequence: 1, outcome: okOutcome('res-1') }]))
        .thenThrows('LEASE_NOT_FOUND');
    });
  });

  describe('When not Active', () => {
    it.each([
      { status: 'Pending', history: (): LeaseEvent[] => [...histories.Pending(), reservationChanged(threeInstances, at(9))] },
      { status: 'Starting', history: (): LeaseEvent[] => [...histories.Starting(), reservationChanged(threeInstances, at(10))] },
      { status: 'StartFailed', history: (): LeaseEvent[] => [...histories.StartFailed(), reservationChanged(threeInstances, at(12))] },
      { status: 'Ending, though the change was owed', history: (): LeaseEvent[] => [...histories.ActiveOwingRes1(), endRequested()] },
      {
        status: 'Ended, though the change was owed',
        history: (): LeaseEvent[] => [...histories.ActiveOwingRes1(), endRequested(), ended()],
      },
      {
        status: 'EndFailed, though the change was owed',
        history: (): LeaseEvent[] => [...histories.ActiveOwingRes1(), endRequested(), endFailed()],
      },
    ])('refuses when $status', ({ history }) => {
      given(history())
        .when(completeUpdates([{ sequence: 1, outcome: okOutcome('res-1') }]))
        .thenThrows(NOT_PENDING, 'Lease lease-1 owes none of these reservation updates');
    });
  });

  describe('When Active owing nothing', () => {
    it('refuses any outcome', () => {
      given(histories.Active())
        .when(completeUpdates([{ sequence: 1, outcome: okOutcome('res-1') }]))
        .thenThrows(NOT_PENDING);
    });

    it('refuses an outcome once the change was settled', () => {
      given([...histories.ActiveOwingRes1(), updateApplied('res-1', 1, at(12, 5))])
        .when(completeUpdates([{ sequence: 1, outcome: okOutcome('res-1') }]))
        .thenThrows(NOT_PENDING);
    });
  });

  describe('When Active owing change 1 of res-1', () => {
    it('records a success with its effects', () => {
      given(histories.ActiveOwingRes1())
        .when(completeUpdates([{ sequence: 1, outcome: okOutcome('res-1', 'nova.flavor.grow') }], at(12, 5)))
        .then([updateApplied('res-1', 1, at(12, 5), 'nova.flavor.grow')]);
    });

    it('records a failure with its error and effects', () => {
      given(histories.ActiveOwingRes1())
        .when(completeUpdates([{ sequence: 1, outcome: failedOutcome('res-1', 'quota exceeded', 'nova.flavor.grow') }], at(12, 5)))
        .then([updateFailed('res-1', 1, at(12, 5), 'quota exceeded', 'nova.flavor.grow')]);
    });

    it('refuses an unknown sequence', () => {
      given(histories.ActiveOwingRes1())
        .when(completeUpdates([{ sequence: 7, outcome: okOutcome('res-1') }]))
        .thenThrows(NOT_PENDING);
    });

    it('refuses an outcome for a reservation that owes nothing', () => {
      given(histories.ActiveOwingRes1())
        .when(completeUpdates([{ sequence: 1, outcome: okOutcome('res-2') }]))
        .thenThrows(NOT_PENDING);
    });

    it('refuses an unknown reservation', () => {
      given(histories.ActiveOwingRes1())
        .when(completeUpdates([{ sequence: 1, outcome: okOutcome('res-9') }]))
        .thenThrows(NOT_PENDING);
    });

    it('refuses an empty list of outcomes', () => {
      given(histories.ActiveOwingRes1()).when(completeUpdates([])).thenThrows(NOT_PENDING);
    });

    it('refuses the outcome of a superseded change', () => {
      given([...histories.ActiveOwingRes1(), reservationChanged(fourInstances, at(13))])
        .when(completeUpdates([{ sequence: 1, outcome: okOutcome('res-1') }]))
        .thenThrows(NOT_PENDING);
    });

    it('records only the current outcome of a mix of current and stale ones', () => {
      given([...histories.ActiveOwingRes1(), reservationChanged(fourInstances, at(13))])
        .when(
          completeUpdates(
            [
              { sequence: 1, outcome: failedOutcome('res-1', 'old') },
              { sequence: 2, outcome: okOutcome('res-1', 'grow') },
              { sequence: 5, outcome: okOutcome('res-2') },
            ],
            at(13, 5),
          ),
        )
        .then([updateApplied('res-1', 2, at(13, 5), 'grow')]);
    });

    it('records one outcome per pending change when the same change is answered twice (the first one)', () => {
      given([...histories.ActiveOwingRes1(), reservationChanged(fourInstances, at(13))])
        .when(
          completeUpdates(
            [
              { sequence: 2, outcome: okOutcome('res-1', 'grow') },
              { sequence: 2, outcome: failedOutcome('res-1', 'again') },
            ],
            at(13, 5),
          ),
        )
        .then([updateApplied('res-1', 2, at(13, 5), 'grow')]);
    });
  });

  describe('When Active owing res-1 (change 1) and res-2 (change 2)', () => {
    const owingBoth = (): LeaseEvent[] => [...histories.ActiveOwingRes1(), reservationChanged(twoAddresses, at(13))];

    it('records both outcomes in the order given', () => {
      given(owingBoth())
        .when(
          completeUpdates(
            [
              { sequence: 2, outcome: failedOutcome('res-2', 'no address left', 'neutron.fip.create') },
              { sequence: 1, outcome: okOutcome('res-1', 'nova.flavor.grow') },
            ],
            at(13, 5),
          ),
        )
        .then([
          updateFailed('res-2', 2, at(13, 5), 'no address left', 'neutron.fip.create'),
          updateApplied('res-1', 1, at(13, 5), 'nova.flavor.grow'),
        ]);
    });

    it('records one of them, the other staying owed', () => {
      const outcome = completeUpdates([{ sequence: 2, outcome: okOutcome('res-2') }], at(13, 5));
      given(owingBoth())
        .when(outcome)
        .then([updateApplied('res-2', 2, at(13, 5))]);
      const after = fold([...owingBoth(), ...leaseDecider.decide(outcome, fold(owingBoth()))]);
      expect(leaseOf(after).pendingUpdates).toEqual({ 'res-1': 1 });
    });

    it('refuses outcomes whose sequences are swapped between the reservations', () => {
      given(owingBoth())
        .when(
          completeUpdates([
            { sequence: 1, outcome: okOutcome('res-2') },
            { sequence: 2, outcome: okOutcome('res-1') },
          ]),
        )
        .thenThrows(NOT_PENDING);
    });
  });

  describe('with the update decided by UpdateLease', () => {
    it('owes a change of an active reservation from the moment it is recorded, then settles it', () => {
      const events: LeaseEvent[] = histories.Active();
      const changed = leaseDecider.decide(updateReservations([threeInstances], at(12)), fold(events));
      expect(changed).toEqual([reservationChanged(threeInstances, at(12))]);
      events.push(...changed);
      expect(leaseOf(fold(events)).pendingUpdates).toEqual({ 'res-1': 1 });
      expect(nextDueAction(fold(events))).toEqual(due('update', 'complete', at(12)));

      const outcome = leaseDecider.decide(completeUpdates([{ sequence: 1, outcome: okOutcome('res-1') }], at(12, 1)), fold(events));
      expect(outcome).toEqual([updateApplied('res-1', 1, at(12, 1))]);
      events.push(...outcome);
      expect(leaseOf(fold(events)).pendingUpdates).toEqual({});
      expect(nextDueAction(fold(events))).toEqual(due('before_end', 'begin', BEFORE_END));
    });

    it('owes nothing for an unchanged reservation', () => {
      expect(leaseDecider.decide(updateReservations([instances], at(12)), fold(histories.Active()))).toEqual([]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// nextDueAction with pending updates
// ---------------------------------------------------------------------------------------------

describe('nextDueAction with pending updates', () => {
  const dueFor = (events: readonly LeaseEvent[]) => nextDueAction(fold(events));

  it('owes nothing for a change made while Pending: the start comes first', () => {
    expect(dueFor([...histories.Pending(), reservationChanged(threeInstances, at(9))])).toEqual(due('start', 'begin', START));
  });

  it('owes the update of an Active lease, due since the change', () => {
    expect(dueFor(histories.ActiveOwingRes1())).toEqual(due('update', 'complete', at(12)));
  });

  it('is due since the latest change when several are owed', () => {
    expect(dueFor([...histories.ActiveOwingRes1(), reservationChanged(twoAddresses, at(13))])).toEqual(due('update', 'complete', at(13)));
  });

  it('owes the update before the before-end action, even when both are overdue', () => {
    const lateChange = [...histories.Active(), reservationChanged(threeInstances, at(17, 30))];
    expect(dueFor(lateChange)).toEqual(due('update', 'complete', at(17, 30)));
  });

  it('owes the update before the end', () => {
    const events = [...histories.Active(), beforeEndRequested(), beforeEndCompleted(), reservationChanged(threeInstances, at(17, 30))];
    expect(dueFor(events)).toEqual(due('update', 'complete', at(17, 30)));
  });

  it('completes a before-end action in progress before the update', () => {
    const events = [...histories.Active(), beforeEndRequested(), reservationChanged(threeInstances, at(17, 10))];
    expect(dueFor(events)).toEqual(due('before_end', 'complete', BEFORE_END));
  });

  it('goes back to the before-end action once the update is settled', () => {
    expect(dueFor([...histories.ActiveOwingRes1(), updateFailed('res-1', 1, at(12, 5))])).toEqual(due('before_end', 'begin', BEFORE_END));
  });

  it('goes on to the end once the update is settled after the before-end action', () => {
    const events = [
      ...histories.Active(),
      beforeEndRequested(),
      beforeEndCompleted(),
      reservationChanged(threeInstances, at(17, 30)),
      updateApplied('res-1', 1, at(17, 31)),
    ];
    expect(dueFor(events)).toEqual(due('end', 'begin', END));
  });

  it('keeps owing the update while only a superseded change is settled', () => {
    const events = [...histories.ActiveOwingRes1(), reservationChanged(fourInstances, at(13)), updateApplied('res-1', 1, at(13, 5))];
    expect(dueFor(events)).toEqual(due('update', 'complete', at(13)));
  });

  it('drops the owed update once the lease is ending: the end comes first', () => {
    expect(dueFor([...histories.ActiveOwingRes1(), endRequested()])).toEqual(due('end', 'complete', END));
  });

  it('owes nothing once ended with an update never settled', () => {
    expect(dueFor([...histories.ActiveOwingRes1(), endRequested(), ended()])).toBeNull();
  });

  it('falls back to the start date for an owed update of a lease never updated (hand-built state)', () => {
    const state = fold(histories.ActiveOwingRes1());
    const handBuilt: LeaseState = { status: 'Active', lease: { ...leaseOf(state), updatedAt: null } };
    expect(nextDueAction(handBuilt)).toEqual(due('update', 'complete', START));
  });
});
