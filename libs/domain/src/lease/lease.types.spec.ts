import { describe, expect, it } from 'vitest';
import { RESOURCE_TYPES, type Reservation, isInstanceReservation, reservedFloatingIpIds, reservedHostIds } from './lease.types.js';
import { flavorInstanceReservation, floatingIpReservation, reservation, virtualInstanceReservation } from './testing/lease.fixtures.js';

const spread = {
  allocations: [
    { hostId: '7', count: 1 },
    { hostId: '9', count: 2 },
  ],
  amount: 3,
};

describe('reservation types', () => {
  it.each([
    { name: 'physical:host', r: reservation('res-1', { hostIds: ['7', '8'] }), hosts: ['7', '8'], fips: [], instance: false },
    { name: 'virtual:instance', r: virtualInstanceReservation('res-1', spread), hosts: ['7', '9'], fips: [], instance: true },
    { name: 'flavor:instance', r: flavorInstanceReservation('res-1', spread), hosts: ['7', '9'], fips: [], instance: true },
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
      instance: false,
    },
  ])(
    '$name: hosts $hosts, floating IPs $fips, instances: $instance',
    ({ r, hosts, fips, instance }: { r: Reservation; hosts: string[]; fips: string[]; instance: boolean }) => {
      expect(reservedHostIds(r)).toEqual(hosts);
      expect(reservedFloatingIpIds(r)).toEqual(fips);
      expect(isInstanceReservation(r)).toBe(instance);
    },
  );

  it('a host reservation not yet allocated holds no host', () => {
    expect(reservedHostIds(reservation('res-1', { hostIds: [] }))).toEqual([]);
  });

  it('lists every resource type once', () => {
    expect([...RESOURCE_TYPES].sort()).toEqual(['flavor:instance', 'physical:host', 'virtual:floatingip', 'virtual:instance']);
  });
});
