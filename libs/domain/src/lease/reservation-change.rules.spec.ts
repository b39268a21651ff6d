import { describe, expect, it } from 'vitest';
import { leaseDecider } from '#plugins/lease.decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { UpdateLease } from './lease.commands.js';
import type { LeaseEvent } from './lease.events.js';
import type { Reservation } from './lease.types.js';
import {
  LEASE_ID,
  at,
  created,
  flavorInstanceReservation,
  floatingIpReservation,
  reservation,
  reservationChanged,
  startRequested,
  started,
  virtualInstanceReservation,
} from './testing/lease.fixtures.js';
import { checkResourceTypes } from './reservation-change.rules.js';

const instances = virtualInstanceReservation('res-1');
const flavored = flavorInstanceReservation('res-2');
const addresses = floatingIpReservation('res-3', {
  amount: 2,
  requiredFloatingIps: ['172.24.4.10'],
  allocations: [
    { floatingIpId: 'fip-1', address: '172.24.4.10' },
    { floatingIpId: 'fip-2', address: '172.24.4.11' },
  ],
});
const hosts = reservation('res-4');

const pending = (): LeaseEvent[] => [created({ reservations: [instances, flavored, addresses, hosts] })];
const active = (): LeaseEvent[] => [...pending(), startRequested(), started()];

/** UpdateLease recording `changed` as the new state of its reservation, at 12:00 (the lease runs then). */
const change = (changed: Reservation, now = at(12)): UpdateLease => ({
  type: 'UpdateLease',
  data: {
    leaseId: LEASE_ID,
    name: null,
    startDate: null,
    endDate: null,
    beforeEndDate: null,
    reservationIds: [changed.id],
    reservations: [changed],
    now,
  },
});

const given = DeciderSpecification.for(leaseDecider);

describe('what a change of a reservation may touch (UpdateLease)', () => {
  describe('Given a started lease', () => {
    it('an instance reservation may grow', () => {
      const grown = virtualInstanceReservation('res-1', { amount: 3, allocations: [{ hostId: '7', count: 3 }] });
      given(active())
        .when(change(grown))
        .then([reservationChanged(grown, at(12))]);
    });

    it('an instance reservation may not shrink (409)', () => {
      const shrunk = virtualInstanceReservation('res-1', { amount: 1, allocations: [{ hostId: '7', count: 1 }] });
      given(active())
        .when(change(shrunk))
        .thenThrows('CANT_UPDATE_PARAMETER', 'The amount of a started reservation can only grow (from 2)');
    });

    it('an instance reservation may not change its sizes or affinity (409), naming each field', () => {
      const resized = virtualInstanceReservation('res-1', { memoryMb: 8192, diskGb: 40, affinity: false });
      given(active())
        .when(change(resized))
        .thenThrows(
          'CANT_UPDATE_PARAMETER',
          'Only amount can be changed once the reservation has started (not memoryMb, diskGb, affinity)',
        );
    });

    it('a floating-IP reservation may not go below the addresses it holds (400)', () => {
      const fewer = floatingIpReservation('res-3', {
        ...addresses,
        amount: 1,
        allocations: [{ floatingIpId: 'fip-1', address: '172.24.4.10' }],
      });
      given(active()).when(change(fewer)).thenThrows('CANT_UPDATE_PARAMETER', 'cannot go below the 2 addresses it holds');
    });
  });

  describe('Given a pending lease', () => {
    it('an instance reservation may change anything, shrink too', () => {
      const smaller = virtualInstanceReservation('res-1', { amount: 1, vcpus: 4, allocations: [{ hostId: '8', count: 1 }] });
      given(pending())
        .when(change(smaller, at(9)))
        .then([reservationChanged(smaller, at(9))]);
    });

    it('a floating-IP reservation may clear its required addresses but not name others (400)', () => {
      const cleared = floatingIpReservation('res-3', { ...addresses, requiredFloatingIps: [] });
      given(pending())
        .when(change(cleared, at(9)))
        .then([reservationChanged(cleared, at(9))]);
      const other = floatingIpReservation('res-3', { ...addresses, requiredFloatingIps: ['172.24.4.11'] });
      given(pending())
        .when(change(other, at(9)))
        .thenThrows('CANT_UPDATE_PARAMETER', 'requiredFloatingIps can only be cleared (set to [])');
    });

    it('a floating-IP reservation stays on its network (400)', () => {
      given(pending())
        .when(change({ ...addresses, networkId: 'net-other' }, at(9)))
        .thenThrows('CANT_UPDATE_PARAMETER', 'networkId cannot be updated');
    });

    it('a flavor reservation stays of its flavor (409)', () => {
      given(pending())
        .when(change({ ...flavored, sourceFlavorId: 'large' }, at(9)))
        .thenThrows('CANT_UPDATE_PARAMETER', 'flavorId cannot be updated');
    });

    it('no reservation changes its type (409)', () => {
      const asInstances = virtualInstanceReservation('res-4');
      given(pending())
        .when(change(asInstances, at(9)))
        .thenThrows('CANT_UPDATE_PARAMETER', 'resourceType cannot be updated');
    });
  });
});

describe('a change of type', () => {
  it('a change naming another resource type is refused; one naming a reservation the lease lacks is left to the id check', () => {
    expect(() =>
      checkResourceTypes(
        [hosts],
        [
          { id: 'res-4', resourceType: 'physical:host' },
          { id: 'res-9', resourceType: 'virtual:instance' },
        ],
      ),
    ).not.toThrow();
    expect(() => checkResourceTypes([hosts], [{ id: 'res-4', resourceType: 'virtual:instance' }])).toThrow(
      expect.objectContaining({ kind: 'conflict', template: '{field:resourceType} cannot be updated' }),
    );
  });
});
