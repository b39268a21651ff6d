import {
  FLOATING_IP_REGISTRY_STREAM,
  HOST_REGISTRY_STREAM,
  type DomainEvent,
  floatingIpStream,
  hostStream,
  leaseStream,
  propertyStream,
} from '#domain/index.js';
import { compareHostIds } from '#plugins/physical-host/host-allocation.policy.js';
import { reservationType } from '#plugins/reservation-types.js';
import { type ConflictPolicy, findDoubleBookings, leftOutFor } from './blazar-conflicts.js';
import { type Caused, ImportAppends, type StreamEvents, sourceRow } from './blazar-import.appends.js';
import { type LeaseEventView, deriveLeaseStatus } from '#read-model/lease-view.js';
import type { BlazarState, ImportNote, ImportProblem, ImportedLease } from './blazar-import.model.js';
import { inventoryOf } from './blazar-inventory.mapping.js';
import { leaseCreated, leaseLife } from './blazar-lease.events.js';
import { leasesOf } from './blazar-lease.mapping.js';
import { reservationRowsOf } from './blazar-reservation.mapping.js';
import type { BlazarRows } from './blazar-source.port.js';
import { text } from '#plugins/blazar/blazar-values.js';

export interface ImportPlan {
  readonly state: BlazarState;
  readonly policy: ConflictPolicy;
  /** Leases left out (by id), for their problems or their double bookings. */
  readonly leftOut: ReadonlySet<string>;
  /** True when the policy refuses: some problem was found and nothing may be written. */
  readonly refused: boolean;
  readonly appends: ImportAppends;
}

const byCreation = (a: ImportedLease, b: ImportedLease): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.leaseId < b.leaseId ? -1 : a.leaseId > b.leaseId ? 1 : 0;

/** Allocations whose reservation is not there: Blazar's cascade should have removed them. */
const orphanAllocations = (rows: BlazarRows): ImportProblem[] => {
  const reservationIds = new Set(rows.reservations.map((row) => text(row, 'id')));
  return [...rows.computehost_allocations, ...rows.floatingip_allocations].flatMap((row) => {
    const reservationId = text(row, 'reservation_id');
    if (reservationIds.has(reservationId)) return [];
    const message = `allocation ${text(row, 'id')} belongs to reservation ${reservationId}, which does not exist`;
    return [{ kind: 'dangling_reference', leaseId: null, message }];
  });
};

/** The status the imported events give the lease (upstream's rule over its events) where Blazar's row says another. */
const statusNotes = (leases: readonly ImportedLease[]): ImportNote[] =>
  leases.flatMap(({ leaseId, status, phases }) => {
    const events = Object.values(phases).flatMap((phase): LeaseEventView[] =>
      phase === null
        ? []
        : [
            {
              created_at: '',
              updated_at: null,
              id: phase.eventId,
              lease_id: leaseId,
              event_type: `${phase.phase}_lease`,
              time: '',
              status: phase.status,
            },
          ],
    );
    const derived = deriveLeaseStatus(events);
    return derived === status ? [] : [{ message: `lease ${leaseId} is ${status} in Blazar; its events make it ${derived} in Leasehold` }];
  });

/** Blazar's rows, read into what the ledger will hold and what breaks its rules. */
export const readBlazarState = (rows: BlazarRows, revision: string): BlazarState => {
  const inventory = inventoryOf(rows);
  const hostIds = new Set(inventory.hosts.map((h) => h.hostId));
  const addresses = new Map(inventory.floatingIps.map((f) => [f.floatingIpId, f.address]));
  const { leases, problems } = leasesOf(rows, reservationRowsOf(rows, hostIds, addresses));
  return {
    revision,
    ...inventory,
    leases: leases.sort(byCreation),
    notes: [...inventory.notes, ...statusNotes(leases)],
    problems: [...inventory.problems, ...orphanAllocations(rows), ...problems],
  };
};

const one = (streamId: string, causation: string, ...events: DomainEvent[]): StreamEvents => ({
  streamId,
  events: events.map((event) => ({ event, causation })),
});

