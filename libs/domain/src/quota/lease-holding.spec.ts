import { describe, expect, it } from 'vitest';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import type { VirtualInstanceReservation } from '#plugins/instance/instance.reservation.js';
import { reservationAmounts } from '#plugins/reservation-holdings.js';
import type { LeaseEvent } from '../lease/lease.events.js';
import { type TrackedLease, trackLease, trackedHolding } from './lease-holding.js';

const hosts = (id: string, hostIds: string[]): HostReservation => ({
  id,
  resourceId: `rid-${id}`,
  resourceType: 'physical:host',
  min: hostIds.length,
  max: hostIds.length,
  hypervisorProperties: '',
  resourceProperties: '',
  beforeEnd: 'default',
  hostIds,
});
const instances = (id: string, amount: number): VirtualInstanceReservation => ({
  id,
  resourceId: `rid-${id}`,
  resourceType: 'virtual:instance',
  amount,
  vcpus: 2,
  memoryMb: 1024,
  diskGb: 10,
  affinity: null,
  resourceProperties: '',
  allocations: [{ hostId: '1', count: amount }],
});
const created: LeaseEvent = {
  type: 'Lease.Created',
  data: {
    leaseId: 'l1',
    name: 'l1',
    projectId: 'p1',
    userId: 'u1',
    trustId: null,
    startDate: '2030-01-01T10:00:00.000Z',
    endDate: '2030-01-01T18:00:00.000Z',
    beforeEndDate: null,
    reservations: [hosts('r1', ['1', '2']), instances('r2', 3)],
    eventIds: { start: 'e1', end: 'e2', beforeEnd: 'e3' },
    createdAt: '2030-01-01T09:00:00.000Z',
  },
};
const fold = (events: readonly LeaseEvent[]): TrackedLease | null =>
  events.reduce<TrackedLease | null>((tracked, event) => trackLease(reservationAmounts, tracked, event), null);
const at = (time: string): LeaseEvent['data'] & { leaseId: string; at: string } => ({ leaseId: 'l1', at: `2030-01-01T${time}:00.000Z` });

describe('what quotas count of a lease', () => {
  it('Given a lease created, Then it holds its hosts, its instances vCPUs and RAM over its window', () => {
    const held = fold([created]);
    expect(held && trackedHolding(held)).toEqual({
      leaseId: 'l1',
      projectId: 'p1',
      start: Date.parse('2030-01-01T10:00:00Z'),
      end: Date.parse('2030-01-01T18:00:00Z'),
      amounts: { hosts: 2, vcpus: 6, memoryMb: 3072 },
    });
  });

  it('Given a reservation changed and the lease moved, Then the holding follows both', () => {
    const changed: LeaseEvent = {
      type: 'Reservation.Changed',
      data: { leaseId: 'l1', reservation: hosts('r1', ['1', '2', '3']), changedAt: '2030-01-01T09:30:00.000Z' },
    };
    const moved: LeaseEvent = {
      type: 'Lease.Rescheduled',
      data: {
        leaseId: 'l1',
        startDate: '2030-01-02T10:00:00.000Z',
        endDate: '2030-01-02T12:00:00.000Z',
        beforeEndDate: null,
        rescheduledAt: '2030-01-01T09:40:00.000Z',
      },
    };
    const held = fold([created, changed, moved]);
    expect(held && trackedHolding(held)).toMatchObject({
      start: Date.parse('2030-01-02T10:00:00Z'),
      end: Date.parse('2030-01-02T12:00:00Z'),
      amounts: { hosts: 3, vcpus: 6 },
    });
  });

  it('Given a lease deleted before its start began, Then it holds nothing', () => {
    expect(fold([created, { type: 'Lease.Deleted', data: at('09:30') }])).toBeNull();
  });

  it('Given a lease deleted after its start began, Then it held until the delete', () => {
    const held = fold([
      created,
      { type: 'Lease.StartRequested', data: at('10:00') },
      { type: 'Lease.Started', data: at('10:01') },
      { type: 'Lease.Deleted', data: at('12:00') },
    ]);
    expect(held && trackedHolding(held)).toMatchObject({
      start: Date.parse('2030-01-01T10:00:00Z'),
      end: Date.parse('2030-01-01T12:00:00Z'),
    });
  });

  it('Given a lease that failed to start, Then it still holds (its bookings stay until it is deleted)', () => {
    const held = fold([
      created,
      { type: 'Lease.StartRequested', data: at('10:00') },
      { type: 'Lease.StartFailed', data: { ...at('10:01'), reason: 'boom' } },
    ]);
    expect(held && trackedHolding(held).amounts.hosts).toBe(2);
  });
});
