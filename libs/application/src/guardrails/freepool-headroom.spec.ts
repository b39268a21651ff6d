import { describe, expect, it } from 'vitest';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { patchOf } from '#plugins/testing/reservation-patch.fixture.js';
import { parseZoneRule } from '#plugins/zone-rule.js';
import type { CreateLeaseRequest, UpdateLeaseRequest } from '../leases/lease.commands.js';
import { LeaseUseCases } from '../leases/lease.use-cases.js';
import { at, hostBooked, hostRegistered, hostWentDown } from '../testing/calendars.fixture.js';
import {
  DEFAULT_SETTINGS,
  type StreamEvent,
  applicationSpecification,
  commandMetadata,
  testCaller,
} from '../testing/application.specification.js';
import { AvailabilityQueries } from '../availability/availability.queries.js';
import { CapacityRefused } from '../availability/counter-offer.js';

const NOW = at(9);
const member = commandMetadata(testCaller('member'), NOW);
const admin = commandMetadata(testCaller('admin', 'project-9'), NOW);

/** The headroom rule under test; the floor plays no part in admission. */
const withHeadroom = (text: string) =>
  applicationSpecification((context) => new LeaseUseCases(context), {
    ...DEFAULT_SETTINGS,
    guardrails: {
      freepoolHeadroom: parseZoneRule('LEASEHOLD_FREEPOOL_HEADROOM', text, { percentAllowed: false }),
      generalPoolFloor: parseZoneRule('LEASEHOLD_GENERAL_POOL_FLOOR', '', { percentAllowed: true }),
      standaloneZoneHosts: parseZoneRule('LEASEHOLD_STANDALONE_ZONE_HOSTS', '', { percentAllowed: false }),
    },
  });

const hosts = (n: number, zone = 'nova', from = 1): StreamEvent[] =>
  Array.from({ length: n }, (_, i) => hostRegistered(String(from + i), {}, { availabilityZone: zone }));
