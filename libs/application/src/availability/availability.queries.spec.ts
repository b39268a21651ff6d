import { describe, expect, it } from 'vitest';
import { leaseStream } from '#domain/index.js';
import { created, reservation } from '#domain/lease/testing/lease.fixtures.js';
import type { ReservationRequest } from '#plugins/reservation-types.js';
import { buildInstanceRequest } from '#plugins/instance/instance-reservation.request.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { at, floatingIpBooked, floatingIpRegistered, hostBooked, hostRegistered, slotsBooked } from '../testing/calendars.fixture.js';
import { DEFAULT_SETTINGS, applicationSpecification, testCaller } from '../testing/application.specification.js';
import { type AvailabilityRequest, AvailabilityQueries } from './availability.queries.js';
import { MAX_ATTEMPTS_PER_SEARCH } from './window-search.js';

const NOW = at(9);
const member = testCaller('member');
const reader = testCaller('reader');

const hosts = (min: number, properties = ''): ReservationRequest =>
  buildHostRequest({ min, max: min, hypervisorProperties: '', resourceProperties: properties, beforeEnd: 'default' });
const slots = (amount: number, affinity: boolean | null, vcpus = 4): ReservationRequest =>
  buildInstanceRequest({ amount, vcpus, memoryMb: 1024, diskGb: 10, affinity, resourceProperties: '' });
const addresses = (amount: number): ReservationRequest => ({
  resourceType: 'virtual:floatingip',
  networkId: 'net-1',
  amount,
  requiredFloatingIps: [],
});

const ask = (
  reservations: readonly ReservationRequest[],
  hours: number,
  fields: Partial<AvailabilityRequest> = {},
): AvailabilityRequest => ({
  reservations,
  durationMinutes: hours * 60,
  notBefore: null,
  notAfter: null,
  limit: 3,
  ...fields,
});

/** The windows a search finds (what it says of where it stopped is checked on its own). */
const found = async (app: AvailabilityQueries, ...args: Parameters<AvailabilityQueries['windows']>) => (await app.windows(...args)).windows;

const spec = applicationSpecification((context) => new AvailabilityQueries(context));
const withCleaning = applicationSpecification((context) => new AvailabilityQueries(context), {
  ...DEFAULT_SETTINGS,
  cleaningTimeMinutes: 30,
});

const starts = (windows: readonly { readonly startDate: string }[]) => windows.map((w) => w.startDate);

