import { describe, expect, it } from 'vitest';
import { isDomainError } from '#domain/shared/errors.js';
import { at } from '../testing/host-snapshots.js';
import {
  type FloatingIpAllocationFailure,
  type FloatingIpAllocationRequest,
  allocateFloatingIps,
  notEnoughFloatingIpsError,
} from './floating-ip-allocation.policy.js';
import type { FloatingIpSnapshot } from './floating-ip-snapshot.js';

/** The lease under request is [100, 200). */
const ip = (id: string, address: string, bookings: [string, number, number][] = [], networkId = 'net-1'): FloatingIpSnapshot => ({
  id,
  networkId,
  address,
  bookings: bookings.map(([reservationId, start, end]) => ({ reservationId, start: at(start), end: at(end) })),
  maintenance: [],
});

const request = (overrides: Partial<FloatingIpAllocationRequest> = {}): FloatingIpAllocationRequest => ({
  networkId: 'net-1',
  amount: 1,
  requiredAddresses: [],
  window: { start: at(100), end: at(200) },
  cleaningTimeMs: 0,
  ...overrides,
});

const chosen = (...pairs: [string, string][]) => ({
  ok: true,
  allocations: pairs.map(([floatingIpId, address]) => ({ floatingIpId, address })),
});

describe('allocateFloatingIps', () => {
  it('takes addresses of the requested network only, never-booked ones first, then by address', () => {
    const pool = [ip('a', '10.0.0.3', [['old', 0, 50]]), ip('b', '10.0.0.2'), ip('c', '10.0.0.1', [], 'net-2'), ip('d', '10.0.0.4')];
    expect(allocateFloatingIps(request({ amount: 2 }), pool)).toEqual(chosen(['b', '10.0.0.2'], ['d', '10.0.0.4']));
    expect(allocateFloatingIps(request({ amount: 3 }), pool)).toEqual(chosen(['b', '10.0.0.2'], ['a', '10.0.0.3'], ['d', '10.0.0.4']));
  });

  it.each([
    { name: 'booked inside the window', bookings: [['x', 150, 160]] as [string, number, number][], cleaning: 0, free: false },
    { name: 'back to back before', bookings: [['x', 50, 100]] as [string, number, number][], cleaning: 0, free: true },
    { name: 'back to back after', bookings: [['x', 200, 250]] as [string, number, number][], cleaning: 0, free: true },
    { name: 'back to back with cleaning time', bookings: [['x', 200, 250]] as [string, number, number][], cleaning: 30, free: false },
    { name: 'gap of exactly the cleaning time', bookings: [['x', 230, 250]] as [string, number, number][], cleaning: 30, free: true },
  ])('$name -> free: $free', ({ bookings, cleaning, free }) => {
    const result = allocateFloatingIps(request({ cleaningTimeMs: at(cleaning) }), [ip('a', '10.0.0.1', bookings)]);
    expect(result.ok).toBe(free);
  });

  it('required addresses are always part of the result', () => {
    const pool = [ip('a', '10.0.0.1'), ip('b', '10.0.0.2'), ip('c', '10.0.0.3')];
    expect(allocateFloatingIps(request({ amount: 2, requiredAddresses: ['10.0.0.3'] }), pool)).toEqual(
      chosen(['a', '10.0.0.1'], ['c', '10.0.0.3']),
    );
  });

  it('a required address that is busy fails, naming it', () => {
    const pool = [ip('a', '10.0.0.1'), ip('b', '10.0.0.2', [['x', 150, 160]])];
    const result = allocateFloatingIps(request({ requiredAddresses: ['10.0.0.2'] }), pool);
    expect(result).toEqual({ ok: false, requested: 1, registered: 2, free: 1, busyRequired: ['10.0.0.2'], inMaintenance: [] });
  });

  it('a required address not registered on the network is the caller error (400)', () => {
    expect(() => allocateFloatingIps(request({ requiredAddresses: ['10.0.0.9'] }), [ip('a', '10.0.0.1')])).toThrow(
      'Floating IP 10.0.0.9 is not a reservable floating IP of network net-1',
    );
    expect(() => allocateFloatingIps(request({ requiredAddresses: ['10.0.0.1'] }), [ip('a', '10.0.0.1', [], 'net-2')])).toThrow(
      /not a reservable/,
    );
  });

  it('not enough free addresses', () => {
    expect(allocateFloatingIps(request({ amount: 3 }), [ip('a', '10.0.0.1'), ip('b', '10.0.0.2', [['x', 0, 500]])])).toEqual({
      ok: false,
      requested: 3,
      registered: 2,
      free: 1,
      busyRequired: [],
      inMaintenance: [],
    });
  });

  it('on update the reservation own bookings do not count and its addresses are preferred', () => {
    const pool = [ip('a', '10.0.0.1'), ip('b', '10.0.0.2', [['me', 100, 200]])];
    const update = { reservationId: 'me', current: ['10.0.0.2'] };
    expect(allocateFloatingIps(request({ ...update }), pool)).toEqual(chosen(['b', '10.0.0.2']));
    expect(allocateFloatingIps(request({ ...update, amount: 2 }), pool)).toEqual(chosen(['a', '10.0.0.1'], ['b', '10.0.0.2']));
  });

  it('a started reservation keeps every address it holds, or fails', () => {
    const pool = [
      ip('a', '10.0.0.1'),
      ip('b', '10.0.0.2', [
        ['me', 100, 200],
        ['x', 210, 300],
      ]),
    ];
    const update = { reservationId: 'me', current: ['10.0.0.2'], keepAll: true };
    expect(allocateFloatingIps(request({ ...update, amount: 2 }), pool)).toEqual(chosen(['a', '10.0.0.1'], ['b', '10.0.0.2']));
    const longer = request({ ...update, amount: 2, window: { start: at(100), end: at(250) } });
    expect(allocateFloatingIps(longer, pool)).toMatchObject({ ok: false, busyRequired: ['10.0.0.2'] });
  });
});

