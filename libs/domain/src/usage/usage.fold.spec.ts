import { describe, expect, it } from 'vitest';
import { reservationRates } from '#plugins/reservation-holdings.js';
import type { LeaseEvent } from '../lease/lease.events.js';
import {
  LEASE_ID,
  at,
  created,
  deleted,
  endRequested,
  ended,
  flavorInstanceReservation,
  floatingIpReservation,
  reservation,
  reservationChanged,
  startFailed,
  startRequested,
  started,
  virtualInstanceReservation,
} from '../lease/testing/lease.fixtures.js';
import { type HostSize, type UsagePiece, usagePieces } from './usage.fold.js';

/** Hosts 7, 8 and 9 as registered: each a different size, so a piece shows whose size it took. */
const SIZES: Readonly<Record<string, HostSize>> = {
  '7': { vcpus: 48, memoryMb: 196_608, diskGb: 900 },
  '8': { vcpus: 64, memoryMb: 262_144, diskGb: 1800 },
  '9': { vcpus: 32, memoryMb: 131_072, diskGb: 450 },
};
const hostSize = (hostId: string): HostSize => SIZES[hostId] as HostSize;
const wholeHost = (hostId: string) => {
  const { vcpus, memoryMb, diskGb } = hostSize(hostId);
  return { host_hours: 1, vcpu_hours: vcpus, memory_mb_hours: memoryMb, disk_gb_hours: diskGb };
};

const piece = (
  reservationId: string,
  resourceType: UsagePiece['resourceType'],
  resourceId: string,
  start: string,
  end: string | null,
  rates: UsagePiece['rates'],
): UsagePiece => ({
  leaseId: LEASE_ID,
  projectId: 'project-1',
  reservationId,
  resourceType,
  resourceId,
  start,
  end,
  rates,
});

const oneHost = created({ reservations: [reservation('res-1')] });
const given = (...events: LeaseEvent[]): UsagePiece[] => usagePieces(events, reservationRates(hostSize));

