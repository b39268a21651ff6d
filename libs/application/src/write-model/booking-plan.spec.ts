import { describe, expect, it } from 'vitest';
import { EMPTY_QUERY } from '#plugins/query/blazar-query.js';
import type { BookingWindow } from '#plugins/admission/calendars.port.js';
import { at, floatingIpRegistered, hostRegistered, hostWentDown, withCalendars } from '../testing/calendars.fixture.js';

const window = (reservationId: string, start = 10, end = 18): BookingWindow => ({
  leaseId: `lease-${reservationId}`,
  reservationId,
  startDate: at(start),
  endDate: at(end),
  propertyNames: [],
});
const booked = (hostId: string, reservationId: string, start = 10, end = 18) => ({
  streamId: `host-${hostId}`,
  type: 'Host.Booked',
  data: { hostId, reservationId, leaseId: `lease-${reservationId}`, startDate: at(start), endDate: at(end), propertyNames: [] },
});
const ONE = { min: 1, max: 1, query: EMPTY_QUERY };

describe('the booking plan', () => {
  it('books on working copies: a second reservation of the same decision does not get the host the first took', async () => {
    await withCalendars([hostRegistered('1'), hostRegistered('2')], ({ plan, decided }) => {
      const first = plan.allocate(ONE, window('r1'));
      for (const hostId of first) plan.book(hostId, window('r1'));
      const second = plan.allocate(ONE, window('r2'));
      for (const hostId of second) plan.book(hostId, window('r2'));
      expect([first, second]).toEqual([['1'], ['2']]);
      expect(decided()).toEqual([booked('1', 'r1'), booked('2', 'r2')]);
    });
  });

  it('appends once per touched calendar, each under the revision its decisions were made on', async () => {
    await withCalendars([hostRegistered('1'), booked('1', 'r0', 1, 2), hostRegistered('2')], ({ plan }) => {
      plan.book('1', window('r1'));
      plan.book('1', window('r2', 18, 20));
      const appends = plan.appends({ correlationId: 'c', causationId: 'c', actor: null }, () => 'id');
      expect(appends.map((a) => [a.streamId, a.expectedRevision, a.events.length])).toEqual([['host-1', 1, 2]]);
    });
  });

  it('offers no host that is down, and answers 409 when too few are free', async () => {
    await withCalendars([hostRegistered('1'), hostWentDown('1'), hostRegistered('2'), booked('2', 'r0')], ({ plan, decided }) => {
      expect(plan.snapshots().map((host) => [host.id, host.columns.reservable])).toEqual([
        ['1', false],
        ['2', true],
      ]);
      expect(() => plan.allocate(ONE, window('r1'))).toThrow(expect.objectContaining({ code: 'NOT_ENOUGH_HOSTS', kind: 'conflict' }));
      expect(decided()).toEqual([]);
    });
  });

  it('keeps a running reservation on its hosts only while each is free over the new window', async () => {
    await withCalendars([hostRegistered('1'), booked('1', 'r1'), booked('1', 'r2', 20, 22)], ({ plan }) => {
      expect(() => plan.checkKeptHosts(['1'], window('r1', 10, 20))).not.toThrow();
      expect(() => plan.checkKeptHosts(['1'], window('r1', 10, 21))).toThrow(expect.objectContaining({ code: 'NOT_ENOUGH_HOSTS' }));
    });
  });

  it("moves a running reservation's booking that joined later (a healing replacement) from its own start, not the lease's", async () => {
    await withCalendars([hostRegistered('1'), booked('1', 'r1', 12, 18)], ({ plan, decided }) => {
      plan.move('1', window('r1', 10, 20), true);
      plan.move('1', window('r1', 10, 21), false);
      expect(decided().map((e) => e.data)).toEqual([
        { hostId: '1', reservationId: 'r1', startDate: at(12), endDate: at(20), propertyNames: [] },
        { hostId: '1', reservationId: 'r1', startDate: at(10), endDate: at(21), propertyNames: [] },
      ]);
    });
  });

  it('releases nothing on a host that is no longer registered', async () => {
    await withCalendars(
      [
        hostRegistered('1'),
        booked('1', 'r1'),
        { streamId: 'host-1', type: 'Host.Unregistered', data: { hostId: '1', hypervisorHostname: 'compute-1', unregisteredAt: at(1) } },
      ],
      ({ plan, decided }) => {
        plan.release('1', 'r1');
        expect(decided()).toEqual([]);
      },
    );
  });

  it('books, moves and releases floating IPs on their own calendars, and shows its bookings in their snapshots', async () => {
    await withCalendars([floatingIpRegistered('f1', '10.0.0.1'), floatingIpRegistered('f2', '10.0.0.2')], ({ plan, decided }) => {
      plan.bookFloatingIp('f1', window('r1'));
      plan.bookFloatingIp('f2', window('r1'));
      plan.moveFloatingIp('f1', window('r1', 10, 20));
      plan.releaseFloatingIp('f2', 'r1');
      expect(plan.floatingIpSnapshots().map((ip) => [ip.id, ip.bookings.length])).toEqual([
        ['f1', 1],
        ['f2', 0],
      ]);
      expect(decided().map((e) => [e.streamId, e.type])).toEqual([
        ['floatingip-f1', 'FloatingIp.Booked'],
        ['floatingip-f1', 'FloatingIp.BookingMoved'],
        ['floatingip-f2', 'FloatingIp.Booked'],
        ['floatingip-f2', 'FloatingIp.BookingReleased'],
      ]);
    });
  });

  it("books instance slots within a host's capacity times the allocation ratios", async () => {
    await withCalendars([hostRegistered('1')], ({ plan, decided }) => {
      plan.bookSlots('1', window('r1'), { count: 4, vcpus: 2, memoryMb: 4096, diskGb: 20 });
      expect(() => plan.bookSlots('1', window('r2'), { count: 1, vcpus: 1, memoryMb: 1, diskGb: 1 })).toThrow(
        expect.objectContaining({ kind: 'conflict' }),
      );
      expect(decided().map((e) => e.type)).toEqual(['Host.SlotsBooked']);
    });
  });
});
