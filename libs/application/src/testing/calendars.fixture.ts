/**
 * Test-only: real calendars (a BookingPlan over a WriteIndex folded from an in-memory SQLite log) for
 * the specs of the booking plan and of each type's admission, with the events they decided.
 */
import { type Flavor, type HostInfo, type SlotDemand, floatingIpStream, hostStream } from '#domain/index.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { AdmissionContext, AdmissionSchedule } from '#plugins/admission/admission.port.js';
import { BookingPlan, type BookingPlanOptions } from '../write-model/booking-plan.js';
import { WriteIndex } from '../write-model/write-index.js';
import { type StreamEvent, appendGiven } from './given-events.js';

export const REGISTERED_AT = '2029-12-31T12:00:00.000Z';
export const DOWN_AT = '2030-01-01T00:30:00.000Z';

/** A host of 8 vcpus, 16384 MB and 100 GB, named compute-<id>. */
export const hostRegistered = (hostId: string, capabilities: Record<string, string> = {}, info: Partial<HostInfo> = {}): StreamEvent => ({
  streamId: hostStream(hostId),
  type: 'Host.Registered',
  data: {
    hostId,
    info: {
      hypervisorHostname: `compute-${hostId}`,
      serviceName: 'nova-compute',
      vcpus: 8,
      memoryMb: 16384,
      localGb: 100,
      cpuInfo: '{}',
      hypervisorType: 'QEMU',
      hypervisorVersion: 6002000,
      availabilityZone: 'nova',
      ...info,
    },
    capabilities,
    registeredAt: REGISTERED_AT,
  },
});

export const hostWentDown = (hostId: string): StreamEvent => ({
  streamId: hostStream(hostId),
  type: 'Host.WentDown',
  data: { hostId, reasons: ['forced_down'], source: 'polling', observedAt: DOWN_AT },
});

/** 2030-01-01 at `hour`:00 UTC. */
export const at = (hour: number): string => `2030-01-01T${String(hour).padStart(2, '0')}:00:00.000Z`;

/** Where the specs' reservations are booked: lease `lease-1`, 10:00 to 18:00 unless told. */
export interface Span {
  readonly leaseId?: string;
  readonly start?: number;
  readonly end?: number;
}

const span = ({ leaseId = 'lease-1', start = 10, end = 18 }: Span) => ({ leaseId, startDate: at(start), endDate: at(end) });

export const hostBooked = (
  hostId: string,
  reservationId: string,
  where: Span = {},
  propertyNames: readonly string[] = [],
): StreamEvent => ({
  streamId: hostStream(hostId),
  type: 'Host.Booked',
  data: { hostId, reservationId, ...span(where), propertyNames },
});

export const slotsBooked = (hostId: string, reservationId: string, slots: SlotDemand, where: Span = {}): StreamEvent => ({
  streamId: hostStream(hostId),
  type: 'Host.SlotsBooked',
  data: { hostId, reservationId, ...span(where), propertyNames: [], slots },
});

export const floatingIpBooked = (floatingIpId: string, reservationId: string, where: Span = {}): StreamEvent => ({
  streamId: floatingIpStream(floatingIpId),
  type: 'FloatingIp.Booked',
  data: { floatingIpId, reservationId, ...span(where) },
});

export const floatingIpRegistered = (floatingIpId: string, address: string, networkId = 'net-1'): StreamEvent => ({
  streamId: floatingIpStream(floatingIpId),
  type: 'FloatingIp.Registered',
  data: { floatingIpId, networkId, subnetId: null, address, registeredAt: REGISTERED_AT },
});

export const flavorAdded = (flavor: Flavor): StreamEvent => ({
  streamId: 'flavorcatalog-main',
  type: 'FlavorCatalog.FlavorAdded',
  data: { flavor, addedAt: REGISTERED_AT },
});

export interface GivenCalendars {
  readonly plan: BookingPlan;
  readonly index: WriteIndex;
  /** What the plan decided so far, one entry per event, in append order. */
  decided(): StreamEvent[];
  /** An admission context over the plan: ids `id-1`, `id-2`... */
  admission(schedule: AdmissionSchedule, isAdmin?: boolean): AdmissionContext;
}

const OPTIONS: BookingPlanOptions = { cleaningTimeMinutes: 0, allocationRatios: { cpu: 1, ram: 1, disk: 1 } };

/** Calendars as `given` leaves them; `run` gets them and they are closed afterwards. */
export const withCalendars = async <R>(
  given: readonly StreamEvent[],
  run: (calendars: GivenCalendars) => R | Promise<R>,
  options = OPTIONS,
): Promise<R> => {
  const store = SqliteEventStore.open({ file: ':memory:' });
  try {
    await appendGiven(store, given);
    const index = new WriteIndex(store);
    await index.catchUp();
    const plan = new BookingPlan(index, options);
    let ids = 0;
    const newId = (): string => `id-${++ids}`;
    const metadata = { correlationId: 'spec', causationId: 'spec', actor: null };
    return await run({
      plan,
      index,
      decided: () =>
        plan
          .appends(metadata, () => 'event')
          .flatMap((append) => append.events.map(({ type, data }) => ({ streamId: append.streamId, type, data }))),
      admission: (schedule, isAdmin = false) => ({
        calendars: plan,
        schedule,
        caller: { isAdmin },
        flavors: index.flavorCatalog().state,
        newId,
      }),
    });
  } finally {
    await store.close();
  }
};
