import { describe, expect, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { HealReservation, HostReplacement } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import type { Reservation } from './lease.types.js';
import {
  LEASE_ID,
  at,
  created,
  floatingIpReservation,
  history,
  reservation,
  startRequested,
  started,
  virtualInstanceReservation,
} from './testing/lease.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Healing: the write side found replacements for a reservation's hosts that went down (booked on
// their calendars in the same append) and asks the lease to record them, with upstream's flags.
// ---------------------------------------------------------------------------------------------

const given = DeciderSpecification.for(leaseDecider);

const twoHosts = reservation('res-1', { min: 2, max: 2, hostIds: ['7', '8'] });
const pending = (): LeaseEvent[] => [created({ reservations: [twoHosts] })];
const active = (): LeaseEvent[] => [...pending(), startRequested(), started()];

const heal = (
  healed: Reservation,
  replacements: readonly HostReplacement[],
  unhealedHostIds: readonly string[] = [],
  now = at(12),
): HealReservation => ({
  type: 'HealReservation',
  data: { leaseId: LEASE_ID, reservation: healed, replacements, unhealedHostIds, now },
});

const healedEvent = (
  healed: Reservation,
  replacements: readonly HostReplacement[],
  unhealedHostIds: readonly string[],
  missingResources: boolean,
  resourcesChanged: boolean,
  now = at(12),
): LeaseEvent => ({
  type: 'Reservation.Healed',
  data: { leaseId: LEASE_ID, reservation: healed, replacements, unhealedHostIds, missingResources, resourcesChanged, at: now },
});

const on9 = { ...twoHosts, hostIds: ['9', '8'] };
const fold = (events: readonly LeaseEvent[]) => events.reduce(leaseDecider.evolve, leaseDecider.initialState());

describe('HealReservation', () => {
  it('Given a pending lease on hosts 7 and 8, When 7 is replaced by 9, Then the healing is recorded without flags (upstream flags resources_changed only once active)', () => {
    given(pending())
      .when(heal(on9, [{ hostId: '7', by: ['9'] }]))
      .then([healedEvent(on9, [{ hostId: '7', by: ['9'] }], [], false, false)]);
  });

  it('Given an active lease, When 7 is replaced by 9, Then resources_changed is set and the cloud owes the change', () => {
    const events = [healedEvent(on9, [{ hostId: '7', by: ['9'] }], [], false, true)];
    given(active())
      .when(heal(on9, [{ hostId: '7', by: ['9'] }]))
      .then(events);
    const state = fold([...active(), ...events]);
    expect(state.status === 'Active' && state.lease).toMatchObject({
      reservations: [on9],
      changeSequence: 1,
      pendingUpdates: { 'res-1': 1 },
      healing: { 'res-1': { missingResources: false, resourcesChanged: true } },
    });
  });

  it('Given a pending lease, When no replacement was free for 7, Then missing_resources is set and 7 is kept', () => {
    given(pending())
      .when(heal(twoHosts, [], ['7']))
      .then([healedEvent(twoHosts, [], ['7'], true, false)]);
    const state = fold([...pending(), healedEvent(twoHosts, [], ['7'], true, false)]);
    expect(state.status === 'Pending' && state.lease.pendingUpdates).toEqual({});
  });

  it('Given an active lease already flagged for 7, When a later pass still finds no replacement, Then nothing new is recorded', () => {
    given([...active(), healedEvent(twoHosts, [], ['7'], true, false)])
      .when(heal(twoHosts, [], ['7'], at(13)))
      .thenNothing();
  });

  it('Given an unhealed reservation, When a later pass replaces 7, Then the flags stay set (as upstream) and the change is owed', () => {
    given([...active(), healedEvent(twoHosts, [], ['7'], true, false)])
      .when(heal(on9, [{ hostId: '7', by: ['9'] }], [], at(13)))
      .then([healedEvent(on9, [{ hostId: '7', by: ['9'] }], [], true, true, at(13))]);
  });

  it('Given an instance reservation with affinity, When its host is replaced by another for all slots, Then the new allocations are recorded', () => {
    const slots = virtualInstanceReservation('res-2', { affinity: true });
    const moved = { ...slots, allocations: [{ hostId: '9', count: 2 }] };
    given([created({ reservations: [slots] })])
      .when(heal(moved, [{ hostId: '7', by: ['9'] }]))
      .then([healedEvent(moved, [{ hostId: '7', by: ['9'] }], [], false, false)]);
  });

  it('Given a lease, When a named failed host is not one the reservation holds, Then it is refused (a stale decision)', () => {
    given(pending())
      .when(heal({ ...twoHosts, hostIds: ['7', '9'] }, [{ hostId: '3', by: ['9'] }]))
      .thenThrows('HOST_NOT_HELD');
  });

  it('Given a lease, When the healed reservation still holds the replaced host or lacks its replacement, Then it is refused', () => {
    given(pending())
      .when(heal(twoHosts, [{ hostId: '7', by: ['9'] }]))
      .thenThrows('INVALID_REPLACEMENT');
    given(pending())
      .when(heal({ ...twoHosts, hostIds: ['8'] }, [{ hostId: '7', by: ['9'] }]))
      .thenThrows('INVALID_REPLACEMENT');
  });

  it('Given a lease starting, ending or ended, When healing, Then it is refused (the healer tries again later, or never)', () => {
    for (const status of ['Starting', 'Ending', 'Ended', 'StartFailed'] as const) {
      given(history[status]())
        .when(heal({ ...reservation('res-1'), hostIds: ['9'] }, [{ hostId: '7', by: ['9'] }]))
        .thenThrows('LEASE_NOT_HEALABLE');
    }
    given(history.DeletedPending())
      .when(heal({ ...reservation('res-1'), hostIds: ['9'] }, [{ hostId: '7', by: ['9'] }]))
      .thenThrows('LEASE_NOT_FOUND');
  });

  it('Given a floating IP reservation, When healing it, Then it is refused (no host to heal)', () => {
    const addresses = floatingIpReservation('res-3');
    given([created({ reservations: [addresses] })])
      .when(heal(addresses, [], ['7']))
      .thenThrows('RESERVATION_NOT_HEALABLE');
  });

  it('Given a lease, When healing an unknown reservation, Then it is not found', () => {
    given(pending())
      .when(heal(reservation('res-x'), [], ['7']))
      .thenThrows('RESERVATION_NOT_FOUND');
  });
});
