import { describe, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { RecordReconciliation } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import type { ReservationOutcome } from './lease.types.js';
import {
  LEASE_ID,
  at,
  created,
  deleted,
  endRequested,
  ended,
  floatingIpReservation,
  started,
  startRequested,
} from './testing/lease.fixtures.js';

// ---------------------------------------------------------------------------------------------
// A reconciliation re-runs an active reservation's idempotent effects: steps a retry finds done
// carry `already: true`; any other step put the cloud back in line (drift).
// ---------------------------------------------------------------------------------------------

const given = DeciderSpecification.for(leaseDecider);

const addresses = floatingIpReservation('res-2');
const active = (): LeaseEvent[] => [created({ reservations: [addresses] }), startRequested(), started()];

const reconcile = (outcome: ReservationOutcome, now = at(12)): RecordReconciliation => ({
  type: 'RecordReconciliation',
  data: { leaseId: LEASE_ID, outcome, now },
});

const clean: ReservationOutcome = {
  reservationId: 'res-2',
  ok: true,
  effects: [{ operation: 'floatingip.create', address: '172.24.4.10', already: true }],
};

const drifted: ReservationOutcome = {
  reservationId: 'res-2',
  ok: true,
  effects: [
    { operation: 'floatingip.create', address: '172.24.4.10' },
    { operation: 'floatingip.create', address: '172.24.4.11', already: true },
  ],
};

describe('RecordReconciliation', () => {
  it('Given an active lease, When every step was already done, Then nothing is recorded', () => {
    given(active()).when(reconcile(clean)).then([]);
  });

  it('Given an active lease, When some steps changed the cloud, Then the drift repaired is recorded with those steps only', () => {
    given(active())
      .when(reconcile(drifted))
      .then([
        {
          type: 'Reservation.DriftRepaired',
          data: {
            leaseId: LEASE_ID,
            reservationId: 'res-2',
            effects: [{ operation: 'floatingip.create', address: '172.24.4.10' }],
            at: at(12),
          },
        },
      ]);
  });

  it('Given an active lease, When the reconciliation failed, Then the failure is recorded with the cloud error', () => {
    given(active())
      .when(reconcile({ reservationId: 'res-2', ok: false, error: 'Neutron said no', effects: [] }))
      .then([
        {
          type: 'Reservation.ReconciliationFailed',
          data: { leaseId: LEASE_ID, reservationId: 'res-2', error: 'Neutron said no', effects: [], at: at(12) },
        },
      ]);
  });

  it('Given an active lease, When an unknown reservation is reconciled, Then RESERVATION_NOT_FOUND', () => {
    given(active())
      .when(reconcile({ ...drifted, reservationId: 'res-9' }))
      .thenThrows('RESERVATION_NOT_FOUND');
  });

  it('Given a pending lease, When reconciled, Then LEASE_NOT_ACTIVE', () => {
    given([created({ reservations: [addresses] })])
      .when(reconcile(drifted))
      .thenThrows('LEASE_NOT_ACTIVE');
  });

  it('Given an ending lease, When reconciled, Then LEASE_NOT_ACTIVE', () => {
    given([...active(), endRequested()])
      .when(reconcile(drifted))
      .thenThrows('LEASE_NOT_ACTIVE');
  });

  it('Given an ended lease, When reconciled, Then LEASE_NOT_ACTIVE', () => {
    given([...active(), endRequested(), ended()])
      .when(reconcile(drifted))
      .thenThrows('LEASE_NOT_ACTIVE');
  });

  it('Given a deleted lease, When reconciled, Then LEASE_NOT_FOUND', () => {
    given([created({ reservations: [addresses] }), deleted()])
      .when(reconcile(drifted))
      .thenThrows('LEASE_NOT_FOUND');
  });
});
