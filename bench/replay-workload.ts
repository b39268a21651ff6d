import { randomUUID } from 'node:crypto';
import { HOST_REGISTRY_STREAM, type HostEvent, type HostRegistryEvent, type LeaseEvent, hostStream, leaseStream } from '#domain/index.js';
import type { AppendRequest, EventMetadata, EventStore } from '#event-store/event-store.port.js';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';

/**
 * A generated ledger for the replay bench: hosts registered, then leases that go through a real
 * life — created with a booking on a host, renamed (one in four also rescheduled, its booking moved),
 * started and ended by the reactor with the effects it records — written through the store's own
 * batch append (appendMultiple), each phase of up to `hosts` leases in one append, so that the log
 * interleaves leases as a busy service's does. Events are typed as the deciders' events: the
 * projections fold them as they fold the service's.
 */

const HOUR = 3_600_000;
const BASE = Date.parse('2031-01-01T00:00:00.000Z');

export interface GeneratedLedger {
  readonly events: number;
  readonly leases: number;
  readonly hosts: number;
  /** A lease with `historyEvents` events in its history (its own and its bookings). */
  readonly longLeaseId: string;
}

export interface GenerateOptions {
  /** At least this many events are written. */
  readonly events: number;
  readonly hosts?: number;
  readonly historyEvents?: number;
  /** When the first leases start (default 2031-01-01: all in the future; a past base makes a history of ended leases). */
  readonly base?: number;
  readonly onProgress?: (written: number) => void;
}

const iso = (ms: number): string => new Date(ms).toISOString();

const user = (lease: number): EventMetadata => {
  const request = `req-${randomUUID()}`;
  return {
    correlationId: request,
    causationId: request,
    actor: { userId: `user-${lease % 97}`, projectId: `project-${lease % 13}` },
    requestId: request,
  };
};
const reactor = (): EventMetadata => {
  const id = randomUUID();
  return { correlationId: id, causationId: id, actor: null, system: 'reactor' };
};

const request = (
  streamId: string,
  events: readonly (LeaseEvent | HostEvent | HostRegistryEvent)[],
  metadata: EventMetadata,
): AppendRequest => ({
  streamId,
  expectedRevision: 'any',
  events: events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data, metadata })),
});

const hostEvents = (hostId: string, base: number): [HostRegistryEvent, HostEvent] => {
  const hypervisorHostname = `compute-${hostId.padStart(5, '0')}`;
  return [
    { type: 'HostRegistry.HostAdded', data: { hostId, hypervisorHostname } },
    {
      type: 'Host.Registered',
      data: {
        hostId,
        info: {
          hypervisorHostname,
          serviceName: 'nova-compute',
          vcpus: 32,
          memoryMb: 131072,
          localGb: 1000,
          cpuInfo: '{"arch": "x86_64"}',
          hypervisorType: 'QEMU',
          hypervisorVersion: 6002000,
          availabilityZone: 'nova',
        },
        capabilities: { rack: `r${Number(hostId) % 20}`, gpu: Number(hostId) % 5 === 0 ? 'true' : 'false' },
        registeredAt: iso(base - 30 * 24 * HOUR),
      },
    },
  ];
};

interface PlannedLease {
  readonly index: number;
  readonly leaseId: string;
  readonly hostId: string;
  readonly reservation: HostReservation;
  readonly start: number;
  readonly end: number;
}

const plan = (index: number, hosts: number, base: number): PlannedLease => {
  const hostId = String((index % hosts) + 1);
  // each host's calendar: one lease every 3 hours, one hour long (two after a reschedule), never overlapping
  const start = base + Math.floor(index / hosts) * 3 * HOUR;
  const reservationId = randomUUID();
  return {
    index,
    leaseId: randomUUID(),
    hostId,
    start,
    end: start + HOUR,
    reservation: {
      id: reservationId,
      resourceId: randomUUID(),
      resourceType: 'physical:host',
      min: 1,
      max: 1,
      hypervisorProperties: '',
      resourceProperties: index % 3 === 0 ? '["==", "$rack", "r1"]' : '',
      beforeEnd: 'default',
      hostIds: [hostId],
    },
  };
};

