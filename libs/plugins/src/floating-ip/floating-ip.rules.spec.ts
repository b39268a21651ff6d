import { describe, expect, it } from 'vitest';
import { floatingIpReservation } from '#domain/lease/testing/lease.fixtures.js';
import { checkFloatingIpChange, checkStartedFloatingIpAmount } from './floating-ip.rules.js';

const addresses = floatingIpReservation('res-3', {
  amount: 2,
  requiredFloatingIps: ['172.24.4.10'],
  allocations: [
    { floatingIpId: 'fip-1', address: '172.24.4.10' },
    { floatingIpId: 'fip-2', address: '172.24.4.11' },
  ],
});

describe('the floating-IP rules as admission asks them, on the requested change', () => {
  it('required addresses sent at all (even the same ones) are refused unless empty', () => {
    expect(() => checkFloatingIpChange(addresses, { networkId: null, requiredFloatingIps: ['172.24.4.10'] })).toThrow(
      expect.objectContaining({ kind: 'invalid', code: 'CANT_UPDATE_PARAMETER' }),
    );
    expect(() => checkFloatingIpChange(addresses, { networkId: 'net-ext', requiredFloatingIps: [] })).not.toThrow();
  });

  it('a started floating-IP reservation keeps at least its addresses', () => {
    expect(() => checkStartedFloatingIpAmount(addresses, 2)).not.toThrow();
    expect(() => checkStartedFloatingIpAmount(addresses, 1)).toThrow(expect.objectContaining({ kind: 'invalid' }));
  });
});
