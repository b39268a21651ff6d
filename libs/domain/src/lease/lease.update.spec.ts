import { describe, expect, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import { foldEvents } from '../shared/decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { UpdateLease } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import type { LeaseState } from './lease.state.js';
import {
  BEFORE_END,
  END,
  LEASE_ID,
  START,
  at,
  beforeEndCompleted,
  beforeEndFailed,
  beforeEndRequested,
  created,
  history,
  type HistoryStatus,
  reservation,
} from './testing/lease.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Fixtures: a lease [10:00, 18:00) on 2030-01-01 with its before-end event at 17:00 (./testing/lease.fixtures.ts)
// ---------------------------------------------------------------------------------------------

/** A plausible "now" for each status of the shared event histories. */
const nowIn = {
  Pending: at(9),
  Starting: at(10),
  Active: at(12),
  StartFailed: at(12),
  Ending: at(18),
  Ended: at(19),
  EndFailed: at(19),
  DeletedPending: at(9),
} satisfies Partial<Record<HistoryStatus, string>>;

const updateLease = (changes: Partial<UpdateLease['data']> = {}): UpdateLease => ({
  type: 'UpdateLease',
  data: {
    leaseId: LEASE_ID,
    name: null,
    startDate: null,
    endDate: null,
    beforeEndDate: null,
    reservationIds: [],
    reservations: [],
    now: nowIn.Pending,
    ...changes,
  },
});

const renamed = (name: string, now: string): LeaseEvent => ({ type: 'Lease.Renamed', data: { leaseId: LEASE_ID, name, renamedAt: now } });

const rescheduled = (startDate: string, endDate: string, beforeEndDate: string | null, now: string): LeaseEvent => ({
  type: 'Lease.Rescheduled',
  data: { leaseId: LEASE_ID, startDate, endDate, beforeEndDate, rescheduledAt: now },
});

const reservationChanged = (changed: HostReservation, now: string): LeaseEvent => ({
  type: 'Reservation.Changed',
  data: { leaseId: LEASE_ID, reservation: changed, changedAt: now },
});

const given = DeciderSpecification.for(leaseDecider);

const leaseOf = (state: LeaseState) => (state.status === 'Initial' ? undefined : state.lease);

// ---------------------------------------------------------------------------------------------
// UpdateLease
// ---------------------------------------------------------------------------------------------

describe('UpdateLease', () => {
  describe('When the lease does not exist', () => {
    it('refuses: the lease is not found', () => {
      given([])
        .when(updateLease({ name: 'new-name' }))
        .thenThrows('LEASE_NOT_FOUND', "Object with {'lease_id': 'lease-1'} not found");
    });
  });

  describe('When Deleted', () => {
    it('refuses: the lease is not found, even for a rename', () => {
      given(history.DeletedPending())
        .when(updateLease({ name: 'new-name' }))
        .thenThrows('LEASE_NOT_FOUND', "Object with {'lease_id': 'lease-1'} not found");
    });
  });

  describe('When renaming only', () => {
    it.each(['Pending', 'Starting', 'Active', 'StartFailed', 'Ending', 'Ended', 'EndFailed'] as const)(
      'renames a lease in status %s',
      (status) => {
        const now = nowIn[status];
        given(history[status]())
          .when(updateLease({ name: 'new-name', now }))
          .then([renamed('new-name', now)]);
      },
    );

    it('renames a lease whose end date is in the past', () => {
      given(history.Active())
        .when(updateLease({ name: 'new-name', now: at(23) }))
        .then([renamed('new-name', at(23))]);
    });

    it('does nothing when the name is unchanged', () => {
      given(history.Active())
        .when(updateLease({ name: 'my-lease', now: nowIn.Active }))
        .thenNothing();
    });

    it('does nothing when nothing is given', () => {
      given(history.Ended())
        .when(updateLease({ now: nowIn.Ended }))
        .thenNothing();
    });
  });

  describe('When any reservation id is unknown', () => {
    it('refuses, naming the unknown ids', () => {
      given(history.Pending())
        .when(updateLease({ reservationIds: ['res-1', 'res-8', 'res-9'] }))
        .thenThrows('INVALID_RESERVATION_IDS', 'Invalid reservation IDs are: res-8, res-9');
    });

    it('refuses before judging the lease status', () => {
      given(history.Ended())
        .when(updateLease({ reservationIds: ['res-9'], now: nowIn.Ended }))
        .thenThrows('INVALID_RESERVATION_IDS');
    });
  });

  describe('When Starting or Ending', () => {
    it('refuses to reschedule a starting lease', () => {
      given(history.Starting())
        .when(updateLease({ endDate: at(20), now: nowIn.Starting }))
        .thenThrows('LEASE_BUSY', 'Lease lease-1 is STARTING');
    });

    it('refuses to reschedule an ending lease', () => {
      given(history.Ending())
        .when(updateLease({ endDate: at(20), now: nowIn.Ending }))
        .thenThrows('LEASE_BUSY', 'Lease lease-1 is TERMINATING');
    });

    it('refuses a reservation change on a starting lease', () => {
      given(history.Starting())
        .when(updateLease({ reservationIds: ['res-1'], reservations: [reservation('res-1', { max: 2 })], now: nowIn.Starting }))
        .thenThrows('LEASE_BUSY');
    });

    it('refuses a rename combined with a date change', () => {
      given(history.Ending())
        .when(updateLease({ name: 'new-name', endDate: at(20), now: nowIn.Ending }))
        .thenThrows('LEASE_BUSY');
    });
  });

  describe('When terminated', () => {
    it('refuses to reschedule an Ended lease', () => {
      given(history.Ended())
        .when(updateLease({ endDate: at(22), now: nowIn.Ended }))
        .thenThrows('LEASE_ENDED', 'Terminated leases can only be renamed');
    });

    it('refuses to reschedule an EndFailed lease', () => {
      given(history.EndFailed())
        .when(updateLease({ endDate: at(22), now: nowIn.EndFailed }))
        .thenThrows('LEASE_ENDED', 'Terminated leases can only be renamed');
    });

    it.each(['Ended', 'EndFailed'] as const)('refuses a %s lease by its status alone, even if its end date were ahead', (status) => {
      given(history[status]())
        .when(updateLease({ endDate: at(22), now: at(12) }))
        .thenThrows('LEASE_ENDED', 'Terminated leases can only be renamed');
    });

    it('refuses a reservation change on an Ended lease', () => {
      given(history.Ended())
        .when(updateLease({ reservationIds: ['res-1'], reservations: [reservation('res-1', { max: 2 })], now: nowIn.Ended }))
        .thenThrows('LEASE_ENDED');
    });

    it('refuses to reschedule an Active lease whose end date has passed', () => {
      given(history.Active())
        .when(updateLease({ endDate: at(22), now: at(18, 1) }))
        .thenThrows('LEASE_ENDED', 'Terminated leases can only be renamed');
    });

    it('refuses to reschedule a Pending lease whose end date has passed', () => {
      given(history.Pending())
        .when(updateLease({ endDate: at(22), now: at(18, 1) }))
        .thenThrows('LEASE_ENDED');
    });

    it('still accepts a lease whose end is within the current minute', () => {
      given(history.Active())
        .when(updateLease({ endDate: at(22), now: at(18, 0, 30) }))
        .then([rescheduled(START, at(22), at(21), at(18, 0, 30))]);
    });
  });

  describe('When started (Active or StartFailed)', () => {
    it('refuses to change the start of an Active lease', () => {
      given(history.Active())
        .when(updateLease({ startDate: at(11), now: nowIn.Active }))
        .thenThrows('START_OF_STARTED_LEASE', 'Cannot modify the start date of already started leases');
    });

    it('refuses to change the start of a StartFailed lease', () => {
      given(history.StartFailed())
        .when(updateLease({ startDate: at(13), now: nowIn.StartFailed }))
        .thenThrows('START_OF_STARTED_LEASE');
    });

    it('accepts the same start on a started lease (no change)', () => {
      given(history.Active())
        .when(updateLease({ startDate: START, now: nowIn.Active }))
        .thenNothing();
    });

    it('accepts the same start together with a new end', () => {
      given(history.Active())
        .when(updateLease({ startDate: START, endDate: at(20), now: nowIn.Active }))
        .then([rescheduled(START, at(20), at(19), nowIn.Active)]);
    });

    it('refuses an end before now', () => {
      given(history.Active())
        .when(updateLease({ endDate: at(11, 59), now: nowIn.Active }))
        .thenThrows('END_BEFORE_START', 'End date must be later than current and start date');
    });

    it('accepts an end within the current minute', () => {
      given(history.Active())
        .when(updateLease({ endDate: at(12), now: at(12, 0, 30) }))
        .then([rescheduled(START, at(12), at(11), at(12, 0, 30))]);
    });

    it('extends the end, moving the before-end date so it keeps its distance to the end', () => {
      given(history.Active())
        .when(updateLease({ endDate: at(20), now: nowIn.Active }))
        .then([rescheduled(START, at(20), at(19), nowIn.Active)]);
    });

    it('shortens the end, moving the before-end date with it', () => {
      given(history.Active())
        .when(updateLease({ endDate: at(16), now: nowIn.Active }))
        .then([rescheduled(START, at(16), at(15), nowIn.Active)]);
    });

    it('reschedules a StartFailed lease', () => {
      given(history.StartFailed())
        .when(updateLease({ endDate: at(20), now: nowIn.StartFailed }))
        .then([rescheduled(START, at(20), at(19), nowIn.StartFailed)]);
    });

    it('reschedules an Active lease whose before-end action already ran', () => {
      given([...history.Active(), beforeEndRequested(), beforeEndCompleted()])
        .when(updateLease({ endDate: at(20), now: at(17, 30) }))
        .then([rescheduled(START, at(20), at(19), at(17, 30))]);
    });
  });

  describe('When Pending', () => {
    it('moves start and end, keeping the before-end distance to the end', () => {
      given(history.Pending())
        .when(updateLease({ startDate: at(11), endDate: at(19) }))
        .then([rescheduled(at(11), at(19), at(18), nowIn.Pending)]);
    });

    it('moves the start only', () => {
      given(history.Pending())
        .when(updateLease({ startDate: at(12) }))
        .then([rescheduled(at(12), END, BEFORE_END, nowIn.Pending)]);
    });

    it('clamps the moved before-end date to the new start', () => {
      given(history.Pending())
        .when(updateLease({ endDate: at(10, 30) }))
        .then([rescheduled(START, at(10, 30), START, nowIn.Pending)]);
    });

    it('clamps the moved before-end date to a later start', () => {
      given(history.Pending())
        .when(updateLease({ startDate: at(17, 30) }))
        .then([rescheduled(at(17, 30), END, at(17, 30), nowIn.Pending)]);
    });

    it('keeps a missing before-end date missing', () => {
      given([created({ beforeEndDate: null })])
        .when(updateLease({ endDate: at(20) }))
        .then([rescheduled(START, at(20), null, nowIn.Pending)]);
    });

    it('refuses a new start before the current minute', () => {
      given(history.Pending())
        .when(updateLease({ startDate: at(8, 59), now: at(9, 0, 30) }))
        .thenThrows('START_IN_PAST', 'Start date must be later than current date');
    });

    it('accepts a new start within the current minute', () => {
      given(history.Pending())
        .when(updateLease({ startDate: at(9), now: at(9, 0, 30) }))
        .then([rescheduled(at(9), END, BEFORE_END, at(9, 0, 30))]);
    });

    it('accepts an end equal to the start, as upstream does (ending a lease at once in its first minute)', () => {
      given(history.Active())
        .when(updateLease({ endDate: START, now: at(10, 0, 30) }))
        .then([rescheduled(START, START, START, at(10, 0, 30))]);
    });

    it('refuses an end before the start', () => {
      given(history.Pending())
        .when(updateLease({ startDate: at(11), endDate: at(10, 30) }))
        .thenThrows('END_BEFORE_START', 'End date must be later than current and start date');
    });

    it('refuses a new start after the unchanged end', () => {
      given(history.Pending())
        .when(updateLease({ startDate: at(19) }))
        .thenThrows('END_BEFORE_START');
    });

    it('refuses an end before now', () => {
      given(history.Pending())
        .when(updateLease({ endDate: at(8), now: at(9) }))
        .thenThrows('END_BEFORE_START');
    });
  });

  describe('When given an explicit before-end date', () => {
    it('uses it as given', () => {
      given(history.Active())
        .when(updateLease({ beforeEndDate: at(15), now: nowIn.Active }))
        .then([rescheduled(START, END, at(15), nowIn.Active)]);
    });

    it('uses it as given together with a new end', () => {
      given(history.Pending())
        .when(updateLease({ endDate: at(20), beforeEndDate: at(12) }))
        .then([rescheduled(START, at(20), at(12), nowIn.Pending)]);
    });

    it('does nothing when it equals the current before-end date', () => {
      given(history.Active())
        .when(updateLease({ beforeEndDate: BEFORE_END, now: nowIn.Active }))
        .thenNothing();
    });

    it('sets one on a lease that had none', () => {
      given([created({ beforeEndDate: null })])
        .when(updateLease({ beforeEndDate: at(15) }))
        .then([rescheduled(START, END, at(15), nowIn.Pending)]);
    });

    it('refuses one outside the new dates', () => {
      given(history.Pending())
        .when(updateLease({ endDate: at(14), beforeEndDate: at(15) }))
        .thenThrows('BEFORE_END_OUT_OF_RANGE', 'Datetime is out of lease limits');
    });

    it.each([
      { name: 'equal to the start', beforeEndDate: START },
      { name: 'equal to the end', beforeEndDate: END },
    ])('refuses one $name', ({ beforeEndDate }) => {
      given(history.Pending()).when(updateLease({ beforeEndDate })).thenThrows('BEFORE_END_OUT_OF_RANGE');
    });
  });

  describe('When changing reservations', () => {
    it('records a changed reservation', () => {
      const changed = reservation('res-1', { max: 3, hostIds: ['7', '8', '9'] });
      given(history.Pending())
        .when(updateLease({ reservationIds: ['res-1'], reservations: [changed] }))
        .then([reservationChanged(changed, nowIn.Pending)]);
    });

    it('records a changed reservation of an Active lease', () => {
      const changed = reservation('res-2', { resourceProperties: '["==", "$gpu", "true"]' });
      given(history.Active())
        .when(updateLease({ reservationIds: ['res-2'], reservations: [changed], now: nowIn.Active }))
        .then([reservationChanged(changed, nowIn.Active)]);
    });

    it('records nothing for an unchanged reservation (and does not reschedule)', () => {
      given(history.Pending())
        .when(updateLease({ reservationIds: ['res-1'], reservations: [reservation('res-1')] }))
        .thenNothing();
    });

    it('records only the reservations that changed', () => {
      const changed = reservation('res-2', { min: 2, max: 2 });
      given(history.Pending())
        .when(updateLease({ reservationIds: ['res-1', 'res-2'], reservations: [reservation('res-1'), changed] }))
        .then([reservationChanged(changed, nowIn.Pending)]);
    });

    it('records rename, reschedule and reservation change in that order', () => {
      const changed = reservation('res-1', { max: 2 });
      given(history.Pending())
        .when(updateLease({ name: 'new-name', endDate: at(20), reservationIds: ['res-1'], reservations: [changed] }))
        .then([
          renamed('new-name', nowIn.Pending),
          rescheduled(START, at(20), at(19), nowIn.Pending),
          reservationChanged(changed, nowIn.Pending),
        ]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// evolve of the update events
// ---------------------------------------------------------------------------------------------

describe('evolve (updates)', () => {
  it('Renamed sets the name and the update time', () => {
    const state = foldEvents(leaseDecider, [...history.Active(), renamed('new-name', at(12))]);
    expect(state.status).toBe('Active');
    expect(leaseOf(state)).toMatchObject({ name: 'new-name', updatedAt: at(12) });
  });

  it('Rescheduled sets the dates and keeps the status', () => {
    const state = foldEvents(leaseDecider, [...history.Active(), rescheduled(START, at(20), at(19), at(12))]);
    expect(state.status).toBe('Active');
    expect(leaseOf(state)).toMatchObject({
      startDate: START,
      endDate: at(20),
      beforeEndDate: at(19),
      beforeEnd: 'undone',
      updatedAt: at(12),
    });
  });

  it('Rescheduled re-arms a before-end action that already ran when its date moves', () => {
    const state = foldEvents(leaseDecider, [
      ...history.Active(),
      beforeEndRequested(),
      beforeEndCompleted(),
      rescheduled(START, at(20), at(19), at(17, 30)),
    ]);
    expect(leaseOf(state)).toMatchObject({ beforeEnd: 'undone', beforeEndDate: at(19) });
  });

  it('Rescheduled re-arms a failed before-end action when its date moves', () => {
    const state = foldEvents(leaseDecider, [
      ...history.Active(),
      beforeEndRequested(),
      beforeEndFailed(),
      rescheduled(START, at(20), at(19), at(17, 30)),
    ]);
    expect(leaseOf(state)).toMatchObject({ beforeEnd: 'undone' });
  });

  it('Rescheduled keeps a done before-end action when its date does not move', () => {
    const state = foldEvents(leaseDecider, [
      ...history.Active(),
      beforeEndRequested(),
      beforeEndCompleted(),
      rescheduled(START, at(20), BEFORE_END, at(17, 30)),
    ]);
    expect(leaseOf(state)).toMatchObject({ beforeEnd: 'done', endDate: at(20) });
  });

  it('Rescheduled keeps a before-end action in progress', () => {
    const state = foldEvents(leaseDecider, [...history.Active(), beforeEndRequested(), rescheduled(START, at(20), at(19), at(17, 1))]);
    expect(leaseOf(state)).toMatchObject({ beforeEnd: 'in_progress', beforeEndDate: at(19) });
  });

  it('Reservation.Changed replaces that reservation only', () => {
    const changed = reservation('res-2', { max: 4 });
    const state = foldEvents(leaseDecider, [...history.Pending(), reservationChanged(changed, at(9))]);
    expect(leaseOf(state)).toMatchObject({ reservations: [reservation('res-1'), changed], updatedAt: at(9) });
  });
});

describe('Regressions', () => {
  it('lets an overdue pending lease (reactor late) change its end without moving its start', () => {
    given(history.Pending())
      .when(updateLease({ endDate: at(20), now: at(10, 5) }))
      .then([
        {
          type: 'Lease.Rescheduled',
          data: { leaseId: LEASE_ID, startDate: START, endDate: at(20), beforeEndDate: at(19), rescheduledAt: at(10, 5) },
        },
      ]);
  });

  it('does not let new allocations bypass the state checks through the rename-only path', () => {
    given(history.Ended())
      .when(updateLease({ reservations: [reservation('res-1', { hostIds: ['8'] })], now: nowIn.Ended }))
      .thenThrows('LEASE_ENDED');
  });
});
