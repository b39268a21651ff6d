import { describe, expect, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import { foldEvents } from '../shared/decider.js';
import type { LeaseEvent } from './lease.events.js';
import { nextDueAction } from './lease.schedule.js';
import type { DeletedEnd, LeaseData, LeaseState } from './lease.state.js';
import type { PhaseProgress } from './lease.types.js';
import {
  BEFORE_END,
  CREATED_AT,
  END,
  LEASE_ID,
  LEASE_IDENTITY,
  START,
  at,
  beforeEndCompleted,
  beforeEndRequested,
  created,
  endRequested,
  ended,
  eventIds,
  startRequested,
  started,
} from './testing/lease.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Fixtures: a lease [10:00, 18:00) on 2030-01-01 with its before-end event at 17:00 (./testing/lease.fixtures.ts)
// ---------------------------------------------------------------------------------------------

const DELETED_AT = at(12, 30);

const leaseData = (overrides: Partial<LeaseData> = {}): LeaseData => ({
  ...LEASE_IDENTITY,
  beforeEndDate: BEFORE_END,
  reservations: [],
  eventIds,
  beforeEnd: 'undone',
  changeSequence: 0,
  pendingUpdates: {},
  healing: {},
  leftovers: [],
  createdAt: CREATED_AT,
  updatedAt: null,
  ...overrides,
});

const active = (beforeEnd: PhaseProgress, beforeEndDate: string | null = BEFORE_END): LeaseState => ({
  status: 'Active',
  lease: leaseData({ beforeEnd, beforeEndDate }),
});

const deletedWith = (end: DeletedEnd): LeaseState => ({ status: 'Deleted', lease: leaseData(), end, deletedAt: DELETED_AT });

const due = (phase: 'start' | 'before_end' | 'end', step: 'begin' | 'complete', dueAt: string) => ({
  leaseId: LEASE_ID,
  phase,
  step,
  dueAt,
});

// ---------------------------------------------------------------------------------------------
// nextDueAction
// ---------------------------------------------------------------------------------------------

describe('nextDueAction', () => {
  describe('When Initial', () => {
    it('owes nothing', () => {
      expect(nextDueAction({ status: 'Initial' })).toBeNull();
    });
  });

  describe('When Pending', () => {
    it('begins the start at the start date', () => {
      expect(nextDueAction({ status: 'Pending', lease: leaseData() })).toEqual(due('start', 'begin', START));
    });
  });

  describe('When Starting', () => {
    it('completes the start, due since the start date', () => {
      expect(nextDueAction({ status: 'Starting', lease: leaseData() })).toEqual(due('start', 'complete', START));
    });
  });

  describe('When Active', () => {
    it('begins the before-end action at its date when it is undone', () => {
      expect(nextDueAction(active('undone'))).toEqual(due('before_end', 'begin', BEFORE_END));
    });

    it('completes the before-end action when it is in progress', () => {
      expect(nextDueAction(active('in_progress'))).toEqual(due('before_end', 'complete', BEFORE_END));
    });

    it('completes an in-progress before-end action without a date, due at the end', () => {
      expect(nextDueAction(active('in_progress', null))).toEqual(due('before_end', 'complete', END));
    });

    it('begins the end when the before-end action is done', () => {
      expect(nextDueAction(active('done'))).toEqual(due('end', 'begin', END));
    });

    it('begins the end when the before-end action failed', () => {
      expect(nextDueAction(active('error'))).toEqual(due('end', 'begin', END));
    });

    it('begins the end when there is no before-end date', () => {
      expect(nextDueAction(active('undone', null))).toEqual(due('end', 'begin', END));
    });

    it('begins the before-end action first even when its date equals the start', () => {
      expect(nextDueAction(active('undone', START))).toEqual(due('before_end', 'begin', START));
    });
  });

  describe('When StartFailed', () => {
    it('begins the end at the end date', () => {
      expect(nextDueAction({ status: 'StartFailed', lease: leaseData(), reason: 'res-1: boom' })).toEqual(due('end', 'begin', END));
    });
  });

  describe('When Ending', () => {
    it('completes the end, due since the end date', () => {
      expect(nextDueAction({ status: 'Ending', lease: leaseData() })).toEqual(due('end', 'complete', END));
    });
  });

  describe('When Ended', () => {
    it('owes nothing', () => {
      expect(nextDueAction({ status: 'Ended', lease: leaseData() })).toBeNull();
    });
  });

  describe('When EndFailed', () => {
    it('owes nothing', () => {
      expect(nextDueAction({ status: 'EndFailed', lease: leaseData(), reason: 'res-1: boom' })).toBeNull();
    });
  });

  describe('When Deleted', () => {
    it('owes nothing when no end was owed', () => {
      expect(nextDueAction(deletedWith('none'))).toBeNull();
    });

    it('completes the owed end, due since the deletion', () => {
      expect(nextDueAction(deletedWith('pending'))).toEqual(due('end', 'complete', DELETED_AT));
    });

    it('owes nothing once the owed end is done', () => {
      expect(nextDueAction(deletedWith('done'))).toBeNull();
    });

    it('owes nothing once the owed end failed', () => {
      expect(nextDueAction(deletedWith('failed'))).toBeNull();
    });
  });

  describe('on folded histories', () => {
    const fold = (events: readonly LeaseEvent[]): LeaseState => foldEvents(leaseDecider, events);

    it('walks start -> before-end -> end', () => {
      const history: LeaseEvent[] = [created({ reservations: [] })];
      expect(nextDueAction(fold(history))).toEqual(due('start', 'begin', START));
      history.push(startRequested(START));
      expect(nextDueAction(fold(history))).toEqual(due('start', 'complete', START));
      history.push(started(START));
      expect(nextDueAction(fold(history))).toEqual(due('before_end', 'begin', BEFORE_END));
      history.push(beforeEndRequested(BEFORE_END));
      expect(nextDueAction(fold(history))).toEqual(due('before_end', 'complete', BEFORE_END));
      history.push(beforeEndCompleted(BEFORE_END));
      expect(nextDueAction(fold(history))).toEqual(due('end', 'begin', END));
      history.push(endRequested('scheduled', END));
      expect(nextDueAction(fold(history))).toEqual(due('end', 'complete', END));
      history.push(ended(END));
      expect(nextDueAction(fold(history))).toBeNull();
    });
  });
});