describe('the window search', () => {
  it('offers now when enough is free, then back-to-back windows of the duration, each with the free count per reservation', async () => {
    const windows = await spec
      .given([hostRegistered('1'), hostRegistered('2'), hostBooked('2', 'r0', { start: 10, end: 12 })])
      .when((app) => found(app, member, ask([hosts(1)], 2), NOW))
      .then([]);
    expect(windows.map((w) => [w.startDate, w.endDate, w.reservations[0]])).toEqual([
      [at(9), at(11), { resourceType: 'physical:host', requested: 1, matching: 2, free: 1 }],
      [at(11), at(13), { resourceType: 'physical:host', requested: 1, matching: 2, free: 1 }],
      [at(13), at(15), { resourceType: 'physical:host', requested: 1, matching: 2, free: 2 }],
    ]);
  });

  it('starts after a booking ends plus the cleaning time, and ends before the next one starts less it', async () => {
    const windows = await withCleaning
      .given([hostRegistered('1'), hostBooked('1', 'r0', { start: 10, end: 12 }), hostBooked('1', 'r1', { start: 15, end: 16 })])
      .when((app) => found(app, member, ask([hosts(1)], 2), NOW))
      .then([]);
    // 09:00-11:00 meets r0; 12:30-14:30 keeps 30 minutes from r1; the next fits after r1 + 30 minutes
    expect(starts(windows)).toEqual(['2030-01-01T12:30:00.000Z', '2030-01-01T16:30:00.000Z', '2030-01-01T18:30:00.000Z']);
  });

  it('finds a window in a gap that only partly overlaps the bookings of other hosts', async () => {
    const given = [
      hostRegistered('1'),
      hostRegistered('2'),
      hostBooked('1', 'r0', { start: 9, end: 12 }),
      hostBooked('2', 'r1', { start: 11, end: 14 }),
    ];
    const windows = await spec
      .given(given)
      .when((app) => found(app, member, ask([hosts(2)], 1), NOW))
      .then([]);
    expect(starts(windows)).toEqual([at(14), at(15), at(16)]);
  });

  it('offers nothing that would end after not_after', async () => {
    const given = [hostRegistered('1'), hostBooked('1', 'r0', { start: 9, end: 12 })];
    const windows = await spec
      .given(given)
      .when((app) => found(app, member, ask([hosts(1)], 2, { notAfter: at(15) }), NOW))
      .then([]);
    expect(starts(windows)).toEqual([at(12)]);
  });

  it('packs instance slots: room for three more beside a booking of one, until it ends', async () => {
    const given = [hostRegistered('1'), slotsBooked('1', 'r0', { count: 1, vcpus: 4, memoryMb: 1024, diskGb: 10 }, { start: 9, end: 12 })];
    const [first] = await spec
      .given(given)
      .when((app) => found(app, member, ask([slots(1, null)], 1), NOW))
      .then([]);
    expect(first?.reservations[0]).toEqual({ resourceType: 'virtual:instance', requested: 1, matching: 1, free: 1 });
    const [two] = await spec
      .given(given)
      .when((app) => found(app, member, ask([slots(2, true)], 1), NOW))
      .then([]);
    expect(two?.startDate).toBe(at(12));
  });

  it('keeps anti-affine slots on distinct hosts: two need two hosts with room', async () => {
    const given = [hostRegistered('1'), hostRegistered('2'), hostBooked('2', 'r0', { start: 9, end: 13 })];
    const windows = await spec
      .given(given)
      .when((app) => found(app, member, ask([slots(2, false)], 1), NOW))
      .then([]);
    expect(starts(windows)).toEqual([at(13), at(14), at(15)]);
  });

  it('books floating IPs on their own calendars', async () => {
    const given = [
      floatingIpRegistered('f1', '10.0.0.1'),
      floatingIpRegistered('f2', '10.0.0.2'),
      floatingIpBooked('f1', 'r0', { start: 9, end: 11 }),
    ];
    const windows = await spec
      .given(given)
      .when((app) => found(app, member, ask([addresses(2)], 1), NOW))
      .then([]);
    expect(windows[0]).toEqual({
      startDate: at(11),
      endDate: at(12),
      reservations: [{ resourceType: 'virtual:floatingip', requested: 2, matching: 2, free: 2 }],
    });
  });

  it('admits a mixed request only where every reservation fits at once', async () => {
    const given = [
      hostRegistered('1'),
      floatingIpRegistered('f1', '10.0.0.1'),
      hostBooked('1', 'r0', { start: 9, end: 11 }),
      floatingIpBooked('f1', 'r1', { start: 11, end: 13 }),
    ];
    const windows = await spec
      .given(given)
      .when((app) => found(app, member, ask([hosts(1), addresses(1)], 1, { limit: 1 }), NOW))
      .then([]);
    expect(starts(windows)).toEqual([at(13)]);
  });

  it('ends at once, with nothing, for a request no calendar could ever hold (more hosts than match), and says why', async () => {
    const answer = await spec
      .given([hostRegistered('1'), hostBooked('1', 'r0', { start: 9, end: 12 })])
      .when((app) => app.windows(member, ask([hosts(2)], 1), NOW))
      .then([]);
    expect(answer).toEqual({
      windows: [],
      searchedUntil: null,
      reason: {
        code: 'NEVER_FITS',
        message:
          'No window: the request is refused even where nothing is booked (2030-01-01 12:00): Not enough hosts available: 1 reservable host' +
          ' matches the requested properties and 1 of them is free for the whole lease (cleaning time included), 2 requested (min)',
        asked: { notBefore: at(9), notAfter: '2030-04-01T09:00:00.000Z', durationMinutes: 60 },
        reservations: [{ resourceType: 'physical:host', requested: 2, matching: 1, free: 1 }],
        blockedBy: { code: 'NOT_ENOUGH_HOSTS', message: expect.stringContaining('2 requested (min)') as unknown, at: at(12) },
        fitsAt: null,
      },
    });
  });

  it('says when bookings leave no window in the range: what was free at its start, what refused it, and when it fits', async () => {
    const answer = await spec
      .given([hostRegistered('1'), hostRegistered('2'), hostBooked('1', 'r0', { start: 9, end: 12 })])
      .when((app) => app.windows(member, ask([hosts(2)], 2, { notAfter: at(13) }), NOW))
      .then([]);
    expect(answer.windows).toEqual([]);
    expect(answer.reason).toEqual({
      code: 'ALL_BOOKED',
      message:
        'No window of 120 minutes from 2030-01-01 09:00 to 2030-01-01 13:00: bookings stand in the way (at 2030-01-01 09:00: Not enough' +
        ' hosts available: 2 reservable hosts match the requested properties and 1 of them is free for the whole lease (cleaning time' +
        ' included), 2 requested (min)). It fits from 2030-01-01 12:00, when nothing booked stands in the way.',
      asked: { notBefore: at(9), notAfter: at(13), durationMinutes: 120 },
      reservations: [{ resourceType: 'physical:host', requested: 2, matching: 2, free: 1 }],
      blockedBy: { code: 'NOT_ENOUGH_HOSTS', message: expect.stringContaining('1 of them is free') as unknown, at: at(9) },
      fitsAt: at(12),
    });
  });

  it('says when the range is shorter than the duration, and gives no reason when it finds a window', async () => {
    const short = await spec
      .given([hostRegistered('1')])
      .when((app) => app.windows(member, ask([hosts(1)], 2, { notAfter: at(10) }), NOW))
      .then([]);
    expect(short.reason).toMatchObject({
      code: 'RANGE_TOO_SHORT',
      message: 'No window of 120 minutes fits between 2030-01-01 09:00 and 2030-01-01 10:00',
      reservations: [],
      blockedBy: null,
      fitsAt: null,
    });
    const fits = await spec
      .given([hostRegistered('1')])
      .when((app) => app.windows(member, ask([hosts(1)], 1), NOW))
      .then([]);
    expect(fits.reason).toBeNull();
  });

  it('stops after its budget of attempts and says where, every start before that tried', async () => {
    // one host busy in 300 one-minute bookings a minute apart: each gap is too short for two minutes;
    // instance slots are found by trying the admission at each candidate start
    const busy = Array.from({ length: 300 }, (_, i) => ({
      ...hostBooked('1', `r${i}`),
      data: {
        hostId: '1',
        reservationId: `r${i}`,
        leaseId: `l${i}`,
        startDate: new Date(Date.parse(NOW) + (2 * i + 1) * 60_000).toISOString(),
        endDate: new Date(Date.parse(NOW) + (2 * i + 2) * 60_000).toISOString(),
        propertyNames: [],
      },
    }));
    const answer = await spec
      .given([hostRegistered('1'), ...busy])
      .when((app) => app.windows(member, ask([slots(1, null)], 2 / 60), NOW))
      .then([]);
    expect(answer.windows).toEqual([]);
    // the 250th start tried is 250 minutes on from now (starts are tried at 09:00, then each booking's end)
    expect(answer.searchedUntil).toBe(new Date(Date.parse(NOW) + 2 * MAX_ATTEMPTS_PER_SEARCH * 60_000).toISOString());
    expect(answer.reason).toMatchObject({
      code: 'SEARCH_STOPPED',
      message: `No window found before the search stopped at 2030-01-01 17:20 (at most ${MAX_ATTEMPTS_PER_SEARCH} tries a search): ask again from there`,
    });
  });

  it('answers a whole-host request over that calendar without running out: the sweep skips every gap too short', async () => {
    const busy = Array.from({ length: 300 }, (_, i) => ({
      ...hostBooked('1', `r${i}`),
      data: {
        hostId: '1',
        reservationId: `r${i}`,
        leaseId: `l${i}`,
        startDate: new Date(Date.parse(NOW) + (2 * i + 1) * 60_000).toISOString(),
        endDate: new Date(Date.parse(NOW) + (2 * i + 2) * 60_000).toISOString(),
        propertyNames: [],
      },
    }));
    const answer = await spec
      .given([hostRegistered('1'), ...busy])
      .when((app) => app.windows(member, ask([hosts(1)], 2 / 60, { limit: 1 }), NOW))
      .then([]);
    // the last booking ends 600 minutes from now
    expect(answer).toMatchObject({ windows: [{ startDate: new Date(Date.parse(NOW) + 600 * 60_000).toISOString() }], searchedUntil: null });
  });

  it('refuses a reader (who may not lease) and a range that ends before it starts', async () => {
    await spec
      .given([hostRegistered('1')])
      .when((app) => found(app, reader, ask([hosts(1)], 1), NOW))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED' });
    await spec
      .given([hostRegistered('1')])
      .when((app) => found(app, member, ask([hosts(1)], 1, { notBefore: at(12), notAfter: at(11) }), NOW))
      .thenThrows({ code: 'INVALID_RANGE' });
  });

  describe('the last instant a date may be (9999-12-31 23:59: none later can be written as Blazar writes dates)', () => {
    const LAST_DAY = (time: string) => `9999-12-31T${time}:00.000Z`;
    const bookedOnLastDay = (start: string, end: string) => ({
      ...hostBooked('1', `r-${start}`),
      data: {
        hostId: '1',
        reservationId: `r-${start}`,
        leaseId: `l-${start}`,
        startDate: LAST_DAY(start),
        endDate: LAST_DAY(end),
        propertyNames: [],
      },
    });
    const windowsOf = (windows: readonly { readonly startDate: string; readonly endDate: string }[]) =>
      windows.map((w) => [w.startDate, w.endDate]);

    it('offers the windows that end by it, and none that would end after it', async () => {
      const windows = await spec
        .given([hostRegistered('1')])
        .when((app) => found(app, member, ask([hosts(1)], 0.5, { notBefore: LAST_DAY('23:00') }), NOW))
        .then([]);
      expect(windowsOf(windows)).toEqual([[LAST_DAY('23:00'), LAST_DAY('23:30')]]);
    });

    it('offers nothing that cannot end by it, from a start before it or at it', async () => {
      for (const notBefore of [LAST_DAY('23:00'), LAST_DAY('23:59')]) {
        const answer = await spec
          .given([hostRegistered('1')])
          .when((app) => app.windows(member, ask([hosts(1)], 2, { notBefore }), NOW))
          .then([]);
        expect(answer).toMatchObject({ windows: [], searchedUntil: null, reason: { code: 'RANGE_TOO_SHORT' } });
      }
    });

    it('the extension of a lease that ends at it is its own end: it cannot grow', async () => {
      const [startDate, endDate] = [LAST_DAY('20:00'), LAST_DAY('23:59')];
      const lease = created({
        leaseId: 'lease-1',
        startDate,
        endDate,
        beforeEndDate: null,
        reservations: [reservation('res-1', { hostIds: ['1'] })],
      });
      const extension = await spec
        .given([
          hostRegistered('1'),
          {
            ...bookedOnLastDay('20:00', '23:59'),
            data: { ...bookedOnLastDay('20:00', '23:59').data, reservationId: 'res-1', leaseId: 'lease-1' },
          },
          { streamId: leaseStream('lease-1'), ...lease },
        ])
        .when((app) => app.extension(member, 'lease-1', NOW))
        .then([]);
      expect(extension).toEqual({ leaseId: 'lease-1', endDate: LAST_DAY('23:59'), maxEndDate: LAST_DAY('23:59'), conflictEndDate: null });
    });

    it('a booking on the last day bounds the windows before it, and what follows it is too short to offer', async () => {
      const windows = await spec
        .given([hostRegistered('1'), bookedOnLastDay('12:00', '23:30')])
        .when((app) => found(app, member, ask([hosts(1)], 1, { notBefore: LAST_DAY('10:00') }), NOW))
        .then([]);
      expect(windowsOf(windows)).toEqual([
        [LAST_DAY('10:00'), LAST_DAY('11:00')],
        [LAST_DAY('11:00'), LAST_DAY('12:00')],
      ]);
    });
  });
});
