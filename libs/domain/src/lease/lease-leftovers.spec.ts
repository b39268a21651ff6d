import { describe, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { RecordLeftovers } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import type { Leftover } from './lease.types.js';
import { LEASE_ID, at, history } from './testing/lease.fixtures.js';

const NOW = at(19);
const aggregate: Leftover = { reservationId: 'res-1', kind: 'aggregate', id: 'res-1' };
const server: Leftover = { reservationId: 'res-1', kind: 'server', id: 'server-9' };

const check = (leftovers: Leftover[], now = NOW): RecordLeftovers => ({
  type: 'RecordLeftovers',
  data: { leaseId: LEASE_ID, leftovers, now },
});
const found = (leftovers: Leftover[], when = NOW): LeaseEvent => ({
  type: 'Lease.LeftoversFound',
  data: { leaseId: LEASE_ID, leftovers, at: when },
});
const cleared = (leftovers: Leftover[], when = NOW): LeaseEvent => ({
  type: 'Lease.LeftoversCleared',
  data: { leaseId: LEASE_ID, leftovers, at: when },
});

const given = DeciderSpecification.for(leaseDecider);

describe('RecordLeftovers: what an ended lease left in the cloud', () => {
  describe('Given an ended lease with nothing found so far', () => {
    it('When the check finds nothing, then nothing is recorded', () => {
      given(history.Ended()).when(check([])).then([]);
    });

    it('When it finds a server and the aggregate, then one finding names both, sorted and without repeats', () => {
      given(history.Ended())
        .when(check([server, aggregate, server]))
        .then([found([aggregate, server])]);
    });
  });

  describe('Given a finding already recorded', () => {
    const withFinding = (): LeaseEvent[] => [...history.Ended(), found([aggregate, server], at(18, 30))];

    it('When the next pass finds the same, then nothing is recorded: one event per finding, not per pass', () => {
      given(withFinding())
        .when(check([server, aggregate]))
        .then([]);
    });

    it('When only the server is left, then a new finding names it', () => {
      given(withFinding())
        .when(check([server]))
        .then([found([server])]);
    });

    it('When nothing is left, then the leftovers are recorded as cleared, naming what went', () => {
      given(withFinding())
        .when(check([]))
        .then([cleared([aggregate, server])]);
    });
  });

  it('Given a lease deleted while active and ended since, when the check finds the aggregate, then it is recorded', () => {
    given(history.DeletedWhileActiveDone())
      .when(check([aggregate]))
      .then([found([aggregate])]);
  });

  it.each(['Active', 'Ending', 'EndFailed', 'DeletedWhileActive'] as const)(
    'Given a lease %s, when a check is recorded, then it is refused: its end has not run',
    (status) => {
      given(history[status]())
        .when(check([aggregate]))
        .thenThrows('LEASE_NOT_ENDED');
    },
  );
});