const booking = (lease: PlannedLease, start: number, end: number): HostEvent => ({
  type: 'Host.Booked',
  data: {
    hostId: lease.hostId,
    reservationId: lease.reservation.id,
    leaseId: lease.leaseId,
    startDate: iso(start),
    endDate: iso(end),
    propertyNames: lease.index % 3 === 0 ? ['rack'] : [],
  },
});

const created = (lease: PlannedLease): LeaseEvent => ({
  type: 'Lease.Created',
  data: {
    leaseId: lease.leaseId,
    name: `lease-${lease.index}`,
    projectId: `project-${lease.index % 13}`,
    userId: `user-${lease.index % 97}`,
    trustId: null,
    startDate: iso(lease.start),
    endDate: iso(lease.end),
    beforeEndDate: null,
    reservations: [lease.reservation],
    eventIds: { start: randomUUID(), end: randomUUID(), beforeEnd: randomUUID() },
    createdAt: iso(lease.start - 24 * HOUR),
  },
});

const effects = (lease: PlannedLease, phase: 'start' | 'end'): LeaseEvent => ({
  type: 'Reservation.EffectsApplied',
  data: {
    leaseId: lease.leaseId,
    reservationId: lease.reservation.id,
    phase,
    effects: [
      {
        operation: phase === 'start' ? 'add_hosts_to_aggregate' : 'remove_hosts_from_aggregate',
        aggregate: `reservation-${lease.reservation.id}`,
        hostIds: [lease.hostId],
      },
    ],
    at: iso(phase === 'start' ? lease.start : lease.end),
  },
});

/** The appends of one phase for a group of leases (each stream at most once per append). */
const phases: readonly ((group: readonly PlannedLease[]) => AppendRequest[])[] = [
  (group) =>
    group.flatMap((l) => [
      request(leaseStream(l.leaseId), [created(l)], user(l.index)),
      request(hostStream(l.hostId), [booking(l, l.start, l.end)], user(l.index)),
    ]),
  (group) =>
    group.flatMap((l) => {
      const renamed: LeaseEvent = {
        type: 'Lease.Renamed',
        data: { leaseId: l.leaseId, name: `lease-${l.index}-renamed`, renamedAt: iso(l.start - 12 * HOUR) },
      };
      if (l.index % 4 !== 0) return [request(leaseStream(l.leaseId), [renamed], user(l.index))];
      const rescheduled: LeaseEvent = {
        type: 'Lease.Rescheduled',
        data: {
          leaseId: l.leaseId,
          startDate: iso(l.start),
          endDate: iso(l.end + HOUR),
          beforeEndDate: null,
          rescheduledAt: iso(l.start - 12 * HOUR),
        },
      };
      const moved: HostEvent = {
        type: 'Host.BookingMoved',
        data: { hostId: l.hostId, reservationId: l.reservation.id, startDate: iso(l.start), endDate: iso(l.end + HOUR), propertyNames: [] },
      };
      const metadata = user(l.index);
      return [request(leaseStream(l.leaseId), [renamed, rescheduled], metadata), request(hostStream(l.hostId), [moved], metadata)];
    }),
  (group) =>
    group.map((l) =>
      request(leaseStream(l.leaseId), [{ type: 'Lease.StartRequested', data: { leaseId: l.leaseId, at: iso(l.start) } }], reactor()),
    ),
  (group) =>
    group.map((l) =>
      request(
        leaseStream(l.leaseId),
        [effects(l, 'start'), { type: 'Lease.Started', data: { leaseId: l.leaseId, at: iso(l.start) } }],
        reactor(),
      ),
    ),
  (group) =>
    group.map((l) =>
      request(
        leaseStream(l.leaseId),
        [{ type: 'Lease.EndRequested', data: { leaseId: l.leaseId, at: iso(l.end), reason: 'scheduled' } }],
        reactor(),
      ),
    ),
  (group) =>
    group.map((l) =>
      request(
        leaseStream(l.leaseId),
        [effects(l, 'end'), { type: 'Lease.Ended', data: { leaseId: l.leaseId, at: iso(l.end) } }],
        reactor(),
      ),
    ),
];