const inventoryAppends = (appends: ImportAppends, state: BlazarState): void => {
  for (const host of [...state.hosts].sort((a, b) => compareHostIds(a.hostId, b.hostId))) {
    const { hostId, info, capabilities, createdAt } = host;
    const cause = sourceRow('computehosts', hostId);
    const unreservable = { hostId, reservable: false, reason: 'imported from Blazar', changedAt: host.updatedAt ?? createdAt };
    appends.append(
      one(HOST_REGISTRY_STREAM, cause, { type: 'HostRegistry.HostAdded', data: { hostId, hypervisorHostname: info.hypervisorHostname } }),
      one(
        hostStream(hostId),
        cause,
        { type: 'Host.Registered', data: { hostId, info, capabilities, registeredAt: createdAt } },
        ...(host.reservable ? [] : [{ type: 'Host.ReservableChanged', data: unreservable }]),
      ),
    );
  }
  for (const { floatingIpId, networkId, subnetId, address, createdAt } of state.floatingIps) {
    const cause = sourceRow('floatingips', floatingIpId);
    appends.append(
      one(FLOATING_IP_REGISTRY_STREAM, cause, { type: 'FloatingIpRegistry.Added', data: { floatingIpId, networkId, address } }),
      one(floatingIpStream(floatingIpId), cause, {
        type: 'FloatingIp.Registered',
        data: { floatingIpId, networkId, subnetId, address, registeredAt: createdAt },
      }),
    );
  }
  for (const { id, name, createdAt } of state.privateProperties) {
    const data = { propertyName: name, private: true, changedAt: createdAt };
    appends.append(one(propertyStream(name), sourceRow('resource_properties', id), { type: 'ResourceProperty.PrivacyChanged', data }));
  }
};

/** The calendar entries of a lease's reservations, as its admission books them beside its creation. */
const bookings = ({ leaseId, startDate, endDate, reservations }: ImportedLease): StreamEvents[] =>
  reservations.flatMap(({ reservation: r, propertyNames }): StreamEvents[] => {
    const cause = sourceRow('reservations', r.id);
    const window = { reservationId: r.id, leaseId, startDate, endDate };
    return reservationType(r.resourceType)
      .resources(r)
      .flatMap((resource): StreamEvents[] => {
        if (resource.kind === 'floatingip') {
          const floatingIpId = resource.id;
          return [one(floatingIpStream(floatingIpId), cause, { type: 'FloatingIp.Booked', data: { floatingIpId, ...window } })];
        }
        // the readers read only the types upstream has, which book hosts and floating IPs
        if (resource.kind !== 'host' || !('slots' in resource)) return [];
        const hostId = resource.id;
        const booked = { hostId, ...window, propertyNames };
        const event: DomainEvent =
          resource.slots === null
            ? { type: 'Host.Booked', data: booked }
            : { type: 'Host.SlotsBooked', data: { ...booked, slots: resource.slots } };
        return [one(hostStream(hostId), cause, event)];
      });
  });

/** Streams of one lease merged where two reservations book one host (an append names a stream once). */
const merged = (streams: readonly StreamEvents[]): StreamEvents[] => {
  const events = new Map<string, Caused[]>();
  for (const s of streams) events.set(s.streamId, [...(events.get(s.streamId) ?? []), ...s.events]);
  return [...events].map(([streamId, list]) => ({ streamId, events: list }));
};

export const planImport = (state: BlazarState, policy: ConflictPolicy): ImportPlan => {
  const broken = new Set(state.problems.flatMap((p) => (p.leaseId === null ? [] : [p.leaseId])));
  const candidates = state.leases.filter((lease) => !broken.has(lease.leaseId));
  const conflicts = findDoubleBookings(candidates);
  const dropped = leftOutFor(policy, candidates, conflicts);
  const problems = [...state.problems, ...conflicts.map((c) => c.problem)];
  const appends = new ImportAppends();
  const refused = policy === 'refuse' && problems.length > 0;
  if (!refused) {
    inventoryAppends(appends, state);
    for (const lease of candidates.filter((l) => !dropped.has(l.leaseId))) {
      appends.append(...merged([{ streamId: leaseStream(lease.leaseId), events: [leaseCreated(lease)] }, ...bookings(lease)]));
      appends.append({ streamId: leaseStream(lease.leaseId), events: leaseLife(lease) });
    }
  }
  return { state: { ...state, problems }, policy, leftOut: new Set([...broken, ...dropped]), refused, appends };
};
