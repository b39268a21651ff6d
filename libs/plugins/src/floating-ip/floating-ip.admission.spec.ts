import { describe, expect, it } from 'vitest';
import { at, floatingIpBooked, floatingIpRegistered, withCalendars } from '#application/testing/calendars.fixture.js';
import { Admissions } from '../admission/admission.registry.js';
import type { WireChanges } from '../reservation-wire.js';
import { patchOf } from '../testing/reservation-patch.fixture.js';
import { floatingIpAdmission } from './floating-ip.admission.js';
import type { FloatingIpReservationRequest } from './floating-ip-reservation.request.js';
import type { FloatingIpReservation } from './floating-ip.reservation.js';
import { floatingIpWire } from './floating-ip.wire.js';

const LEASE = { leaseId: 'lease-1', startDate: at(10), endDate: at(18) };
const ips = [
  floatingIpRegistered('f1', '10.0.0.1'),
  floatingIpRegistered('f2', '10.0.0.2'),
  floatingIpRegistered('f3', '10.0.0.3'),
  floatingIpRegistered('g1', '10.1.0.1', 'net-2'),
];
const request = (amount: number, requiredFloatingIps: readonly string[] = []): FloatingIpReservationRequest => ({
  resourceType: 'virtual:floatingip',
  networkId: 'net-1',
  amount,
  requiredFloatingIps,
});
const holding = (amount: number, requiredFloatingIps: readonly string[] = []): FloatingIpReservation => ({
  id: 'r1',
  resourceId: 'resource-r1',
  resourceType: 'virtual:floatingip',
  networkId: 'net-1',
  amount,
  requiredFloatingIps,
  allocations: [
    { floatingIpId: 'f1', address: '10.0.0.1' },
    { floatingIpId: 'f2', address: '10.0.0.2' },
  ].slice(0, amount),
});
const booked = [floatingIpBooked('f1', 'r1'), floatingIpBooked('f2', 'r1')];
const typesOf = (events: readonly { streamId: string; type: string }[]) => events.map((e) => `${e.streamId} ${e.type}`);

describe('virtual:floatingip admission', () => {
  it('books the required addresses and others of the network, with new ids', async () => {
    await withCalendars(ips, ({ admission, decided }) => {
      const reservation = floatingIpAdmission.admit(admission(LEASE), request(2, ['10.0.0.3']));
      expect(reservation).toEqual({
        id: 'id-1',
        resourceId: 'id-2',
        resourceType: 'virtual:floatingip',
        networkId: 'net-1',
        amount: 2,
        requiredFloatingIps: ['10.0.0.3'],
        allocations: [
          { floatingIpId: 'f1', address: '10.0.0.1' },
          { floatingIpId: 'f3', address: '10.0.0.3' },
        ],
      });
      expect(typesOf(decided())).toEqual(['floatingip-f1 FloatingIp.Booked', 'floatingip-f3 FloatingIp.Booked']);
    });
  });

  it('refuses more addresses than the network has free (409)', async () => {
    await withCalendars(ips, ({ admission }) => {
      expect(() => floatingIpAdmission.admit(admission(LEASE), request(4))).toThrow(
        expect.objectContaining({ code: 'NOT_ENOUGH_FLOATING_IPS', kind: 'conflict' }),
      );
    });
  });

  it('stays on its network, and its required addresses can only be cleared (400), before anything is booked', async () => {
    await withCalendars([...ips, ...booked], ({ admission, decided }) => {
      const readmit = (changes: WireChanges) => () =>
        floatingIpAdmission.readmit(admission(LEASE), holding(2, ['10.0.0.1']), floatingIpWire.change(changes), false);
      expect(readmit({ networkId: 'net-2' })).toThrow(
        expect.objectContaining({ kind: 'invalid', template: '{field:networkId} cannot be updated' }),
      );
      expect(readmit({ requiredFloatingIps: ['10.0.0.1'] })).toThrow(
        expect.objectContaining({ template: '{field:requiredFloatingIps} can only be cleared (set to [])' }),
      );
      expect(readmit({ amount: 0 })).toThrow(expect.objectContaining({ code: 'MALFORMED_PARAMETER' }));
      expect(decided()).toEqual([]);
      expect(readmit({ requiredFloatingIps: [], amount: 1 })()).toMatchObject({
        amount: 1,
        requiredFloatingIps: [],
        allocations: [{ floatingIpId: 'f1', address: '10.0.0.1' }],
      });
    });
  });

  it('keeps at least as many addresses as it requires, and once started as many as it holds (400)', async () => {
    await withCalendars([...ips, ...booked], ({ admission }) => {
      expect(() =>
        floatingIpAdmission.readmit(admission(LEASE), holding(2, ['10.0.0.1', '10.0.0.2']), floatingIpWire.change({ amount: 1 }), false),
      ).toThrow(
        expect.objectContaining({
          code: 'INVALID_INPUT',
          template: 'Invalid input for {field:requiredFloatingIps}: 2 addresses required but amount is 1',
        }),
      );
      expect(() => floatingIpAdmission.readmit(admission(LEASE), holding(2), floatingIpWire.change({ amount: 1 }), true)).toThrow(
        expect.objectContaining({
          template: 'The {field:amount} of a started floating IP reservation cannot go below the 2 addresses it holds',
        }),
      );
      expect(
        floatingIpAdmission.readmit(admission(LEASE), holding(2), floatingIpWire.change({ amount: 3 }), true).allocations,
      ).toHaveLength(3);
    });
  });

  it('a patch may only set floating-IP fields (400)', async () => {
    await withCalendars([...ips, ...booked], ({ admission }) => {
      expect(() => new Admissions().readmit(admission(LEASE), holding(2), patchOf('r1', { affinity: { value: null } }), false)).toThrow(
        expect.objectContaining({
          code: 'INVALID_PARAMETER',
          template: 'Parameter {field:affinity} cannot be set on a virtual:floatingip reservation',
        }),
      );
    });
  });

  it('has nothing to heal (hosts never hold it) and releases every address it holds', async () => {
    await withCalendars([...ips, ...booked], ({ admission, decided }) => {
      expect(floatingIpAdmission.heal(admission(LEASE), holding(2), new Set(['f1']))).toBeNull();
      floatingIpAdmission.release(admission(LEASE), holding(2));
      expect(typesOf(decided())).toEqual(['floatingip-f1 FloatingIp.BookingReleased', 'floatingip-f2 FloatingIp.BookingReleased']);
    });
  });
});
