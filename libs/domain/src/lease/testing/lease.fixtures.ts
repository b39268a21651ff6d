/**
 * Test-only fixtures shared by the lease decider specs (not exported from the package index, not built).
 *
 * A lease [10:00, 18:00) on 2030-01-01 with its before-end event at 17:00. Pure data: no test framework,
 * no I/O, no clock; every time is a fixed string.
 */
import type { FlavorInstanceReservation, VirtualInstanceReservation } from '#plugins/instance/instance.reservation.js';
import type { FloatingIpReservation } from '#plugins/floating-ip/floating-ip.reservation.js';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import type { LeaseCreated, LeaseEvent } from '../lease.events.js';
import type { EffectRecord, EndReason, LeaseEventIds, Reservation, ReservationOutcome } from '../lease.types.js';

export const LEASE_ID = 'lease-1';

const pad = (n: number): string => String(n).padStart(2, '0');
/** '2030-01-01T<hh>:<mm>:<ss>.000Z' */
export const at = (hours: number, minutes = 0, seconds = 0): string => `2030-01-01T${pad(hours)}:${pad(minutes)}:${pad(seconds)}.000Z`;

export const CREATED_AT = '2029-12-31T12:00:00.000Z';
export const START = at(10);
export const END = at(18);
export const BEFORE_END = at(17);

export const eventIds: LeaseEventIds = { start: 'evt-start', end: 'evt-end', beforeEnd: 'evt-before-end' };

/** A factory of host reservations whose fields default to `defaults`, then to a one-host reservation without properties. */
export const reservationFactory =
  (defaults: Partial<HostReservation> = {}) =>
  (id: string, overrides: Partial<HostReservation> = {}): HostReservation => ({
    id,
    resourceId: `resource-${id}`,
    resourceType: 'physical:host',
    min: 1,
    max: 1,
    hypervisorProperties: '',
    resourceProperties: '',
    beforeEnd: 'default',
    hostIds: ['7'],
    ...defaults,
    ...overrides,
  });

/** A one-host reservation without hypervisor or resource properties. */
export const reservation = reservationFactory();

/** Who and when of the fixture lease, shared by its Created event, its CreateLease command and its state. */
export const LEASE_IDENTITY = {
  leaseId: LEASE_ID,
  name: 'my-lease',
  projectId: 'project-1',
  userId: 'user-1',
  trustId: null,
  startDate: START,
  endDate: END,
} as const;

/** The lease created with two reservations (res-1, res-2), created the day before. */
export const created = (overrides: Partial<LeaseCreated['data']> = {}): LeaseCreated => ({
  type: 'Lease.Created',
  data: {
    ...LEASE_IDENTITY,
    beforeEndDate: BEFORE_END,
    reservations: [reservation('res-1'), reservation('res-2')],
    eventIds,
    createdAt: CREATED_AT,
    ...overrides,
  },
});

// Phase events, by default at the date of their phase.

export const startRequested = (when = START): LeaseEvent => ({ type: 'Lease.StartRequested', data: { leaseId: LEASE_ID, at: when } });
export const started = (when = START): LeaseEvent => ({ type: 'Lease.Started', data: { leaseId: LEASE_ID, at: when } });
export const startFailed = (reason = 'res-1: boom', when = START): LeaseEvent => ({
  type: 'Lease.StartFailed',
  data: { leaseId: LEASE_ID, at: when, reason },
});
export const beforeEndRequested = (when = BEFORE_END): LeaseEvent => ({
  type: 'Lease.BeforeEndRequested',
  data: { leaseId: LEASE_ID, at: when },
});
export const beforeEndCompleted = (when = BEFORE_END): LeaseEvent => ({
  type: 'Lease.BeforeEndCompleted',
  data: { leaseId: LEASE_ID, at: when },
});
export const beforeEndFailed = (reason = 'res-1: boom', when = BEFORE_END): LeaseEvent => ({
  type: 'Lease.BeforeEndFailed',
  data: { leaseId: LEASE_ID, at: when, reason },
});
export const endRequested = (reason: EndReason = 'scheduled', when = END): LeaseEvent => ({
  type: 'Lease.EndRequested',
  data: { leaseId: LEASE_ID, at: when, reason },
});
export const ended = (when = END): LeaseEvent => ({ type: 'Lease.Ended', data: { leaseId: LEASE_ID, at: when } });
export const endFailed = (reason = 'res-1: boom', when = END): LeaseEvent => ({
  type: 'Lease.EndFailed',
  data: { leaseId: LEASE_ID, at: when, reason },
});
/** Deleted, by default at 09:00 (before the start). */
export const deleted = (when = at(9)): LeaseEvent => ({ type: 'Lease.Deleted', data: { leaseId: LEASE_ID, at: when } });