describe('usage fold: what a lease held, from what the log recorded', () => {
  it('a host reservation holds the host and its registered size from the recorded start to the end', () => {
    // the reactor recorded the start 2 minutes after the planned 10:00, and the end request at 18:00
    expect(given(oneHost, startRequested(at(10)), started(at(10, 2)), endRequested('scheduled', at(18)), ended(at(18, 1)))).toEqual([
      piece('res-1', 'physical:host', '7', at(10, 2), at(18), wholeHost('7')),
    ]);
  });

  it('instance reservations (virtual and flavor) hold their slots times the slot size, per host', () => {
    const virtual = virtualInstanceReservation('res-v', {
      amount: 3,
      allocations: [
        { hostId: '7', count: 2 },
        { hostId: '8', count: 1 },
      ],
    });
    const flavor = flavorInstanceReservation('res-f');
    const pieces = given(created({ reservations: [virtual, flavor] }), started(at(10)), endRequested('scheduled', at(12)));
    const slots = (count: number) => ({
      instance_hours: count,
      vcpu_hours: 2 * count,
      memory_mb_hours: 4096 * count,
      disk_gb_hours: 20 * count,
    });
    expect(pieces).toEqual([
      piece('res-f', 'flavor:instance', '7', at(10), at(12), slots(2)),
      piece('res-v', 'virtual:instance', '7', at(10), at(12), slots(2)),
      piece('res-v', 'virtual:instance', '8', at(10), at(12), slots(1)),
    ]);
  });

  it('a floating-IP reservation holds each address', () => {
    const fip = floatingIpReservation('res-ip', {
      amount: 2,
      allocations: [
        { floatingIpId: 'fip-1', address: '172.24.4.10' },
        { floatingIpId: 'fip-2', address: '172.24.4.11' },
      ],
    });
    expect(given(created({ reservations: [fip] }), started(at(10)), endRequested('scheduled', at(11)))).toEqual([
      piece('res-ip', 'virtual:floatingip', 'fip-1', at(10), at(11), { floating_ip_hours: 1 }),
      piece('res-ip', 'virtual:floatingip', 'fip-2', at(10), at(11), { floating_ip_hours: 1 }),
    ]);
  });

  it('a failed start holds nothing', () => {
    expect(given(oneHost, startRequested(at(10)), startFailed('res-1: boom', at(10, 1)))).toEqual([]);
  });

  it('a lease deleted before it started holds nothing (and a start recorded after it changes nothing)', () => {
    expect(given(oneHost, deleted(at(9)), started(at(10)))).toEqual([]);
  });

  it('an early termination stops the clock at the recorded end request, whatever the planned end', () => {
    const rescheduled: LeaseEvent = {
      type: 'Lease.Rescheduled',
      data: { leaseId: LEASE_ID, startDate: at(10), endDate: at(13), beforeEndDate: null, rescheduledAt: at(13) },
    };
    expect(given(oneHost, started(at(10)), rescheduled, endRequested('scheduled', at(13)))).toEqual([
      piece('res-1', 'physical:host', '7', at(10), at(13), wholeHost('7')),
    ]);
  });

  it('a prolonged lease holds until its later, recorded end', () => {
    const prolonged: LeaseEvent = {
      type: 'Lease.Rescheduled',
      data: { leaseId: LEASE_ID, startDate: at(10), endDate: at(22), beforeEndDate: null, rescheduledAt: at(15) },
    };
    expect(given(oneHost, started(at(10)), prolonged, endRequested('scheduled', at(22)))).toEqual([
      piece('res-1', 'physical:host', '7', at(10), at(22), wholeHost('7')),
    ]);
  });

  it('deleting an active lease stops the clock at the deletion', () => {
    expect(given(oneHost, started(at(10)), endRequested('deleted', at(11)), deleted(at(11)))).toEqual([
      piece('res-1', 'physical:host', '7', at(10), at(11), wholeHost('7')),
    ]);
  });

  it('a healed reservation holds the failed host until the healing and the replacement from then on', () => {
    const healed: LeaseEvent = {
      type: 'Reservation.Healed',
      data: {
        leaseId: LEASE_ID,
        reservation: reservation('res-1', { hostIds: ['8'] }),
        replacements: [{ hostId: '7', by: ['8'] }],
        unhealedHostIds: [],
        missingResources: false,
        resourcesChanged: true,
        at: at(12, 30),
      },
    };
    expect(given(oneHost, started(at(10)), healed, endRequested('scheduled', at(18)))).toEqual([
      piece('res-1', 'physical:host', '7', at(10), at(12, 30), wholeHost('7')),
      piece('res-1', 'physical:host', '8', at(12, 30), at(18), wholeHost('8')),
    ]);
  });

  it('more instances in a running reservation: the host whose slots changed switches piece at the change, the others run on', () => {
    const before = virtualInstanceReservation('res-v', {
      amount: 2,
      allocations: [
        { hostId: '7', count: 1 },
        { hostId: '8', count: 1 },
      ],
    });
    const after = {
      ...before,
      amount: 3,
      allocations: [
        { hostId: '7', count: 1 },
        { hostId: '8', count: 2 },
      ],
    };
    const slots = (count: number) => ({
      instance_hours: count,
      vcpu_hours: 2 * count,
      memory_mb_hours: 4096 * count,
      disk_gb_hours: 20 * count,
    });
    expect(
      given(created({ reservations: [before] }), started(at(10)), reservationChanged(after, at(14)), endRequested('scheduled', at(16))),
    ).toEqual([
      piece('res-v', 'virtual:instance', '7', at(10), at(16), slots(1)),
      piece('res-v', 'virtual:instance', '8', at(10), at(14), slots(1)),
      piece('res-v', 'virtual:instance', '8', at(14), at(16), slots(2)),
    ]);
  });

  it('a change before the start is what starts', () => {
    const changed = reservation('res-1', { hostIds: ['9'] });
    expect(given(oneHost, reservationChanged(changed, at(8)), started(at(10)), endRequested('scheduled', at(11)))).toEqual([
      piece('res-1', 'physical:host', '9', at(10), at(11), wholeHost('9')),
    ]);
  });

  it('a lease still running has open pieces (end null)', () => {
    expect(given(oneHost, started(at(10)))).toEqual([piece('res-1', 'physical:host', '7', at(10), null, wholeHost('7'))]);
  });

  it('no creation, no usage', () => {
    expect(given(started(at(10)))).toEqual([]);
  });
});
