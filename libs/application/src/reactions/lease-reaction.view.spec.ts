import { describe, expect, it } from 'vitest';
import type { HostReplacement, LeaseEvent, Reservation } from '#domain/index.js';
import {
  LEASE_ID,
  at,
  created,
  deleted,
  endRequested,
  floatingIpReservation,
  history,
  reservation,
  reservationChanged,
  startRequested,
  started,
  updateApplied,
  updateFailed,
} from '#domain/lease/testing/lease.fixtures.js';
import { type LeaseReactionView, leaseReactionView } from './lease-reaction.view.js';

const viewOf = (events: readonly LeaseEvent[]): LeaseReactionView =>
  events.reduce(
    (view, event, revision) =>
      leaseReactionView.evolve(view, {
        id: `e-${revision}`,
        revision,
        ...event,
        metadata: { correlationId: 'c', causationId: 'c', actor: null },
      }),
    leaseReactionView.initialState(),
  );

/** The fixture lease with one reservation on host 7, started. */
const active = (held: Reservation = reservation('res-1')): LeaseEvent[] => [created({ reservations: [held] }), startRequested(), started()];

const healed = (to: Reservation, replacement: HostReplacement, when: string): LeaseEvent => ({
  type: 'Reservation.Healed',
  data: {
    leaseId: LEASE_ID,
    reservation: to,
    replacements: [replacement],
    unhealedHostIds: [],
    missingResources: false,
    resourcesChanged: true,
    at: when,
  },
});

describe('lease reaction view: what an owed change still gives up in the cloud', () => {
  it("the host a healing took from an active reservation, until the update's outcome is recorded", () => {
    const owed = [...active(), healed(reservation('res-1', { hostIds: ['8'] }), { hostId: '7', by: ['8'] }, at(12))];
    expect(viewOf(owed).releasing).toEqual({ 'res-1': { hostIds: ['7'], floatingIpIds: [] } });
    expect(viewOf([...owed, updateApplied('res-1', 1, at(12, 1))]).releasing).toEqual({});
  });

  it('a failed update gives it up too: its outcome is recorded, nothing more is owed', () => {
    const owed = [...active(), reservationChanged(reservation('res-1', { hostIds: ['8'] }), at(12))];
    expect(viewOf([...owed, updateFailed('res-1', 1, at(12, 1))]).releasing).toEqual({});
  });

  it("of several owed changes, what any of them took, but not what the latest holds again, until the latest one's outcome", () => {
    const owed = [
      ...active(),
      reservationChanged(reservation('res-1', { hostIds: ['8'] }), at(12)),
      reservationChanged(reservation('res-1', { hostIds: ['7', '9'] }), at(12, 1)),
    ];
    expect(viewOf(owed).releasing).toEqual({ 'res-1': { hostIds: ['8'], floatingIpIds: [] } });
    expect(viewOf([...owed, updateApplied('res-1', 1, at(12, 2))]).releasing).toEqual({ 'res-1': { hostIds: ['8'], floatingIpIds: [] } });
    expect(viewOf([...owed, updateApplied('res-1', 2, at(12, 2))]).releasing).toEqual({});
  });

  it('floating IPs a change took, and nothing when it only added some (all a started floating-IP reservation may do)', () => {
    const two = floatingIpReservation('res-1', {
      amount: 2,
      allocations: [
        { floatingIpId: 'fip-1', address: '172.24.4.10' },
        { floatingIpId: 'fip-2', address: '172.24.4.11' },
      ],
    });
    expect(viewOf([...active(floatingIpReservation('res-1')), reservationChanged(two, at(12))]).releasing).toEqual({});
    const moved = floatingIpReservation('res-1', { allocations: [{ floatingIpId: 'fip-3', address: '172.24.4.12' }] });
    expect(viewOf([...active(floatingIpReservation('res-1')), reservationChanged(moved, at(12))]).releasing).toEqual({
      'res-1': { hostIds: [], floatingIpIds: ['fip-1'] },
    });
  });

  it('nothing for a change of a lease that has not started: the cloud holds nothing of it yet', () => {
    expect(
      viewOf([created({ reservations: [reservation('res-1')] }), reservationChanged(reservation('res-1', { hostIds: ['8'] }), at(9))])
        .releasing,
    ).toEqual({});
    expect(viewOf(history.Pending()).releasing).toEqual({});
  });

  it('still, for a lease deleted with a change owed, while its end (which gives up everything) is owed', () => {
    const owed = [
      ...active(),
      reservationChanged(reservation('res-1', { hostIds: ['8'] }), at(12)),
      endRequested('deleted', at(13)),
      deleted(at(13)),
    ];
    expect(viewOf(owed).state.status).toBe('Deleted');
    expect(viewOf(owed).releasing).toEqual({ 'res-1': { hostIds: ['7'], floatingIpIds: [] } });
  });
});