/** Event histories of the lease created by `created()`, leading to each status. */
export const history = {
  Pending: (): LeaseEvent[] => [created()],
  Starting: (): LeaseEvent[] => [created(), startRequested()],
  Active: (): LeaseEvent[] => [created(), startRequested(), started()],
  BeforeEndInProgress: (): LeaseEvent[] => [...history.Active(), beforeEndRequested()],
  BeforeEndDone: (): LeaseEvent[] => [...history.Active(), beforeEndRequested(), beforeEndCompleted()],
  BeforeEndError: (): LeaseEvent[] => [...history.Active(), beforeEndRequested(), beforeEndFailed()],
  StartFailed: (): LeaseEvent[] => [created(), startRequested(), startFailed()],
  Ending: (): LeaseEvent[] => [...history.Active(), endRequested()],
  Ended: (): LeaseEvent[] => [...history.Active(), endRequested(), ended()],
  EndFailed: (): LeaseEvent[] => [...history.Active(), endRequested(), endFailed()],
  DeletedPending: (): LeaseEvent[] => [created(), deleted(at(9))],
  /** Deleted while active: its end is still owed. */
  DeletedWhileActive: (): LeaseEvent[] => [...history.Active(), endRequested('deleted', at(12)), deleted(at(12))],
  DeletedWhileActiveDone: (): LeaseEvent[] => [...history.DeletedWhileActive(), ended(at(12))],
};
export type HistoryStatus = keyof typeof history;

// Reservations of the other resource types.

/** Two instances of 2 vcpus, 4096 MB, 20 GB, both on host 7. */
export const virtualInstanceReservation = (
  id: string,
  overrides: Partial<VirtualInstanceReservation> = {},
): VirtualInstanceReservation => ({
  id,
  resourceId: `resource-${id}`,
  resourceType: 'virtual:instance',
  amount: 2,
  vcpus: 2,
  memoryMb: 4096,
  diskGb: 20,
  affinity: null,
  resourceProperties: '',
  allocations: [{ hostId: '7', count: 2 }],
  ...overrides,
});

/** Two instances of the catalog flavor m1.small (2 vcpus, 4096 MB, 20 GB), both on host 7. */
export const flavorInstanceReservation = (id: string, overrides: Partial<FlavorInstanceReservation> = {}): FlavorInstanceReservation => ({
  id,
  resourceId: `resource-${id}`,
  resourceType: 'flavor:instance',
  amount: 2,
  vcpus: 2,
  memoryMb: 4096,
  diskGb: 20,
  affinity: null,
  resourceProperties: '{"id": "small", "name": "m1.small", "vcpus": 2, "ram": 4096, "disk": 20}',
  allocations: [{ hostId: '7', count: 2 }],
  sourceFlavorId: 'small',
  extraSpecs: { 'hw:cpu_policy': 'dedicated' },
  ...overrides,
});

/** One address of network net-ext: 172.24.4.10 (fip-1). */
export const floatingIpReservation = (id: string, overrides: Partial<FloatingIpReservation> = {}): FloatingIpReservation => ({
  id,
  resourceId: `resource-${id}`,
  resourceType: 'virtual:floatingip',
  networkId: 'net-ext',
  amount: 1,
  requiredFloatingIps: [],
  allocations: [{ floatingIpId: 'fip-1', address: '172.24.4.10' }],
  ...overrides,
});

// Reservation changes of an active lease and what the cloud made of them.

export const reservationChanged = (changed: Reservation, when: string): LeaseEvent => ({
  type: 'Reservation.Changed',
  data: { leaseId: LEASE_ID, reservation: changed, changedAt: when },
});

export const effectRecords = (operation: string): readonly EffectRecord[] => [{ operation }];

export const okOutcome = (reservationId: string, operation = 'op'): ReservationOutcome => ({
  reservationId,
  ok: true,
  effects: effectRecords(operation),
});

export const failedOutcome = (reservationId: string, error = 'boom', operation = 'op'): ReservationOutcome => ({
  reservationId,
  ok: false,
  error,
  effects: effectRecords(operation),
});

export const updateApplied = (reservationId: string, sequence: number, when: string, operation = 'op'): LeaseEvent => ({
  type: 'Reservation.UpdateApplied',
  data: { leaseId: LEASE_ID, reservationId, sequence, effects: effectRecords(operation), at: when },
});

export const updateFailed = (reservationId: string, sequence: number, when: string, error = 'boom', operation = 'op'): LeaseEvent => ({
  type: 'Reservation.UpdateFailed',
  data: { leaseId: LEASE_ID, reservationId, sequence, error, effects: effectRecords(operation), at: when },
});
