import { describe, expect, it } from 'vitest';
import { toMs } from '#domain/index.js';
import { at, floatingIpBooked, floatingIpRegistered, hostBooked, hostRegistered, withCalendars } from '../testing/calendars.fixture.js';

const calendar = [
  hostRegistered('1'),
  hostBooked('1', 'ended', { leaseId: 'a', start: 8, end: 9 }),
  hostBooked('1', 'running', { leaseId: 'b', start: 9, end: 12 }),
  hostBooked('1', 'later', { leaseId: 'c', start: 13, end: 14 }),
  floatingIpRegistered('ip-1', '172.24.4.10'),
  floatingIpBooked('ip-1', 'ip-ended', { leaseId: 'a', start: 8, end: 9 }),
  floatingIpBooked('ip-1', 'ip-later', { leaseId: 'c', start: 13, end: 14 }),
];

const reservationIds = (bookings: readonly { reservationId: string }[]): string[] => bookings.map((b) => b.reservationId);

describe('the write index forgetting ended bookings', () => {
  it('drops the bookings that ended before the cutoff and keeps the running and future ones, with their revisions', async () => {
    await withCalendars(calendar, ({ index }) => {
      const before = { host: index.host('1').revision, ip: index.floatingIp('ip-1').revision };
      index.forgetBookingsEndedBefore(toMs(at(10)));
      const host = index.host('1');
      const ip = index.floatingIp('ip-1');
      expect(host.state.status === 'Registered' && reservationIds(host.state.bookings)).toEqual(['running', 'later']);
      expect(ip.state.status === 'Registered' && reservationIds(ip.state.bookings)).toEqual(['ip-later']);
      expect({ host: host.revision, ip: ip.revision }).toEqual(before);
    });
  });

  it('keeps a booking that ends exactly at the cutoff', async () => {
    await withCalendars(calendar, ({ index }) => {
      index.forgetBookingsEndedBefore(toMs(at(9)));
      const host = index.host('1');
      expect(host.state.status === 'Registered' && reservationIds(host.state.bookings)).toEqual(['ended', 'running', 'later']);
    });
  });

  it('keeps an ended booking that overlaps a running one (a started reservation changing is judged from its own start)', async () => {
    const overlapping = [
      hostRegistered('1'),
      hostBooked('1', 'ended', { leaseId: 'a', start: 7, end: 9 }),
      hostBooked('1', 'running', { leaseId: 'b', start: 8, end: 12 }),
    ];
    await withCalendars(overlapping, ({ index }) => {
      index.forgetBookingsEndedBefore(toMs(at(10)));
      const host = index.host('1');
      expect(host.state.status === 'Registered' && reservationIds(host.state.bookings)).toEqual(['ended', 'running']);
      expect(index.heldBookings()).toBe(2);
    });
  });
});
