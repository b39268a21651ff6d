import { describe, expect, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import { foldEvents } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { CreateLease } from './lease.commands.js';
import type { LeaseCreated } from './lease.events.js';
import {
  END,
  LEASE_ID,
  LEASE_IDENTITY,
  START,
  at,
  created as leaseCreated,
  deleted,
  eventIds,
  reservationFactory,
} from './testing/lease.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Fixtures (shared ones in ./testing/lease.fixtures.ts)
// ---------------------------------------------------------------------------------------------

const NOW = at(9);

const reservation = reservationFactory({ resourceProperties: '["==", "$gpu", "true"]' });

type CreateData = CreateLease['data'];

const createLease = (overrides: Partial<CreateData> = {}): CreateLease => ({
  type: 'CreateLease',
  data: {
    ...LEASE_IDENTITY,
    beforeEndDate: null,
    reservations: [reservation('res-1')],
    eventIds,
    minutesBeforeEnd: 60,
    now: NOW,
    ...overrides,
  },
});

/** The event CreateLease yields for the same overrides, given the expected before-end date. */
const created = (beforeEndDate: string | null, overrides: Partial<CreateData> = {}): LeaseCreated => {
  const { leaseId, name, projectId, userId, trustId, startDate, endDate, reservations, now } = createLease(overrides).data;
  return leaseCreated({
    leaseId,
    name,
    projectId,
    userId,
    trustId,
    startDate,
    endDate,
    beforeEndDate,
    reservations,
    eventIds,
    createdAt: now,
  });
};

const given = DeciderSpecification.for(leaseDecider);

// ---------------------------------------------------------------------------------------------
// CreateLease
// ---------------------------------------------------------------------------------------------

describe('CreateLease', () => {
  describe('When no lease exists', () => {
    it('creates the lease with the default before-end date: end minus minutesBeforeEnd', () => {
      given([])
        .when(createLease())
        .then([created(at(17))]);
    });

    it('keeps every field of the request in the event', () => {
      const overrides: Partial<CreateData> = {
        name: 'other',
        projectId: 'p-2',
        userId: 'u-2',
        trustId: 'trust-9',
        reservations: [reservation('res-1'), reservation('res-2', { min: 2, max: 3, hostIds: ['1', '2', '3'] })],
      };
      given([])
        .when(createLease(overrides))
        .then([created(at(17), overrides)]);
    });

    it('creates a lease without reservations', () => {
      given([])
        .when(createLease({ reservations: [] }))
        .then([created(at(17), { reservations: [] })]);
    });

    it('clamps the default before-end date to the start for a lease shorter than minutesBeforeEnd', () => {
      given([])
        .when(createLease({ endDate: at(10, 30) }))
        .then([created(START, { endDate: at(10, 30) })]);
    });

    it('uses the default before-end date when the lease lasts exactly minutesBeforeEnd', () => {
      given([])
        .when(createLease({ endDate: at(11) }))
        .then([created(START, { endDate: at(11) })]);
    });

    it('has no before-end date when minutesBeforeEnd is 0', () => {
      given([])
        .when(createLease({ minutesBeforeEnd: 0 }))
        .then([created(null, { minutesBeforeEnd: 0 })]);
    });

    it('keeps an explicit before-end date', () => {
      given([])
        .when(createLease({ beforeEndDate: at(12) }))
        .then([created(at(12), { beforeEndDate: at(12) })]);
    });

    it('keeps an explicit before-end date even when minutesBeforeEnd is 0', () => {
      given([])
        .when(createLease({ beforeEndDate: at(12), minutesBeforeEnd: 0 }))
        .then([created(at(12), { beforeEndDate: at(12), minutesBeforeEnd: 0 })]);
    });

    it('accepts an explicit before-end date one minute after the start and one before the end', () => {
      given([])
        .when(createLease({ beforeEndDate: at(10, 1) }))
        .then([created(at(10, 1), { beforeEndDate: at(10, 1) })]);
      given([])
        .when(createLease({ beforeEndDate: at(17, 59) }))
        .then([created(at(17, 59), { beforeEndDate: at(17, 59) })]);
    });

    it.each([
      { name: 'equal to the start', beforeEndDate: START },
      { name: 'equal to the end', beforeEndDate: END },
      { name: 'before the start', beforeEndDate: at(9, 30) },
      { name: 'after the end', beforeEndDate: at(19) },
    ])('refuses an explicit before-end date $name', ({ beforeEndDate }) => {
      given([]).when(createLease({ beforeEndDate })).thenThrows('BEFORE_END_OUT_OF_RANGE', 'Datetime is out of lease limits');
    });

    it('refuses a start before the current minute', () => {
      given([])
        .when(createLease({ startDate: at(8, 59), now: at(9, 0, 30) }))
        .thenThrows('START_IN_PAST', 'Start date must be later than current date');
    });

    it('accepts a start within the current minute (now is truncated to the minute)', () => {
      given([])
        .when(createLease({ startDate: at(9), now: at(9, 0, 59) }))
        .then([created(at(17), { startDate: at(9), now: at(9, 0, 59) })]);
    });

    it('accepts a start exactly now', () => {
      given([])
        .when(createLease({ startDate: NOW }))
        .then([created(at(17), { startDate: NOW })]);
    });

    it('refuses an end equal to the start', () => {
      given([])
        .when(createLease({ endDate: START }))
        .thenThrows('END_BEFORE_START', 'End date must be later than start date.');
    });

    it('refuses an end before the start', () => {
      given([])
        .when(createLease({ endDate: at(9, 30) }))
        .thenThrows('END_BEFORE_START', 'End date must be later than start date.');
    });

    it('judges the start before the end', () => {
      given([])
        .when(createLease({ startDate: at(8), endDate: at(7) }))
        .thenThrows('START_IN_PAST');
    });

    it('judges the end before an explicit before-end date', () => {
      given([])
        .when(createLease({ endDate: at(9, 30), beforeEndDate: at(20) }))
        .thenThrows('END_BEFORE_START');
    });

    it('reports date errors with kind "invalid"', () => {
      const decide = (): unknown => leaseDecider.decide(createLease({ endDate: START }), leaseDecider.initialState());
      expect(decide).toThrowError(DomainError);
      expect(decide).toThrowError(expect.objectContaining({ kind: 'invalid' }));
    });
  });

  describe('When the lease exists', () => {
    it('refuses to create it again', () => {
      given([created(at(17))])
        .when(createLease())
        .thenThrows('LEASE_EXISTS', 'Lease lease-1 already exists');
    });

    it('reports the conflict with kind "conflict"', () => {
      const state = foldEvents(leaseDecider, [created(at(17))]);
      expect(() => leaseDecider.decide(createLease(), state)).toThrowError(expect.objectContaining({ kind: 'conflict' }));
    });
  });

  describe('When the lease was deleted', () => {
    it('refuses to create it again', () => {
      given([created(at(17)), deleted()])
        .when(createLease())
        .thenThrows('LEASE_EXISTS');
    });
  });

  describe('evolve', () => {
    it('Created -> Pending with the before-end action undone, no update yet and no healing flags', () => {
      const event = created(at(17));
      expect(foldEvents(leaseDecider, [event])).toEqual({
        status: 'Pending',
        lease: {
          leaseId: LEASE_ID,
          name: 'my-lease',
          projectId: 'project-1',
          userId: 'user-1',
          trustId: null,
          startDate: START,
          endDate: END,
          beforeEndDate: at(17),
          reservations: [reservation('res-1')],
          eventIds,
          beforeEnd: 'undone',
          createdAt: NOW,
          updatedAt: null,
          changeSequence: 0,
          pendingUpdates: {},
          healing: {},
          leftovers: [],
        },
      });
    });

    it('ignores other events before creation', () => {
      expect(foldEvents(leaseDecider, [deleted()])).toEqual({ status: 'Initial' });
    });
  });
});