const countEvents = (requests: readonly AppendRequest[]): number => requests.reduce((sum, r) => sum + r.events.length, 0);

/** One lease renamed and rescheduled (its booking moved each time) until its history holds `total` events. */
const longLease = async (store: EventStore, hosts: number, total: number, base: number): Promise<{ leaseId: string; events: number }> => {
  const lease = plan(0, hosts, base);
  const far = { ...lease, start: base - 365 * 24 * HOUR, end: base - 365 * 24 * HOUR + HOUR };
  const creation = phases[0]!([far]);
  await store.appendMultiple(creation);
  let events = countEvents(creation);
  for (let change = 1; events + 3 <= total; change++) {
    const at = iso(far.start - 24 * HOUR + change * 1000);
    const end = iso(far.end + (change % 60) * 60_000);
    const metadata = user(0);
    await store.appendMultiple([
      request(
        leaseStream(far.leaseId),
        [
          { type: 'Lease.Renamed', data: { leaseId: far.leaseId, name: `long-lease-${change}`, renamedAt: at } },
          {
            type: 'Lease.Rescheduled',
            data: { leaseId: far.leaseId, startDate: iso(far.start), endDate: end, beforeEndDate: null, rescheduledAt: at },
          },
        ],
        metadata,
      ),
      request(
        hostStream(far.hostId),
        [
          {
            type: 'Host.BookingMoved',
            data: { hostId: far.hostId, reservationId: far.reservation.id, startDate: iso(far.start), endDate: end, propertyNames: [] },
          },
        ],
        metadata,
      ),
    ]);
    events += 3;
  }
  while (events < total) {
    const change = events;
    await store.appendToStream(
      leaseStream(far.leaseId),
      'any',
      request(
        leaseStream(far.leaseId),
        [
          {
            type: 'Lease.Renamed',
            data: { leaseId: far.leaseId, name: `long-lease-${change}`, renamedAt: iso(far.start - HOUR + change) },
          },
        ],
        user(0),
      ).events,
    );
    events += 1;
  }
  return { leaseId: far.leaseId, events };
};

/** Writes the ledger into `store` (an empty one). */
export const generateLedger = async (store: EventStore, options: GenerateOptions): Promise<GeneratedLedger> => {
  const hosts = options.hosts ?? 1_000;
  const base = options.base ?? BASE;
  let written = 0;
  for (let first = 1; first <= hosts; first += 500) {
    const ids = Array.from({ length: Math.min(500, hosts - first + 1) }, (_, i) => String(first + i));
    const pairs = ids.map((id) => hostEvents(id, base));
    await store.appendMultiple([
      request(
        HOST_REGISTRY_STREAM,
        pairs.map(([added]) => added),
        reactor(),
      ),
      ...pairs.map(([, registered]) => request(hostStream(registered.data.hostId), [registered], reactor())),
    ]);
    written += pairs.length * 2;
  }
  const long = await longLease(store, hosts, options.historyEvents ?? 1_000, base);
  written += long.events;
  let leases = 1;
  while (written < options.events) {
    const group = Array.from({ length: hosts }, (_, i) => plan(leases + i, hosts, base));
    for (const phase of phases) {
      const requests = phase(group);
      await store.appendMultiple(requests);
      written += countEvents(requests);
    }
    leases += group.length;
    options.onProgress?.(written);
  }
  return { events: written, leases, hosts, longLeaseId: long.leaseId };
};

/**
 * `count` leases created with their booking (one per host, round after round) from `start` on, and
 * nothing else: what is still to come in a ledger written with generateLedger.
 */
export const appendLiveLeases = async (
  store: EventStore,
  options: { readonly count: number; readonly hosts: number; readonly start: number },
): Promise<number> => {
  let written = 0;
  for (let first = 0; first < options.count; first += options.hosts) {
    const group = Array.from({ length: Math.min(options.hosts, options.count - first) }, (_, i) =>
      plan(first + i, options.hosts, options.start),
    );
    const requests = phases[0]!(group);
    await store.appendMultiple(requests);
    written += countEvents(requests);
  }
  return written;
};