describe('allocateFloatingIps and maintenance windows', () => {
  const inMaintenance = (snapshot: FloatingIpSnapshot, start: number, end: number): FloatingIpSnapshot => ({
    ...snapshot,
    maintenance: [{ start: at(start), end: at(end) }],
  });

  it('passes over an address with a window reaching into the lease, and takes it outside the window', () => {
    const pool = [inMaintenance(ip('a', '10.0.0.1'), 150, 300), ip('b', '10.0.0.2', [['old', 0, 50]])];
    expect(allocateFloatingIps(request(), pool)).toEqual(chosen(['b', '10.0.0.2']));
    expect(allocateFloatingIps(request({ amount: 2 }), pool)).toMatchObject({ ok: false, free: 1, inMaintenance: [] });
    expect(allocateFloatingIps(request({ window: { start: at(300), end: at(400) } }), pool)).toEqual(chosen(['a', '10.0.0.1']));
    expect(allocateFloatingIps(request({ cleaningTimeMs: at(60) - at(0) }), [inMaintenance(ip('a', '10.0.0.1'), 250, 300)])).toMatchObject({
      ok: false,
    });
  });

  it('refuses a required address in maintenance, naming it as such', () => {
    const pool = [inMaintenance(ip('a', '10.0.0.1'), 150, 300), ip('b', '10.0.0.2')];
    const result = allocateFloatingIps(request({ requiredAddresses: ['10.0.0.1'] }), pool);
    expect(result).toEqual({ ok: false, requested: 1, registered: 2, free: 1, busyRequired: ['10.0.0.1'], inMaintenance: ['10.0.0.1'] });
    const error = notEnoughFloatingIpsError(result as FloatingIpAllocationFailure);
    expect(isDomainError(error) && [error.kind, error.code]).toEqual(['conflict', 'FLOATING_IP_IN_MAINTENANCE']);
    expect(error.message).toBe('Not enough floating IPs available: 10.0.0.1 in maintenance during part of this period');
  });

  it('lets a reservation that held the address before the window keep it, not grow into it', () => {
    const pool = [inMaintenance(ip('a', '10.0.0.1', [['me', 100, 200]]), 150, 300)];
    const update = { reservationId: 'me', current: ['10.0.0.1'], keepAll: true };
    expect(allocateFloatingIps(request({ ...update, window: { start: at(100), end: at(180) } }), pool)).toEqual(chosen(['a', '10.0.0.1']));
    const longer = request({ ...update, window: { start: at(100), end: at(250) } });
    expect(allocateFloatingIps(longer, pool)).toMatchObject({ ok: false, inMaintenance: ['10.0.0.1'] });
  });
});

describe('notEnoughFloatingIpsError', () => {
  it('is a conflict that says why', () => {
    const shortage = notEnoughFloatingIpsError({ ok: false, requested: 3, registered: 2, free: 1, busyRequired: [], inMaintenance: [] });
    expect(isDomainError(shortage) && shortage.kind).toBe('conflict');
    expect(shortage.message).toBe(
      'Not enough floating IPs available: 2 registered on the network, 1 free for the whole lease, 3 requested',
    );
    const busy = notEnoughFloatingIpsError({
      ok: false,
      requested: 1,
      registered: 2,
      free: 1,
      busyRequired: ['10.0.0.2'],
      inMaintenance: [],
    });
    expect(busy.message).toBe('Not enough floating IPs available: 10.0.0.2 already reserved for this period');
  });
});
