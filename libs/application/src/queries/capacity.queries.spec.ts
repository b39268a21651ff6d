import { describe, expect, it } from 'vitest';
import { hostStream } from '#domain/index.js';
import { type NetworkType, networkStream } from '#plugins/network/network-segment.types.js';
import { at, hostBooked, hostRegistered, hostWentDown, slotsBooked } from '../testing/calendars.fixture.js';
import { DEFAULT_SETTINGS, applicationSpecification, testCaller } from '../testing/application.specification.js';
import type { StreamEvent } from '../testing/given-events.js';
import { type CapacityRequest, CapacityQueries, MAX_CAPACITY_STEPS } from './capacity.queries.js';

const admin = testCaller('admin');
const spec = applicationSpecification((context) => new CapacityQueries(context));
const withCleaning = applicationSpecification((context) => new CapacityQueries(context), { ...DEFAULT_SETTINGS, cleaningTimeMinutes: 30 });

const frame = (start: number, end: number, fields: Partial<CapacityRequest> = {}): CapacityRequest => ({
  start: at(start),
  end: at(end),
  stepMinutes: 60,
  requestMinutes: 60,
  failureDomain: null,
  ...fields,
});

const minute = (hour: number, minutes: number): string => new Date(Date.parse(at(hour)) + minutes * 60_000).toISOString();

/** A whole-host booking at minute precision. */
const bookedAt = (hostId: string, reservationId: string, leaseId: string, start: string, end: string): StreamEvent => ({
  streamId: hostStream(hostId),
  type: 'Host.Booked',
  data: { hostId, reservationId, leaseId, startDate: start, endDate: end, propertyNames: [] },
});

const SLOT = { count: 2, vcpus: 2, memoryMb: 512, diskGb: 5 };

const segment = (networkId: string, networkType: NetworkType, physicalNetwork: string | null, segmentId: number | null) => ({
  networkId,
  networkType,
  physicalNetwork,
  segmentId,
});
const segmentRegistered = (info: ReturnType<typeof segment>): StreamEvent => ({
  streamId: networkStream(info.networkId),
  type: 'NetworkSegment.Registered',
  data: { ...info, capabilities: {}, registeredAt: at(0) },
});
const segmentBooked = (networkId: string, reservationId: string, start: string, end: string): StreamEvent => ({
  streamId: networkStream(networkId),
  type: 'NetworkSegment.Booked',
  data: { networkId, reservationId, leaseId: `lease-${reservationId}`, startDate: start, endDate: end, propertyNames: [] },
});

/** The host rows of the one zone: [whole, by slots, free, peak, largest request] per step. */
const hostRows = (report: Awaited<ReturnType<CapacityQueries['report']>>) =>
  report.zones[0]?.hosts.map((s) => [s.reservedWhole, s.reservedBySlots, s.free, s.peakUtilisation, s.largestRequest]);

const maintenance = (hostId: string, windowId: string, start: number, end: number): StreamEvent => ({
  streamId: hostStream(hostId),
  type: 'Host.MaintenanceScheduled',
  data: { hostId, windowId, startDate: at(start), endDate: at(end), reason: 'firmware', scheduledAt: at(0) },
});

