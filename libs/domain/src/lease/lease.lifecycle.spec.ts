import { describe, expect, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import { foldEvents } from '../shared/decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { BeginLeasePhase, CompleteLeasePhase, DeleteLease } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import type { EffectRecord, LeasePhase, ReservationOutcome } from './lease.types.js';
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
  deleted,
  endFailed,
  endRequested,
  ended,
  history,
  startFailed,
  startRequested,
  started,
} from './testing/lease.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Fixtures: a lease [10:00, 18:00) on 2030-01-01 with its before-end event at 17:00 (./testing/lease.fixtures.ts)
// ---------------------------------------------------------------------------------------------

const effects = (operation: string): EffectRecord[] => [{ operation, aggregate: 'blazar_lease-1' }];

const effectsApplied = (reservationId: string, phase: LeasePhase, when: string, operation = 'op'): LeaseEvent => ({
  type: 'Reservation.EffectsApplied',
  data: { leaseId: LEASE_ID, reservationId, phase, effects: effects(operation), at: when },
});
const effectsFailed = (reservationId: string, phase: LeasePhase, error: string, when: string, operation = 'op'): LeaseEvent => ({
  type: 'Reservation.EffectsFailed',
  data: { leaseId: LEASE_ID, reservationId, phase, error, effects: effects(operation), at: when },
});

const ok = (reservationId: string, operation = 'op'): ReservationOutcome => ({ reservationId, ok: true, effects: effects(operation) });
const failed = (reservationId: string, error: string, operation = 'op'): ReservationOutcome => ({
  reservationId,
  ok: false,
  error,
  effects: effects(operation),
});

const begin = (phase: LeasePhase, now: string): BeginLeasePhase => ({ type: 'BeginLeasePhase', data: { leaseId: LEASE_ID, phase, now } });
const complete = (phase: LeasePhase, now: string, outcomes: readonly ReservationOutcome[] = []): CompleteLeasePhase => ({
  type: 'CompleteLeasePhase',
  data: { leaseId: LEASE_ID, phase, outcomes, now },
});
const deleteLease = (now: string): DeleteLease => ({ type: 'DeleteLease', data: { leaseId: LEASE_ID, now } });

const given = DeciderSpecification.for(leaseDecider);

const NOT_DUE = 'LEASE_PHASE_NOT_DUE';
const NOT_IN_PROGRESS = 'LEASE_PHASE_NOT_IN_PROGRESS';

// ---------------------------------------------------------------------------------------------
// BeginLeasePhase
// ---------------------------------------------------------------------------------------------

