import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MINUTE_MS, hostStream, floatingIpStream } from '#domain/index.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { ADMISSION_REGISTRY, Admissions } from '#plugins/admission/admission.registry.js';
import type { ReservationRequest } from '#plugins/reservation-types.js';
import { buildInstanceRequest } from '#plugins/instance/instance-reservation.request.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import type { ApplicationContext } from '../application-context.js';
import { CommandHandler } from '../command-handler.js';
import { LeaseUseCases } from '../leases/lease.use-cases.js';
import { at, floatingIpRegistered, hostRegistered } from '../testing/calendars.fixture.js';
import { DEFAULT_SETTINGS, commandMetadata, testCaller } from '../testing/application.specification.js';
import { type StreamEvent, appendGiven } from '../testing/given-events.js';
import { admissionContext, bookingPlan } from '../write-model/lease-admission.js';
import { WriteIndex } from '../write-model/write-index.js';
import { AvailabilityQueries } from './availability.queries.js';
import { isCapacityRefusal } from './window-search.js';

const NOW = at(9);
const BASE = Date.parse(NOW);
const RANGE_MINUTES = 10 * 60;
const member = testCaller('member');
const iso = (minute: number): string => new Date(BASE + minute * MINUTE_MS).toISOString();

interface Calendar {
  readonly cleaning: number;
  readonly hosts: readonly {
    readonly gpu: boolean;
    readonly slots: boolean;
    readonly spans: readonly (readonly [number, number])[];
    /** Maintenance windows, scheduled after the bookings (which they may overlap, as a window over booked time does). */
    readonly windows: readonly (readonly [number, number])[];
  }[];
  readonly ips: readonly (readonly (readonly [number, number])[])[];
}

/** Start-sorted spans (minutes from now) that keep `gap` apart, as a calendar's deciders would have allowed. */
const disjoint = (raw: readonly (readonly [number, number])[], gap: number): [number, number][] => {
  const kept: [number, number][] = [];
  for (const [start, length] of [...raw].sort((a, b) => a[0] - b[0])) {
    const last = kept.at(-1);
    if (last === undefined || start >= last[1] + gap) kept.push([start, start + length]);
  }
  return kept;
};

const spans = fc.array(fc.tuple(fc.integer({ min: -120, max: RANGE_MINUTES }), fc.integer({ min: 1, max: 180 })), { maxLength: 4 });

const calendars: fc.Arbitrary<Calendar> = fc
  .record({
    cleaning: fc.constantFrom(0, 7, 30),
    hosts: fc.array(fc.record({ gpu: fc.boolean(), slots: fc.boolean(), spans, windows: spans }), { minLength: 1, maxLength: 3 }),
    ips: fc.array(spans, { maxLength: 2 }),
  })
  .map(({ cleaning, hosts, ips }) => ({
    cleaning,
    // slot bookings may overlap each other (two of 4 vcpus fill a host of 8): at most two of them
    hosts: hosts.map((h) => ({
      ...h,
      spans: h.slots ? h.spans.slice(0, 2).map(([s, l]) => [s, s + l] as const) : disjoint(h.spans, cleaning),
      windows: disjoint(h.windows.slice(0, 2), 0),
    })),
    ips: ips.map((raw) => disjoint(raw, cleaning)),
  }));

const reservation: fc.Arbitrary<ReservationRequest> = fc.oneof(
  fc.record({ min: fc.integer({ min: 1, max: 2 }), gpu: fc.boolean() }).map(({ min, gpu }) =>
    buildHostRequest({
      min,
      max: min,
      hypervisorProperties: '',
      resourceProperties: gpu ? '["=", "$gpu", "true"]' : '',
      beforeEnd: 'default',
    }),
  ),
  fc
    .record({ amount: fc.integer({ min: 1, max: 3 }), vcpus: fc.constantFrom(2, 4), affinity: fc.constantFrom(null, true, false) })
    .map(({ amount, vcpus, affinity }) =>
      buildInstanceRequest({ amount, vcpus, memoryMb: 1024, diskGb: 10, affinity, resourceProperties: '' }),
    ),
  fc
    .integer({ min: 1, max: 2 })
    .map((amount): ReservationRequest => ({ resourceType: 'virtual:floatingip', networkId: 'net-1', amount, requiredFloatingIps: [] })),
);