describe('the capacity report', () => {
  it('counts a host with a maintenance window in the step as in maintenance only, out of free and the largest request', async () => {
    const given = [
      hostRegistered('1'),
      hostRegistered('2'),
      hostRegistered('3'),
      // booked before the window was scheduled over it: the host still counts once, in maintenance
      hostBooked('1', 'r1', { start: 9, end: 11 }),
      maintenance('1', 'w1', 10, 12),
      slotsBooked('2', 'r2', SLOT, { leaseId: 'lease-2', start: 11, end: 12 }),
      maintenance('2', 'w2', 11, 12),
    ];
    const report = await spec
      .given(given)
      .when((app) => app.report(admin, frame(9, 13)))
      .then([]);
    expect(report.zones[0]?.hosts.map((s) => [s.inMaintenance, s.reservedWhole, s.reservedBySlots, s.free, s.largestRequest])).toEqual([
      [0, 1, 0, 2, 2],
      [1, 0, 0, 2, 2],
      [2, 0, 0, 1, 1],
      [0, 0, 0, 3, 3],
    ]);
  });

  it('counts per step the hosts reserved whole, by slots only, and free, and the hosts a request could still get', async () => {
    const given = [
      hostRegistered('1'),
      hostRegistered('2'),
      hostRegistered('3'),
      hostBooked('1', 'r1', { start: 10, end: 12 }),
      slotsBooked('2', 'r2', SLOT, { leaseId: 'lease-2', start: 11, end: 13 }),
    ];
    const report = await spec
      .given(given)
      .when((app) => app.report(admin, frame(9, 14)))
      .then([]);
    expect(report.zones.map((z) => z.availabilityZone)).toEqual(['nova']);
    expect(report.zones[0]?.hosts.map((s) => [new Date(s.start).toISOString(), s.enrolled])).toEqual(
      [9, 10, 11, 12, 13].map((h) => [at(h), 3]),
    );
    expect(hostRows(report)).toEqual([
      [0, 0, 3, 0, 3],
      [1, 0, 2, 0.3333, 2],
      [1, 1, 1, 0.6667, 1],
      [0, 1, 2, 0.3333, 2],
      // a booking ending at the step's start is not in it (half-open)
      [0, 0, 3, 0, 3],
    ]);
  });

  it('takes the peak at one instant: two hosts booked one after the other in a step are half the zone at most (and neither is free for the hour)', async () => {
    const given = [
      hostRegistered('1'),
      hostRegistered('2'),
      bookedAt('1', 'a', 'l-a', at(10), minute(10, 30)),
      bookedAt('2', 'b', 'l-b', minute(10, 30), at(11)),
    ];
    const report = await spec
      .given(given)
      .when((app) => app.report(admin, frame(10, 11)))
      .then([]);
    expect(hostRows(report)).toEqual([[2, 0, 0, 0.5, 0]]);
  });

  it('gives the largest request by the host policy: the cleaning time keeps a host out after its booking', async () => {
    const given = [hostRegistered('1'), hostRegistered('2'), hostBooked('1', 'r1', { start: 10, end: 12 })];
    const report = await withCleaning
      .given(given)
      .when((app) => app.report(admin, frame(12, 14, { requestMinutes: 120 })))
      .then([]);
    // at 12:00 host 1 needs 30 more minutes; at 13:00 both are free for two hours
    expect(report.zones[0]?.hosts.map((s) => s.largestRequest)).toEqual([1, 2]);
  });

  it('adds the slot resources at their peak against the zone capacity (totals x allocation ratios)', async () => {
    const given = [
      hostRegistered('1'),
      hostRegistered('2'),
      slotsBooked('1', 'r1', SLOT, { start: 10, end: 12 }),
      slotsBooked('1', 'r2', { count: 1, vcpus: 4, memoryMb: 1024, diskGb: 10 }, { leaseId: 'lease-2', start: 11, end: 12 }),
    ];
    const report = await spec
      .given(given)
      .when((app) => app.report(admin, frame(10, 12)))
      .then([]);
    expect(report.zones[0]?.slots.map((s) => [s.capacity, s.peakReserved, s.peakUtilisation])).toEqual([
      [{ vcpus: 16, memoryMb: 32768, diskGb: 200 }, { vcpus: 4, memoryMb: 1024, diskGb: 10 }, 0.25],
      [{ vcpus: 16, memoryMb: 32768, diskGb: 200 }, { vcpus: 8, memoryMb: 2048, diskGb: 20 }, 0.5],
    ]);
  });

  it('counts in the slot capacity only the hosts a slot can be placed on: reservable, with a vCPU and a MB of memory at least', async () => {
    const given = [
      hostRegistered('1'),
      // the smallest instance takes a vCPU and a MB: a host without memory (or vCPUs) holds none, whatever its other totals
      hostRegistered('no-memory', {}, { memoryMb: 0 }),
      hostRegistered('no-vcpus', {}, { vcpus: 0 }),
      // a root disk of 0 GB is a valid instance size: a host without disk still holds slots
      hostRegistered('no-disk', {}, { localGb: 0 }),
      hostRegistered('not-reservable'),
      {
        streamId: hostStream('not-reservable'),
        type: 'Host.ReservableChanged',
        data: { hostId: 'not-reservable', reservable: false, reason: 'operator', changedAt: at(1) },
      },
      hostRegistered('down'),
      hostWentDown('down'),
    ];
    const report = await spec
      .given(given)
      .when((app) => app.report(admin, frame(10, 11)))
      .then([]);
    expect(report.zones[0]?.slots.map((s) => s.capacity)).toEqual([{ vcpus: 8 + 8, memoryMb: 16384 + 16384, diskGb: 100 + 0 }]);
  });

  it('reports each availability zone on its own', async () => {
    const given = [
      hostRegistered('1', {}, { availabilityZone: 'zone-b' }),
      hostRegistered('2', {}, { availabilityZone: 'zone-a' }),
      hostRegistered('3', {}, { availabilityZone: 'zone-b' }),
      hostBooked('3', 'r', { start: 10, end: 11 }),
    ];
    const report = await spec
      .given(given)
      .when((app) => app.report(admin, frame(10, 11)))
      .then([]);
    expect(
      report.zones.map((z) => [z.availabilityZone, z.hosts[0]?.enrolled, z.hosts[0]?.reservedWhole, z.hosts[0]?.largestRequest]),
    ).toEqual([
      ['zone-a', 1, 0, 1],
      ['zone-b', 2, 1, 1],
    ]);
  });

  it('names, per lease of two hosts or more, how many of them share one failure domain', async () => {
    const given = [
      hostRegistered('1', { rack: 'r-a' }),
      hostRegistered('2', { rack: 'r-a' }),
      hostRegistered('3', { rack: 'r-b' }),
      hostRegistered('4'),
      ...['1', '2', '3'].map((h) => hostBooked(h, `wide-${h}`, { leaseId: 'lease-wide' })),
      hostBooked('4', 'lone', { leaseId: 'lease-lone' }),
      slotsBooked('3', 'pair-3', SLOT, { leaseId: 'lease-pair', start: 18, end: 20 }),
      slotsBooked('4', 'pair-4', SLOT, { leaseId: 'lease-pair', start: 18, end: 20 }),
      hostBooked('1', 'later', { leaseId: 'lease-later', start: 22, end: 23 }),
      hostBooked('2', 'later-2', { leaseId: 'lease-later', start: 22, end: 23 }),
    ];
    const report = await spec
      .given(given)
      .when((app) => app.report(admin, frame(9, 21, { failureDomain: 'rack' })))
      .then([]);
    expect(report.leases).toEqual([
      { leaseId: 'lease-wide', hosts: 3, domains: 2, largestShare: { value: 'r-a', hosts: 2 }, unlabelled: 0 },
      { leaseId: 'lease-pair', hosts: 2, domains: 1, largestShare: { value: 'r-b', hosts: 1 }, unlabelled: 1 },
    ]);
    expect(
      (
        await spec
          .given(given)
          .when((app) => app.report(admin, frame(9, 21)))
          .then([])
      ).leases,
    ).toBeNull();
  });

  it('counts per step the network segments of each type and physical network: registered, held at the start, booked, free, peak', async () => {
    const gone = segment('gone', 'vlan', 'physnet1', 103);
    const given = [
      segmentRegistered(segment('a', 'vlan', 'physnet1', 101)),
      segmentRegistered(segment('b', 'vlan', 'physnet1', 102)),
      segmentRegistered(segment('c', 'vlan', 'physnet2', 201)),
      segmentRegistered(segment('d', 'vxlan', null, 5000)),
      segmentRegistered(segment('e', 'flat', 'physnet3', null)),
      segmentRegistered(gone),
      { streamId: networkStream('gone'), type: 'NetworkSegment.Unregistered', data: { ...gone, unregisteredAt: at(1) } },
      segmentBooked('a', 'ra', at(10), at(12)),
      segmentBooked('b', 'rb', minute(10, 30), at(11)),
      segmentBooked('c', 'rc', at(11), at(13)),
    ];
    const report = await spec
      .given(given)
      .when((app) => app.report(admin, frame(9, 13)))
      .then([]);
    expect(report.kinds.map((pool) => [pool.kind, pool.group])).toEqual([
      [
        'network',
        [
          ['network_type', 'flat'],
          ['physical_network', 'physnet3'],
        ],
      ],
      [
        'network',
        [
          ['network_type', 'vlan'],
          ['physical_network', 'physnet1'],
        ],
      ],
      [
        'network',
        [
          ['network_type', 'vlan'],
          ['physical_network', 'physnet2'],
        ],
      ],
      [
        'network',
        [
          ['network_type', 'vxlan'],
          ['physical_network', null],
        ],
      ],
    ]);
    const rows = report.kinds.map((pool) => pool.steps.map((s) => [s.registered, s.bookedAtStart, s.booked, s.free, s.peakUtilisation]));
    expect(report.kinds[1]?.steps.map((s) => new Date(s.start).toISOString())).toEqual([9, 10, 11, 12].map(at));
    expect(rows).toEqual([
      [9, 10, 11, 12].map(() => [1, 0, 0, 1, 0]),
      // b is held from 10:30 to 11:00 only: not at 10:00, but at the peak of that hour; not in the next (half-open)
      [
        [2, 0, 0, 2, 0],
        [2, 1, 2, 0, 1],
        [2, 1, 1, 1, 0.5],
        [2, 0, 0, 2, 0],
      ],
      [
        [1, 0, 0, 1, 0],
        [1, 0, 0, 1, 0],
        [1, 1, 1, 0, 1],
        [1, 1, 1, 0, 1],
      ],
      [9, 10, 11, 12].map(() => [1, 0, 0, 1, 0]),
    ]);
  });

  it('refuses a member, a range that does not go forward, and more steps than it answers', async () => {
    await spec
      .given([hostRegistered('1')])
      .when((app) => app.report(testCaller('member'), frame(9, 10)))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED' });
    await spec
      .given([hostRegistered('1')])
      .when((app) => app.report(admin, frame(10, 10)))
      .thenThrows({ code: 'INVALID_RANGE' });
    await spec
      .given([hostRegistered('1')])
      .when((app) =>
        app.report(
          admin,
          frame(0, 23, { stepMinutes: 1, end: new Date(Date.parse(at(0)) + (MAX_CAPACITY_STEPS + 1) * 60_000).toISOString() }),
        ),
      )
      .thenThrows({ code: 'TOO_MANY_STEPS' });
    const exact = await spec
      .given([hostRegistered('1')])
      .when((app) =>
        app.report(admin, frame(0, 23, { stepMinutes: 1, end: new Date(Date.parse(at(0)) + MAX_CAPACITY_STEPS * 60_000).toISOString() })),
      )
      .then([]);
    expect(exact.zones[0]?.hosts).toHaveLength(MAX_CAPACITY_STEPS);
  });

  it('counts no host for a request that would end after 9999-12-31 23:59, the last instant a date may be', async () => {
    const report = await spec
      .given([hostRegistered('1'), hostRegistered('2')])
      .when((app) =>
        app.report(admin, { ...frame(0, 0, { requestMinutes: 120 }), start: '9999-12-31T20:00:00.000Z', end: '9999-12-31T23:59:00.000Z' }),
      )
      .then([]);
    expect(report.zones[0]?.hosts.map((s) => [new Date(s.start).toISOString().slice(11, 16), s.free, s.largestRequest])).toEqual([
      ['20:00', 2, 2],
      ['21:00', 2, 2],
      ['22:00', 2, 0],
      ['23:00', 2, 0],
    ]);
  });
});
