/**
 * Test-only fixtures shared by the lease decider specs (not exported from the package index, not built).
 *
 * A lease [10:00, 18:00) on 2030-01-01 with its before-end event at 17:00. Pure data: no test framework,
 * no I/O, no clock; every time is a fixed string.
 */
import type { LeaseCreated, LeaseEvent } from '../lease.events.js';
import type { EndReason, HostReservation, LeaseEventIds } from '../lease.types.js';

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
export const beforeEndRequested = (when = BEFORE_END): LeaseEvent => ({ type: 'Lease.BeforeEndRequested', data: { leaseId: LEASE_ID, at: when } });
export const beforeEndCompleted = (when = BEFORE_END): LeaseEvent => ({ type: 'Lease.BeforeEndCompleted', data: { leaseId: LEASE_ID, at: when } });
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
