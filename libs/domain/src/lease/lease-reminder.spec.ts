import { describe, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { BeginLeasePhase, CreateLease, UpdateLease } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import type { Reservation } from './lease.types.js';
import {
  BEFORE_END,
  END,
  LEASE_ID,
  LEASE_IDENTITY,
  at,
  beforeEndRequested,
  created,
  eventIds,
  reservation,
  startRequested,
  started,
  virtualInstanceReservation,
} from './testing/lease.fixtures.js';

// A lease [10:00, 18:00) on 2030-01-01 with its before-end event at 17:00 (./testing/lease.fixtures.ts)

const notifying = [reservation('res-1', { beforeEnd: 'notify' }), reservation('res-2')];
const activeWith = (reservations: readonly Reservation[] = notifying, beforeEndDate: string | null = BEFORE_END): LeaseEvent[] => [
  created({ reservations, beforeEndDate }),
  startRequested(),
  started(),
];

const begin = (now: string): BeginLeasePhase => ({ type: 'BeginLeasePhase', data: { leaseId: LEASE_ID, phase: 'before_end', now } });
const createLease = (overrides: Partial<CreateLease['data']>): CreateLease => ({
  type: 'CreateLease',
  data: { ...LEASE_IDENTITY, beforeEndDate: null, reservations: notifying, eventIds, minutesBeforeEnd: 60, now: at(9), ...overrides },
});
const updateLease = (changes: Partial<UpdateLease['data']>): UpdateLease => ({
  type: 'UpdateLease',
  data: {
    leaseId: LEASE_ID,
    name: null,
    startDate: null,
    endDate: null,
    beforeEndDate: null,
    reservationIds: [],
    reservations: [],
    now: at(9),
    ...changes,
  },
});
const reminded = (reservationIds: string[], when: string): LeaseEvent => ({
  type: 'Lease.EndingSoonNotified',
  data: { leaseId: LEASE_ID, projectId: LEASE_IDENTITY.projectId, endDate: END, reservationIds, at: when },
});

const given = DeciderSpecification.for(leaseDecider);

describe('before_end notify: the tenant is reminded that the lease ends', () => {
  describe('Given an active lease with a reservation whose before_end is notify', () => {
    it('When the before-end phase begins, then the reminder is recorded with it, naming that reservation and the end', () => {
      given(activeWith())
        .when(begin(BEFORE_END))
        .then([beforeEndRequested(BEFORE_END), reminded(['res-1'], BEFORE_END)]);
    });

    it('When the reminder already went out with the phase, then beginning again is refused: one reminder per before-end date', () => {
      given([...activeWith(), beforeEndRequested(), reminded(['res-1'], BEFORE_END)])
        .when(begin(at(17, 30)))
        .thenThrows('LEASE_PHASE_NOT_DUE');
    });
  });

  describe('Given an active lease without a notify reservation', () => {
    it.each([
      ['default and snapshot', [reservation('res-1'), reservation('res-2', { beforeEnd: 'snapshot' })]],
      ['an instance reservation only', [virtualInstanceReservation('res-1')]],
    ])('When the before-end phase begins (%s), then no reminder is recorded', (_case, reservations) => {
      given(activeWith(reservations))
        .when(begin(BEFORE_END))
        .then([beforeEndRequested(BEFORE_END)]);
    });
  });

  describe('Given a cloud that sets no default before-end date (minutes_before_end_lease 0)', () => {
    it('When a lease asks for notify without a before_end_date, then it is refused: the reminder would never go out', () => {
      given([])
        .when(createLease({ minutesBeforeEnd: 0 }))
        .thenThrows('BEFORE_END_NOTIFY_WITHOUT_DATE', 'before_end notify needs a before_end_date');
    });

    it('When it names a before_end_date, then the lease is created with it', () => {
      given([])
        .when(createLease({ minutesBeforeEnd: 0, beforeEndDate: at(16) }))
        .then([created({ reservations: notifying, beforeEndDate: at(16), createdAt: at(9) })]);
    });

    it('When an update turns a reservation to notify on a lease without a before-end date, then it is refused', () => {
      const plain = [reservation('res-1')];
      given([created({ reservations: plain, beforeEndDate: null })])
        .when(updateLease({ reservationIds: ['res-1'], reservations: [reservation('res-1', { beforeEnd: 'notify' })] }))
        .thenThrows('BEFORE_END_NOTIFY_WITHOUT_DATE');
    });
  });
});