const request = (min: number, fields: Partial<CreateLeaseRequest> = {}): CreateLeaseRequest => ({
  name: 'lease',
  startDate: at(10),
  endDate: at(18),
  beforeEndDate: null,
  reservations: [buildHostRequest({ min, max: min, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default' })],
  ...fields,
});
const create =
  (metadata = member, data = request(1)) =>
  (leases: LeaseUseCases) =>
    leases.create({ type: 'CreateLease', data, metadata });
const changes = (fields: Partial<UpdateLeaseRequest>): UpdateLeaseRequest => ({
  name: null,
  startDate: null,
  endDate: null,
  beforeEndDate: null,
  reservations: [],
  ...fields,
});

describe('freepool headroom rule (LEASEHOLD_FREEPOOL_HEADROOM)', () => {
  describe('Given zone nova with 3 free hosts and a rule keeping 2', () => {
    it('When a member leases 1 host, then it is admitted: 2 stay free', async () => {
      await withHeadroom('2')
        .given(hosts(3))
        .when(create())
        .then([expect.objectContaining({ type: 'Lease.Created' }), expect.objectContaining({ type: 'Host.Booked' })]);
    });

    it('When a member leases 2 hosts, then 409 names the rule, the zone, the instant and the counts, and nothing is written', async () => {
      await withHeadroom('2')
        .given(hosts(3))
        .when(create(member, request(2)))
        .thenThrows({
          code: 'FREEPOOL_HEADROOM',
          kind: 'conflict',
          message:
            'Lease refused by the freepool headroom rule (LEASEHOLD_FREEPOOL_HEADROOM): it would leave 1 free host in zone nova (at 2030-01-01T10:00:00.000Z), the rule keeps 2',
        });
    });

    it('When an admin leases 2 hosts, then it is admitted and the lease records the override', async () => {
      await withHeadroom('2')
        .given(hosts(3))
        .when(create(admin, request(2)))
        .then([
          expect.objectContaining({ type: 'Lease.Created' }),
          {
            streamId: 'lease-id-1',
            type: 'Lease.GuardrailOverridden',
            data: { leaseId: 'id-1', rule: 'freepool_headroom', zone: 'nova', freeHosts: 1, keep: 2, instant: at(10), at: NOW },
          },
          expect.objectContaining({ type: 'Host.Booked' }),
          expect.objectContaining({ type: 'Host.Booked' }),
        ]);
    });
  });

  it('Given 4 hosts, one taken from 14:00 by another lease, and a rule keeping 3, when a member leases one for 10:00-18:00, then the refusal names 14:00', async () => {
    await withHeadroom('3')
      .given([...hosts(4), hostBooked('4', 'other', { leaseId: 'lease-0', start: 14, end: 20 })])
      .when(create(member, request(1)))
      .thenThrows({
        code: 'FREEPOOL_HEADROOM',
        message: expect.stringContaining('leave 2 free hosts in zone nova (at 2030-01-01T14:00:00.000Z)') as unknown,
      });
  });

  it('Given a down host, when a member leases, then the down host is not counted as free', async () => {
    await withHeadroom('2')
      .given([...hosts(3), hostWentDown('3')])
      .when(create())
      .thenThrows({ code: 'FREEPOOL_HEADROOM' });
  });

  it('Given a rule for zone az2 only, when a member takes all of nova, then nova is not judged', async () => {
    await withHeadroom('az2:1')
      .given(hosts(2))
      .when(create(member, request(2)))
      .then([
        expect.objectContaining({ type: 'Lease.Created' }),
        expect.objectContaining({ type: 'Host.Booked' }),
        expect.objectContaining({ type: 'Host.Booked' }),
      ]);
  });

  it('Given a per-zone rule, when a member leases in az2, then az2 keeps its own count', async () => {
    await withHeadroom('1,az2:3')
      .given([...hosts(3, 'az2'), ...hosts(2, 'nova', 10)])
      .when(
        create(
          member,
          request(1, {
            reservations: [
              buildHostRequest({
                min: 1,
                max: 1,
                hypervisorProperties: '["==", "$availability_zone", "az2"]',
                resourceProperties: '',
                beforeEnd: 'default',
              }),
            ],
          }),
        ),
      )
      .thenThrows({ code: 'FREEPOOL_HEADROOM', message: expect.stringContaining('leave 2 free hosts in zone az2') as unknown });
  });

  describe('Given a member lease of 1 host on 10:00-18:00 in a zone of 3 hosts, rule 1', () => {
    const leased = (): StreamEvent[] => [
      ...hosts(3),
      hostBooked('1', 'r1'),
      hostBooked('2', 'r0', { leaseId: 'lease-0' }),
      {
        streamId: 'lease-lease-1',
        type: 'Lease.Created',
        data: {
          leaseId: 'lease-1',
          name: 'lease',
          projectId: 'project-1',
          userId: 'member-user',
          trustId: null,
          startDate: at(10),
          endDate: at(18),
          beforeEndDate: at(17),
          reservations: [
            {
              id: 'r1',
              resourceId: 'x',
              resourceType: 'physical:host',
              min: 1,
              max: 1,
              hypervisorProperties: '',
              resourceProperties: '',
              beforeEnd: 'default',
              hostIds: ['1'],
            },
          ],
          eventIds: { start: 'a', end: 'b', beforeEnd: 'c' },
          createdAt: at(8),
        },
      },
    ];
    const update = (metadata: typeof member, data: UpdateLeaseRequest) => (leases: LeaseUseCases) =>
      leases.update({ type: 'UpdateLease', data: { leaseId: 'lease-1', changes: data }, metadata });

    it('When the member shortens it, then it is admitted: a change that frees capacity is never refused', async () => {
      await withHeadroom('2')
        .given(leased())
        .when(update(member, changes({ endDate: at(12) })))
        .then([expect.objectContaining({ type: 'Lease.Rescheduled' }), expect.objectContaining({ type: 'Host.BookingMoved' })]);
    });

    it('When the member moves it to where the other lease has ended, then it is admitted; to 2 hosts, refused', async () => {
      await withHeadroom('1')
        .given(leased())
        .when(update(member, changes({ startDate: at(18), endDate: at(20) })))
        .then([expect.objectContaining({ type: 'Lease.Rescheduled' }), expect.objectContaining({ type: 'Host.BookingMoved' })]);
      await withHeadroom('1')
        .given(leased())
        .when(update(member, changes({ reservations: [patchOf('r1', { min: 2, max: 2 })] })))
        .thenThrows({ code: 'FREEPOOL_HEADROOM', message: expect.stringContaining('leave 0 free hosts in zone nova') as unknown });
    });
  });
});

describe('the freepool headroom rule in the window search and counter-offers', () => {
  const searchWithHeadroom = (text: string) =>
    applicationSpecification((context) => new AvailabilityQueries(context), {
      ...DEFAULT_SETTINGS,
      guardrails: {
        freepoolHeadroom: parseZoneRule('LEASEHOLD_FREEPOOL_HEADROOM', text, { percentAllowed: false }),
        generalPoolFloor: parseZoneRule('LEASEHOLD_GENERAL_POOL_FLOOR', '', { percentAllowed: true }),
        standaloneZoneHosts: parseZoneRule('LEASEHOLD_STANDALONE_ZONE_HOSTS', '', { percentAllowed: false }),
      },
    });
  const oneHost = buildHostRequest({ min: 1, max: 1, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default' });
  const ask = { reservations: [oneHost], durationMinutes: 120, notBefore: at(10), notAfter: null, limit: 2 };
  // 3 hosts, one taken 10:00-14:00: a member's lease before 14:00 would leave 1 free host, the rule keeps 2
  const calendar = [...hosts(3), hostBooked('3', 'other', { leaseId: 'lease-0', start: 10, end: 14 })];

  it("Given the rule, when a member asks for a window, then only windows the rule admits are offered (the earliest after the other lease's end)", async () => {
    const answer = await searchWithHeadroom('2')
      .given(calendar)
      .when((app) => app.windows(testCaller('member'), ask, NOW))
      .then([]);
    expect(answer.windows.map((w) => [w.startDate, w.endDate])).toEqual([
      [at(14), at(16)],
      [at(16), at(18)],
    ]);
  });

  it('Given the rule, when an admin asks, then the rule does not apply: the windows start at once', async () => {
    const answer = await searchWithHeadroom('2')
      .given(calendar)
      .when((app) => app.windows(testCaller('admin', 'project-9'), ask, NOW))
      .then([]);
    expect(answer.windows.map((w) => w.startDate)).toEqual([at(10), at(12)]);
  });

  it("Given the rule, when a member's lease is refused by it, then the refusal offers the windows the rule admits", async () => {
    const refusal = await withHeadroom('2')
      .given(calendar)
      .when((leases) =>
        leases.create({ type: 'CreateLease', data: request(1, { startDate: at(10), endDate: at(12) }), metadata: member }).then(
          () => null,
          (error: unknown) => error,
        ),
      )
      .then([]);
    expect(refusal).toBeInstanceOf(CapacityRefused);
    expect(refusal).toMatchObject({
      code: 'FREEPOOL_HEADROOM',
      alternatives: [
        { startDate: at(14), endDate: at(16) },
        { startDate: at(16), endDate: at(18) },
        { startDate: at(18), endDate: at(20) },
      ],
    });
  });
});
