import { describe, it } from 'vitest';
import { conflict } from '../shared/errors.js';
import { DeciderSpecification } from '../shared/specification.js';
import { leaseDeciderWith } from './lease.decide.js';
import type { UpdateLease } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import type { ReservationRules } from './reservation-rules.js';
import {
  BEFORE_END,
  LEASE_ID,
  at,
  beforeEndRequested,
  created,
  reservation,
  reservationChanged,
  startRequested,
  started,
} from './testing/lease.fixtures.js';

// The decider knows no reservation type: what may change, what heals and who is reminded is what the rules it is
// built with say. Here a host reservation's rules say the opposite of physical:host's own.

const contrary: ReservationRules = {
  checkChange: () => {
    throw conflict('NOT_THIS_TYPE', 'these rules refuse every change');
  },
  healedHostIds: () => null,
  remindsBeforeEnd: () => true,
};

const given = DeciderSpecification.for(leaseDeciderWith(() => contrary));

const hosts = reservation('res-1', { hostIds: ['7'] });
const active = (): LeaseEvent[] => [created({ reservations: [hosts] }), startRequested(), started()];
const widened: UpdateLease = {
  type: 'UpdateLease',
  data: {
    leaseId: LEASE_ID,
    name: null,
    startDate: null,
    endDate: null,
    beforeEndDate: null,
    reservationIds: ['res-1'],
    reservations: [{ ...hosts, max: 3 }],
    now: at(12),
  },
};

describe('the lease decider asks the rules it is given', () => {
  it('a change the rules refuse is refused', () => {
    given(active()).when(widened).thenThrows('NOT_THIS_TYPE');
  });

  it('a reservation whose rules name no healed hosts is not healed', () => {
    given(active())
      .when({
        type: 'HealReservation',
        data: { leaseId: LEASE_ID, reservation: hosts, replacements: [], unhealedHostIds: ['7'], now: at(12) },
      })
      .thenThrows('RESERVATION_NOT_HEALABLE');
  });

  it('a reservation whose rules ask for the reminder gets it at the before-end date', () => {
    given(active())
      .when({ type: 'BeginLeasePhase', data: { leaseId: LEASE_ID, phase: 'before_end', now: BEFORE_END } })
      .then([
        beforeEndRequested(BEFORE_END),
        {
          type: 'Lease.EndingSoonNotified',
          data: { leaseId: LEASE_ID, projectId: 'project-1', endDate: at(18), reservationIds: ['res-1'], at: BEFORE_END },
        },
      ]);
  });

  it('the same commands under the rules of physical:host: the change is recorded', () => {
    const rules: ReservationRules = { checkChange: () => undefined, healedHostIds: () => ['7'], remindsBeforeEnd: () => false };
    DeciderSpecification.for(leaseDeciderWith(() => rules))(active())
      .when(widened)
      .then([reservationChanged({ ...hosts, max: 3 }, at(12))]);
  });
});
