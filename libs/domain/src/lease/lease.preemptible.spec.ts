import { describe, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { CompleteLeasePhase, CompleteReservationUpdates } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import type { EffectRecord, ReservationOutcome } from './lease.types.js';
import {
  LEASE_ID,
  START,
  at,
  created,
  history,
  reservationChanged,
  reservationFactory,
  startRequested,
  started,
} from './testing/lease.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Fixtures: the host lease [10:00, 18:00) of ./testing/lease.fixtures.ts (reservation res-1 on host 7).
// A preemptible server reaped by the host adapter is one 'preemptible.reap' effect record.
// ---------------------------------------------------------------------------------------------

const reap = (serverId: string, stopped = true): EffectRecord => ({
  operation: 'preemptible.reap',
  host_id: '7',
  host: 'fake-host-1',
  server_id: serverId,
  project_id: 'other-project',
  flavor: 'preemptible.tiny',
  stopped,
});
const moved: EffectRecord = { operation: 'aggregate.add_host', aggregate: 'reservation-res-1', host: 'fake-host-1' };

const reaped = (serverId: string, when: string, stopped = true): LeaseEvent => ({
  type: 'Lease.PreemptibleServerReaped',
  data: {
    leaseId: LEASE_ID,
    reservationId: 'res-1',
    hostId: '7',
    host: 'fake-host-1',
    serverId,
    projectId: 'other-project',
    flavor: 'preemptible.tiny',
    stopped,
    at: when,
  },
});

const completeStart = (outcomes: readonly ReservationOutcome[]): CompleteLeasePhase => ({
  type: 'CompleteLeasePhase',
  data: { leaseId: LEASE_ID, phase: 'start', outcomes, now: START },
});

const given = DeciderSpecification.for(leaseDecider);

describe('CompleteLeasePhase start with preemptible servers reaped', () => {
  it('records each reaped server before the reservation outcome and the start', () => {
    const effects = [moved, reap('srv-1'), reap('srv-2', false)];
    given(history.Starting())
      .when(completeStart([{ reservationId: 'res-1', ok: true, effects }]))
      .then([
        reaped('srv-1', START),
        reaped('srv-2', START, false),
        { type: 'Reservation.EffectsApplied', data: { leaseId: LEASE_ID, reservationId: 'res-1', phase: 'start', effects, at: START } },
        started(START),
      ]);
  });

  it('records the servers reaped before a failure too: they are gone either way', () => {
    const effects = [reap('srv-1')];
    given(history.Starting())
      .when(completeStart([{ reservationId: 'res-1', ok: false, error: 'Host fake-host-2 is not in the freepool freepool', effects }]))
      .then([
        reaped('srv-1', START),
        {
          type: 'Reservation.EffectsFailed',
          data: {
            leaseId: LEASE_ID,
            reservationId: 'res-1',
            phase: 'start',
            error: 'Host fake-host-2 is not in the freepool freepool',
            effects,
            at: START,
          },
        },
        {
          type: 'Lease.StartFailed',
          data: { leaseId: LEASE_ID, at: START, reason: 'res-1: Host fake-host-2 is not in the freepool freepool' },
        },
      ]);
  });

  it('records nothing for a reap record missing a field (it stays among the effects)', () => {
    const { flavor: _flavor, ...incomplete } = reap('srv-1');
    const effects = [incomplete as EffectRecord];
    given(history.Starting())
      .when(completeStart([{ reservationId: 'res-1', ok: true, effects }]))
      .then([
        { type: 'Reservation.EffectsApplied', data: { leaseId: LEASE_ID, reservationId: 'res-1', phase: 'start', effects, at: START } },
        started(START),
      ]);
  });
});

describe('CompleteReservationUpdates with preemptible servers reaped (a healed host taken over)', () => {
  const healedTo = reservationFactory({ hostIds: ['8'] })('res-1');
  const changed = [created(), startRequested(), started(), reservationChanged(healedTo, at(12))];
  it('records each reaped server before the update outcome', () => {
    const effects = [reap('srv-3')];
    const command: CompleteReservationUpdates = {
      type: 'CompleteReservationUpdates',
      data: { leaseId: LEASE_ID, updates: [{ sequence: 1, outcome: { reservationId: 'res-1', ok: true, effects } }], now: at(12) },
    };
    given(changed)
      .when(command)
      .then([
        reaped('srv-3', at(12)),
        { type: 'Reservation.UpdateApplied', data: { leaseId: LEASE_ID, reservationId: 'res-1', sequence: 1, effects, at: at(12) } },
      ]);
  });
});
