import { describe, expect, it } from 'vitest';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import { systemCaller } from '../caller.js';
import { at, hostBooked, hostRegistered, hostWentDown } from '../testing/calendars.fixture.js';
import { type StreamEvent, applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import { type HealReservations, HealingUseCase } from './healing.use-case.js';

const NOW = at(9);
const spec = applicationSpecification((context) => new HealingUseCase(context, { intervalMinutes: 60 }));
const pass = (now = NOW, actor = systemCaller('healing')): ((healing: HealingUseCase) => ReturnType<HealingUseCase['pass']>) => {
  const command: HealReservations = { type: 'HealReservations', data: {}, metadata: commandMetadata(actor, now) };
  return (healing) => healing.pass(command);
};

const GPU = JSON.stringify(['==', '$gpu', 'true']);
const held = (leaseId: string, hostIds: readonly string[]): HostReservation => ({
  id: `r-${leaseId}`,
  resourceId: `resource-${leaseId}`,
  resourceType: 'physical:host',
  min: 1,
  max: 1,
  hypervisorProperties: '',
  resourceProperties: GPU,
  beforeEnd: 'default',
  hostIds,
});
const lease = (leaseId: string, start: string, end: string, reservation: HostReservation): StreamEvent => ({
  streamId: `lease-${leaseId}`,
  type: 'Lease.Created',
  data: {
    leaseId,
    name: leaseId,
    projectId: 'project-1',
    userId: 'user-1',
    trustId: null,
    startDate: start,
    endDate: end,
    beforeEndDate: null,
    reservations: [reservation],
    eventIds: { start: 's', end: 'e', beforeEnd: 'b' },
    createdAt: at(8),
  },
});
const gpuHosts = [hostRegistered('1', { gpu: 'true' }), hostRegistered('2', { gpu: 'true' }), hostRegistered('3')];
/** lease-a holds host 1 from 09:30, within the hour's healing window; host 1 went down. */
const soon = [
  ...gpuHosts,
  hostBooked('1', 'r-a', { leaseId: 'a', start: 9, end: 18 }),
  lease('a', '2030-01-01T09:30:00.000Z', at(18), held('a', ['1'])),
  hostWentDown('1'),
];
const healed = (reservation: HostReservation, fields: Record<string, unknown>): StreamEvent => ({
  streamId: 'lease-a',
  type: 'Reservation.Healed',
  data: {
    leaseId: 'a',
    reservation,
    replacements: [],
    unhealedHostIds: [],
    missingResources: false,
    resourcesChanged: false,
    at: NOW,
    ...fields,
  },
});

describe('the healing pass', () => {
  it('replaces a down host within the healing window with a free matching one, from now on, in one append', async () => {
    const result = await spec
      .given(soon)
      .when(pass())
      .then([
        healed(held('a', ['2']), { replacements: [{ hostId: '1', by: ['2'] }] }),
        { streamId: 'host-1', type: 'Host.BookingReleased', data: { hostId: '1', reservationId: 'r-a', leaseId: 'a' } },
        {
          streamId: 'host-2',
          type: 'Host.Booked',
          data: {
            hostId: '2',
            reservationId: 'r-a',
            leaseId: 'a',
            startDate: '2030-01-01T09:30:00.000Z',
            endDate: at(18),
            propertyNames: ['gpu'],
          },
        },
      ]);
    expect(result).toEqual({
      downHostIds: ['1'],
      examined: 1,
      healed: [{ leaseId: 'a', reservationId: 'r-a', replacements: [{ hostId: '1', by: ['2'] }], unhealedHostIds: [] }],
      deferred: [],
    });
  });

  it('flags what nothing can replace, once: a later pass records nothing more', async () => {
    const busy = [...soon, hostBooked('2', 'other', { leaseId: 'other', start: 9, end: 18 })];
    await spec
      .given(busy)
      .when(pass())
      .then([healed(held('a', ['1']), { unhealedHostIds: ['1'], missingResources: true })]);
    await spec
      .given([...busy, healed(held('a', ['1']), { unhealedHostIds: ['1'], missingResources: true })])
      .when(pass())
      .then([]);
  });

  it('leaves reservations beyond the healing window for a later pass', async () => {
    const later = [
      ...gpuHosts,
      hostBooked('1', 'r-a', { leaseId: 'a', start: 12, end: 18 }),
      lease('a', at(12), at(18), held('a', ['1'])),
      hostWentDown('1'),
    ];
    const result = await spec.given(later).when(pass()).then([]);
    expect(result).toMatchObject({ downHostIds: ['1'], examined: 0 });
  });

  it('defers a lease that is starting, and records nothing for it', async () => {
    const starting: StreamEvent = {
      streamId: 'lease-a',
      type: 'Lease.StartRequested',
      data: { leaseId: 'a', at: '2030-01-01T09:30:00.000Z' },
    };
    const result = await spec
      .given([...soon, starting])
      .when(pass(at(9)))
      .then([]);
    expect(result.deferred).toEqual([{ leaseId: 'a', reason: 'lease a is starting; healed at a later pass' }]);
  });

  it("is the service's own: a user may not run it (403)", async () => {
    await spec
      .given(soon)
      .when(pass(NOW, testCaller('admin')))
      .thenThrows({ code: 'HEALING_IS_INTERNAL', kind: 'forbidden' });
  });
});