describe('BeginLeasePhase', () => {
  describe('When the lease does not exist or was deleted', () => {
    it.each(['start', 'before_end', 'end'] as const)('refuses phase %s: the lease is not found', (phase) => {
      given([])
        .when(begin(phase, at(12)))
        .thenThrows('LEASE_NOT_FOUND', "Object with {'lease_id': 'lease-1'} not found");
      given(history.DeletedPending())
        .when(begin(phase, at(12)))
        .thenThrows('LEASE_NOT_FOUND');
      given(history.DeletedWhileActive())
        .when(begin(phase, at(20)))
        .thenThrows('LEASE_NOT_FOUND');
    });
  });

  describe('phase start', () => {
    describe('When Pending', () => {
      it('requests the start at its date', () => {
        given(history.Pending())
          .when(begin('start', START))
          .then([startRequested(START)]);
      });

      it('requests the start when it is overdue', () => {
        given(history.Pending())
          .when(begin('start', at(11, 30)))
          .then([startRequested(at(11, 30))]);
      });

      it('refuses before the start date', () => {
        given(history.Pending())
          .when(begin('start', at(9, 59, 59)))
          .thenThrows(NOT_DUE, 'Lease lease-1 in status Pending cannot begin phase start now');
      });
    });

    describe('When not Pending', () => {
      it.each(['Starting', 'Active', 'StartFailed', 'Ending', 'Ended', 'EndFailed'] as const)('refuses in status %s', (status) => {
        given(history[status]())
          .when(begin('start', at(12)))
          .thenThrows(NOT_DUE, `in status ${status} cannot begin phase start`);
      });
    });
  });

  describe('phase before_end', () => {
    describe('When Active with the before-end action undone', () => {
      it('requests the before-end action at its date', () => {
        given(history.Active())
          .when(begin('before_end', BEFORE_END))
          .then([beforeEndRequested(BEFORE_END)]);
      });

      it('requests the before-end action when it is overdue, even past the end', () => {
        given(history.Active())
          .when(begin('before_end', at(18, 30)))
          .then([beforeEndRequested(at(18, 30))]);
      });

      it('refuses before the before-end date', () => {
        given(history.Active())
          .when(begin('before_end', at(16, 59)))
          .thenThrows(NOT_DUE, 'cannot begin phase before_end now');
      });

      it('refuses when the lease has no before-end date', () => {
        given([created({ beforeEndDate: null }), startRequested(), started()])
          .when(begin('before_end', at(17, 30)))
          .thenThrows(NOT_DUE);
      });

      it('requests it again once a reschedule re-armed it', () => {
        const moved: LeaseEvent = {
          type: 'Lease.Rescheduled',
          data: { leaseId: LEASE_ID, startDate: START, endDate: at(20), beforeEndDate: at(19), rescheduledAt: at(17, 30) },
        };
        given([...history.BeforeEndDone(), moved])
          .when(begin('before_end', at(19)))
          .then([beforeEndRequested(at(19))]);
      });
    });

    describe('When Active with the before-end action already begun or finished', () => {
      it('refuses when it is in progress', () => {
        given(history.BeforeEndInProgress())
          .when(begin('before_end', at(17, 30)))
          .thenThrows(NOT_DUE);
      });

      it('refuses when it is already done', () => {
        given(history.BeforeEndDone())
          .when(begin('before_end', at(17, 30)))
          .thenThrows(NOT_DUE);
      });

      it('refuses when it already failed', () => {
        given(history.BeforeEndError())
          .when(begin('before_end', at(17, 30)))
          .thenThrows(NOT_DUE);
      });
    });

    describe('When not Active', () => {
      it.each(['Pending', 'Starting', 'StartFailed', 'Ending', 'Ended', 'EndFailed'] as const)('refuses in status %s', (status) => {
        given(history[status]())
          .when(begin('before_end', at(17, 30)))
          .thenThrows(NOT_DUE, `in status ${status} cannot begin phase before_end`);
      });
    });
  });

  describe('phase end', () => {
    describe('When Active', () => {
      it('requests the scheduled end at its date', () => {
        given(history.Active())
          .when(begin('end', END))
          .then([endRequested('scheduled', END)]);
      });

      it('requests the end after the before-end action ran', () => {
        given(history.BeforeEndDone())
          .when(begin('end', at(18, 5)))
          .then([endRequested('scheduled', at(18, 5))]);
      });

      it('refuses before the end date', () => {
        given(history.Active())
          .when(begin('end', at(17, 59, 59)))
          .thenThrows(NOT_DUE, 'Lease lease-1 in status Active cannot begin phase end now');
      });
    });

    describe('When StartFailed', () => {
      it('requests the scheduled end at its date', () => {
        given(history.StartFailed())
          .when(begin('end', END))
          .then([endRequested('scheduled', END)]);
      });

      it('refuses before the end date', () => {
        given(history.StartFailed())
          .when(begin('end', at(12)))
          .thenThrows(NOT_DUE);
      });
    });

    describe('When neither Active nor StartFailed', () => {
      it.each(['Pending', 'Starting', 'Ending', 'Ended', 'EndFailed'] as const)('refuses in status %s', (status) => {
        given(history[status]())
          .when(begin('end', at(19)))
          .thenThrows(NOT_DUE, `in status ${status} cannot begin phase end`);
      });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// CompleteLeasePhase
// ---------------------------------------------------------------------------------------------

describe('CompleteLeasePhase', () => {
  const NOW = at(10, 0, 5);

  describe('phase start', () => {
    describe('When Starting', () => {
      it('records each reservation effect and the start', () => {
        given(history.Starting())
          .when(complete('start', NOW, [ok('res-1', 'create_aggregate'), ok('res-2', 'create_aggregate')]))
          .then([
            effectsApplied('res-1', 'start', NOW, 'create_aggregate'),
            effectsApplied('res-2', 'start', NOW, 'create_aggregate'),
            started(NOW),
          ]);
      });

      it('records the start of a lease without reservations', () => {
        given(history.Starting())
          .when(complete('start', NOW))
          .then([started(NOW)]);
      });

      it('records the start failure with the failed reservation and its error as reason', () => {
        given(history.Starting())
          .when(complete('start', NOW, [ok('res-1'), failed('res-2', 'nova is down')]))
          .then([
            effectsApplied('res-1', 'start', NOW),
            effectsFailed('res-2', 'start', 'nova is down', NOW),
            startFailed('res-2: nova is down', NOW),
          ]);
      });

      it('joins the reasons of several failures', () => {
        given(history.Starting())
          .when(complete('start', NOW, [failed('res-1', 'boom'), failed('res-2', 'bang')]))
          .then([
            effectsFailed('res-1', 'start', 'boom', NOW),
            effectsFailed('res-2', 'start', 'bang', NOW),
            startFailed('res-1: boom; res-2: bang', NOW),
          ]);
      });
    });

    describe('When not Starting', () => {
      it.each(['Pending', 'Active', 'StartFailed', 'Ending', 'Ended'] as const)('refuses in status %s', (status) => {
        given(history[status]())
          .when(complete('start', NOW, [ok('res-1')]))
          .thenThrows(NOT_IN_PROGRESS, 'Lease lease-1 has no start phase in progress');
      });

      it('refuses for an unknown lease', () => {
        given([]).when(complete('start', NOW)).thenThrows(NOT_IN_PROGRESS);
      });
    });
  });

  describe('phase before_end', () => {
    describe('When Active with the before-end action in progress', () => {
      it('records the effects and the completion', () => {
        given(history.BeforeEndInProgress())
          .when(complete('before_end', at(17, 1), [ok('res-1', 'snapshot')]))
          .then([effectsApplied('res-1', 'before_end', at(17, 1), 'snapshot'), beforeEndCompleted(at(17, 1))]);
      });

      it('records the failure', () => {
        given(history.BeforeEndInProgress())
          .when(complete('before_end', at(17, 1), [failed('res-1', 'snapshot failed', 'snapshot')]))
          .then([
            effectsFailed('res-1', 'before_end', 'snapshot failed', at(17, 1), 'snapshot'),
            beforeEndFailed('res-1: snapshot failed', at(17, 1)),
          ]);
      });
    });

    describe('When no before-end action is in progress', () => {
      it.each([
        { name: 'Active, undone', events: history.Active },
        { name: 'Active, done', events: history.BeforeEndDone },
        { name: 'Active, error', events: history.BeforeEndError },
        { name: 'Pending', events: history.Pending },
        { name: 'Ending', events: history.Ending },
      ])('refuses when $name', ({ events }) => {
        given(events())
          .when(complete('before_end', at(17, 1)))
          .thenThrows(NOT_IN_PROGRESS, 'has no before_end phase in progress');
      });
    });
  });

  describe('phase end', () => {
    describe('When Ending', () => {
      it('records the effects and the end', () => {
        given(history.Ending())
          .when(complete('end', at(18, 1), [ok('res-1', 'delete_aggregate'), ok('res-2', 'delete_aggregate')]))
          .then([
            effectsApplied('res-1', 'end', at(18, 1), 'delete_aggregate'),
            effectsApplied('res-2', 'end', at(18, 1), 'delete_aggregate'),
            ended(at(18, 1)),
          ]);
      });

      it('records the end failure', () => {
        given(history.Ending())
          .when(complete('end', at(18, 1), [failed('res-1', 'boom'), ok('res-2')]))
          .then([
            effectsFailed('res-1', 'end', 'boom', at(18, 1)),
            effectsApplied('res-2', 'end', at(18, 1)),
            endFailed('res-1: boom', at(18, 1)),
          ]);
      });
    });

    describe('When deleted while active (end pending)', () => {
      it('records the effects and the end', () => {
        given(history.DeletedWhileActive())
          .when(complete('end', at(12, 1), [ok('res-1')]))
          .then([effectsApplied('res-1', 'end', at(12, 1)), ended(at(12, 1))]);
      });

      it('records the end failure', () => {
        given(history.DeletedWhileActive())
          .when(complete('end', at(12, 1), [failed('res-1', 'boom')]))
          .then([effectsFailed('res-1', 'end', 'boom', at(12, 1)), endFailed('res-1: boom', at(12, 1))]);
      });
    });

    describe('When no end is in progress', () => {
      it.each([
        { name: 'Active', events: history.Active },
        { name: 'StartFailed', events: history.StartFailed },
        { name: 'Ended', events: history.Ended },
        { name: 'EndFailed', events: history.EndFailed },
        { name: 'deleted while pending', events: history.DeletedPending },
        { name: 'deleted while active, end already done', events: history.DeletedWhileActiveDone },
      ])('refuses when $name', ({ events }) => {
        given(events())
          .when(complete('end', at(18, 1)))
          .thenThrows(NOT_IN_PROGRESS, 'Lease lease-1 has no end phase in progress');
      });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// DeleteLease
// ---------------------------------------------------------------------------------------------

describe('DeleteLease', () => {
  describe('When Pending', () => {
    it('deletes the lease', () => {
      given(history.Pending())
        .when(deleteLease(at(9)))
        .then([deleted(at(9))]);
    });
  });

  describe('When Active', () => {
    it('requests the end (reason deleted), then deletes', () => {
      given(history.Active())
        .when(deleteLease(at(12)))
        .then([endRequested('deleted', at(12)), deleted(at(12))]);
    });
  });

  describe('When StartFailed', () => {
    it('requests the end (reason deleted), then deletes', () => {
      given(history.StartFailed())
        .when(deleteLease(at(12)))
        .then([endRequested('deleted', at(12)), deleted(at(12))]);
    });
  });

  describe('When Ended or EndFailed', () => {
    it('deletes an Ended lease', () => {
      given(history.Ended())
        .when(deleteLease(at(19)))
        .then([deleted(at(19))]);
    });

    it('deletes an EndFailed lease', () => {
      given(history.EndFailed())
        .when(deleteLease(at(19)))
        .then([deleted(at(19))]);
    });
  });

  describe('When Starting or Ending', () => {
    it('refuses while starting', () => {
      given(history.Starting())
        .when(deleteLease(at(10)))
        .thenThrows('LEASE_BUSY', 'Lease lease-1 is STARTING; retry once it is done');
    });

    it('refuses while ending', () => {
      given(history.Ending())
        .when(deleteLease(at(18)))
        .thenThrows('LEASE_BUSY', 'Lease lease-1 is TERMINATING; retry once it is done');
    });
  });

  describe('When Deleted or unknown', () => {
    it('refuses an unknown lease', () => {
      given([])
        .when(deleteLease(at(9)))
        .thenThrows('LEASE_NOT_FOUND', "Object with {'lease_id': 'lease-1'} not found");
    });

    it('refuses a lease deleted while pending', () => {
      given(history.DeletedPending())
        .when(deleteLease(at(9)))
        .thenThrows('LEASE_NOT_FOUND');
    });

    it('refuses a lease deleted while active', () => {
      given(history.DeletedWhileActive())
        .when(deleteLease(at(13)))
        .thenThrows('LEASE_NOT_FOUND');
    });
  });
});

// ---------------------------------------------------------------------------------------------
// evolve of the lifecycle events
// ---------------------------------------------------------------------------------------------

describe('evolve (lifecycle)', () => {
  const fold = (events: readonly LeaseEvent[]) => foldEvents(leaseDecider, events);

  it.each([
    { name: 'StartRequested -> Starting', events: history.Starting, status: 'Starting' },
    { name: 'Started -> Active', events: history.Active, status: 'Active' },
    { name: 'StartFailed -> StartFailed', events: history.StartFailed, status: 'StartFailed' },
    { name: 'EndRequested -> Ending', events: history.Ending, status: 'Ending' },
    { name: 'Ended -> Ended', events: history.Ended, status: 'Ended' },
    { name: 'EndFailed -> EndFailed', events: history.EndFailed, status: 'EndFailed' },
    { name: 'Deleted -> Deleted', events: history.DeletedPending, status: 'Deleted' },
  ])('$name', ({ events, status }) => {
    expect(fold(events()).status).toBe(status);
  });

  it('StartFailed and EndFailed keep their reason', () => {
    expect(fold(history.StartFailed())).toMatchObject({ status: 'StartFailed', reason: 'res-1: boom' });
    expect(fold([...history.Ending(), endFailed('res-2: bang')])).toMatchObject({ status: 'EndFailed', reason: 'res-2: bang' });
  });

  it('tracks the before-end action: in progress, done, error', () => {
    expect(fold(history.BeforeEndInProgress())).toMatchObject({
      status: 'Active',
      lease: { beforeEnd: 'in_progress', updatedAt: BEFORE_END },
    });
    expect(fold(history.BeforeEndDone())).toMatchObject({ status: 'Active', lease: { beforeEnd: 'done' } });
    expect(fold(history.BeforeEndError())).toMatchObject({ status: 'Active', lease: { beforeEnd: 'error' } });
  });

  it('a lease deleted before it started owes no end', () => {
    expect(fold(history.DeletedPending())).toMatchObject({ status: 'Deleted', end: 'none', deletedAt: at(9) });
  });

  it('a lease deleted while active owes its end', () => {
    expect(fold(history.DeletedWhileActive())).toMatchObject({ status: 'Deleted', end: 'pending', deletedAt: at(12) });
  });

  it('a lease deleted after it ended owes no end', () => {
    expect(fold([...history.Ended(), deleted(at(19))])).toMatchObject({ status: 'Deleted', end: 'none' });
  });

  it('the owed end of a deleted lease completes as done or failed, staying Deleted', () => {
    expect(fold(history.DeletedWhileActiveDone())).toMatchObject({ status: 'Deleted', end: 'done', deletedAt: at(12) });
    expect(fold([...history.DeletedWhileActive(), endFailed()])).toMatchObject({ status: 'Deleted', end: 'failed' });
  });

  it('an EndRequested after deletion keeps the lease Deleted', () => {
    expect(fold([...history.DeletedWhileActive(), endRequested()])).toMatchObject({ status: 'Deleted', end: 'pending' });
  });

  it('the decisions of a whole lifecycle replay to the expected states', () => {
    let events: LeaseEvent[] = history.Pending();
    const decide = (command: Parameters<typeof leaseDecider.decide>[0]): void => {
      events = [...events, ...leaseDecider.decide(command, fold(events))];
    };
    decide(begin('start', START));
    expect(fold(events).status).toBe('Starting');
    decide(complete('start', START, [ok('res-1')]));
    expect(fold(events).status).toBe('Active');
    decide(deleteLease(at(12)));
    expect(fold(events)).toMatchObject({ status: 'Deleted', end: 'pending' });
    decide(complete('end', at(12, 1), [ok('res-1')]));
    expect(fold(events)).toMatchObject({ status: 'Deleted', end: 'done' });
  });
});