const given = (calendar: Calendar): StreamEvent[] => [
  ...calendar.hosts.flatMap((host, i) => [
    hostRegistered(String(i + 1), host.gpu ? { gpu: 'true' } : {}),
    ...host.spans.map(([start, end], j) => {
      const where = {
        hostId: String(i + 1),
        reservationId: `h${i}-${j}`,
        leaseId: `l-h${i}-${j}`,
        startDate: iso(start),
        endDate: iso(end),
        propertyNames: [],
      };
      return host.slots
        ? {
            streamId: hostStream(String(i + 1)),
            type: 'Host.SlotsBooked',
            data: { ...where, slots: { count: 1, vcpus: 4, memoryMb: 1024, diskGb: 10 } },
          }
        : { streamId: hostStream(String(i + 1)), type: 'Host.Booked', data: where };
    }),
    ...host.windows.map(([start, end], j) => ({
      streamId: hostStream(String(i + 1)),
      type: 'Host.MaintenanceScheduled',
      data: {
        hostId: String(i + 1),
        windowId: `m${i}-${j}`,
        startDate: iso(start),
        endDate: iso(end),
        reason: 'firmware',
        scheduledAt: NOW,
      },
    })),
  ]),
  ...calendar.ips.flatMap((ip, i) => [
    floatingIpRegistered(`f${i}`, `10.0.0.${i + 1}`),
    ...ip.map(([start, end], j) => ({
      streamId: floatingIpStream(`f${i}`),
      type: 'FloatingIp.Booked',
      data: { floatingIpId: `f${i}`, reservationId: `f${i}-${j}`, leaseId: `l-f${i}-${j}`, startDate: iso(start), endDate: iso(end) },
    })),
  ]),
];

const contextOver = async (events: readonly StreamEvent[], cleaningTimeMinutes: number) => {
  const store = SqliteEventStore.open({ file: ':memory:' });
  await appendGiven(store, events);
  let ids = 0;
  const index = new WriteIndex(store);
  await index.catchUp();
  const context: ApplicationContext = {
    handler: new CommandHandler(store),
    index,
    settings: { ...DEFAULT_SETTINGS, cleaningTimeMinutes },
    newId: () => `id-${++ids}`,
  };
  return { store, context };
};

/** The admission at [start, start + duration) minutes from now, asked directly (no search involved). */
const admitsAt = (context: ApplicationContext, requests: readonly ReservationRequest[], start: number, duration: number): boolean => {
  const admissions = new Admissions(ADMISSION_REGISTRY);
  const admission = admissionContext(
    context,
    bookingPlan(context),
    { leaseId: 'brute', startDate: iso(start), endDate: iso(start + duration) },
    member,
  );
  try {
    for (const request of requests) admissions.admit(admission, request);
    return true;
  } catch (error) {
    if (isCapacityRefusal(error)) return false;
    throw error;
  }
};

/** A lease at the window, created through the write path on a fresh copy of the calendars: its events, or the refusal's code. */
const leaseCreatedAt = async (
  events: readonly StreamEvent[],
  cleaning: number,
  requests: readonly ReservationRequest[],
  window: { readonly startDate: string; readonly endDate: string },
) => {
  const { store, context } = await contextOver(events, cleaning);
  try {
    const data = { name: 'offer', startDate: window.startDate, endDate: window.endDate, beforeEndDate: null, reservations: requests };
    const written = await new LeaseUseCases(context).create({ type: 'CreateLease', data, metadata: commandMetadata(member, NOW) });
    return written.events.map((e) => e.type);
  } catch (error) {
    return (error as { readonly code?: string }).code;
  } finally {
    await store.close();
  }
};

describe('the window search agrees with admission', () => {
  it('every window it offers is admitted as a lease, and no minute before it (or between two) would have been', async () => {
    await fc.assert(
      fc.asyncProperty(
        calendars,
        fc.array(reservation, { minLength: 1, maxLength: 2 }),
        fc.integer({ min: 1, max: 240 }),
        async (calendar, requests, duration) => {
          const events = given(calendar);
          const { store, context } = await contextOver(events, calendar.cleaning);
          const request = { reservations: requests, durationMinutes: duration, notBefore: null, notAfter: iso(RANGE_MINUTES), limit: 3 };
          try {
            const windows = (await new AvailabilityQueries(context).windows(member, request, NOW)).windows;
            let from = 0;
            for (const window of windows) {
              const start = (Date.parse(window.startDate) - BASE) / MINUTE_MS;
              for (let minute = from; minute < start; minute++)
                expect(admitsAt(context, requests, minute, duration), `minute ${minute}`).toBe(false);
              expect(await leaseCreatedAt(events, calendar.cleaning, requests, window)).toEqual(['Lease.Created']);
              from = start + duration;
            }
            // fewer than asked: nothing else fits before not_after
            if (windows.length < 3)
              for (let minute = from; minute + duration <= RANGE_MINUTES; minute++)
                expect(admitsAt(context, requests, minute, duration), `minute ${minute}`).toBe(false);
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
