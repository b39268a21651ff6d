import { describe, expect, it } from 'vitest';
import type { Reservation, SlotDemand } from '#domain/index.js';
import {
  flavorInstanceReservation,
  floatingIpReservation,
  reservation,
  virtualInstanceReservation,
} from '#domain/lease/testing/lease.fixtures.js';
import { reservedFloatingIpIds, reservedHostIds, reservedResources } from './reservation-holdings.js';
import { RESERVATION_TYPES } from './reservation-types.js';

const spread = {
  allocations: [
    { hostId: '7', count: 1 },
    { hostId: '9', count: 2 },
  ],
  amount: 3,
};

/** The slots a host booking of the instance fixtures' size (2 vCPUs, 4 GB, 20 GB) holds. */
const slots = (count: number): SlotDemand => ({ count, vcpus: 2, memoryMb: 4096, diskGb: 20 });

describe('what a reservation of each type books', () => {
  it.each([
    { name: 'physical:host', r: reservation('res-1', { hostIds: ['7', '8'] }), hosts: ['7', '8'], fips: [], slots: [null, null] },
    { name: 'virtual:instance', r: virtualInstanceReservation('res-1', spread), hosts: ['7', '9'], fips: [], slots: [slots(1), slots(2)] },
    { name: 'flavor:instance', r: flavorInstanceReservation('res-1', spread), hosts: ['7', '9'], fips: [], slots: [slots(1), slots(2)] },
    {
      name: 'virtual:floatingip',
      r: floatingIpReservation('res-1', {
        amount: 2,
        allocations: [
          { floatingIpId: 'fip-1', address: '172.24.4.10' },
          { floatingIpId: 'fip-2', address: '172.24.4.11' },
        ],
      }),
      hosts: [],
      fips: ['fip-1', 'fip-2'],
      slots: [],
    },
  ])(
    '$name: hosts $hosts, floating IPs $fips, slots $slots',
    ({ r, hosts, fips, slots }: { r: Reservation; hosts: string[]; fips: string[]; slots: (SlotDemand | null)[] }) => {
      expect(reservedHostIds(r)).toEqual(hosts);
      expect(reservedFloatingIpIds(r)).toEqual(fips);
      expect(reservedResources(r).flatMap((resource) => (resource.kind === 'host' ? [resource.slots] : []))).toEqual(slots);
    },
  );

  it('a host reservation not yet allocated holds no host', () => {
    expect(reservedHostIds(reservation('res-1', { hostIds: [] }))).toEqual([]);
  });

  it('the registry lists every resource type once', () => {
    expect(RESERVATION_TYPES.map((module) => module.resourceType).sort()).toEqual([
      'flavor:instance',
      'network',
      'physical:host',
      'virtual:floatingip',
      'virtual:instance',
    ]);
  });
});
