import { conflict, invalid, notFound } from '../shared/errors.js';
import { MINUTE_MS, toMs } from '../shared/interval.js';
import type { LeaseScheduleInput, LeaseChanges } from './lease.commands.js';
import type { ExistingLease, LeaseData, LeaseState } from './lease.state.js';

export interface LeaseSchedule {
  readonly startDate: string;
  readonly endDate: string;
  readonly beforeEndDate: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Blazar compares with the current time truncated to the minute, the resolution of its dates. */
export const truncateToMinute = (now: string): number => Math.floor(toMs(now) / MINUTE_MS) * MINUTE_MS;

const checkExplicitBeforeEnd = (beforeEnd: string, startDate: string, endDate: string): void => {
  const at = toMs(beforeEnd);
  if (!(at > toMs(startDate) && at < toMs(endDate))) {
    throw invalid(
      'BEFORE_END_OUT_OF_RANGE',
      'Datetime is out of lease limits: before_end_date must be after start_date and before end_date',
    );
  }
};

/** Upstream's default before-end event: end minus the configured minutes, never before the start. */
const defaultBeforeEnd = (startDate: string, endDate: string, minutesBeforeEnd: number): string | null =>
  minutesBeforeEnd > 0 ? iso(Math.max(toMs(startDate), toMs(endDate) - minutesBeforeEnd * MINUTE_MS)) : null;

export const scheduleForCreate = (input: LeaseScheduleInput, minutesBeforeEnd: number, now: string): LeaseSchedule => {
  if (toMs(input.startDate) < truncateToMinute(now)) throw invalid('START_IN_PAST', 'Start date must be later than current date');
  if (toMs(input.endDate) <= toMs(input.startDate)) throw invalid('END_BEFORE_START', 'End date must be later than start date.');
  if (input.beforeEndDate !== null) checkExplicitBeforeEnd(input.beforeEndDate, input.startDate, input.endDate);
  const beforeEndDate = input.beforeEndDate ?? defaultBeforeEnd(input.startDate, input.endDate, minutesBeforeEnd);
  return { startDate: input.startDate, endDate: input.endDate, beforeEndDate };
};

export const requireExisting = (state: LeaseState, leaseId: string): ExistingLease => {
  if (state.status === 'Initial' || state.status === 'Deleted') {
    throw notFound('LEASE_NOT_FOUND', `Object with {'lease_id': '${leaseId}'} not found`);
  }
  return state;
};

export const hasStarted = (state: ExistingLease): boolean => state.status !== 'Pending';

const isOnlyRename = (changes: LeaseChanges): boolean =>
  changes.startDate === null && changes.endDate === null && changes.beforeEndDate === null && changes.reservationIds.length === 0;

/** Keeps the before-end event's distance to the end, as upstream does when only dates move. */
const movedBeforeEnd = (lease: LeaseData, startDate: string, endDate: string): string | null => {
  if (lease.beforeEndDate === null) return null;
  const offset = toMs(lease.endDate) - toMs(lease.beforeEndDate);
  return iso(Math.min(toMs(endDate), Math.max(toMs(startDate), toMs(endDate) - offset)));
};

/**
 * Validates an update in upstream's order and returns the new schedule; null when the request only
 * renames the lease (allowed in every state, even after the end).
 */
export const scheduleForUpdate = (state: ExistingLease, changes: LeaseChanges, now: string): LeaseSchedule | null => {
  if (isOnlyRename(changes)) return null;
  if (state.status === 'Starting' || state.status === 'Ending') {
    throw conflict(
      'LEASE_BUSY',
      `Lease ${state.lease.leaseId} is ${state.status === 'Starting' ? 'STARTING' : 'TERMINATING'}; retry once it is done`,
    );
  }
  const { lease } = state;
  const nowMs = truncateToMinute(now);
  if (state.status === 'Ended' || state.status === 'EndFailed' || toMs(lease.endDate) < nowMs) {
    throw invalid('LEASE_ENDED', 'Terminated leases can only be renamed');
  }
  const startDate = changes.startDate ?? lease.startDate;
  const startMoved = toMs(startDate) !== toMs(lease.startDate);
  if (hasStarted(state) && startMoved) {
    throw invalid('START_OF_STARTED_LEASE', 'Cannot modify the start date of already started leases');
  }
  if (!hasStarted(state) && startMoved && toMs(startDate) < nowMs)
    throw invalid('START_IN_PAST', 'Start date must be later than current date');
  const endDate = changes.endDate ?? lease.endDate;
  // upstream accepts end == start here, which is how a lease is ended at once (end_date "now") in its first minute
  if (toMs(endDate) < nowMs || toMs(endDate) < toMs(startDate)) {
    throw invalid('END_BEFORE_START', 'End date must be later than current and start date');
  }
  if (changes.beforeEndDate !== null) checkExplicitBeforeEnd(changes.beforeEndDate, startDate, endDate);
  return { startDate, endDate, beforeEndDate: changes.beforeEndDate ?? movedBeforeEnd(lease, startDate, endDate) };
};

export const checkReservationIds = (lease: LeaseData, reservationIds: readonly string[]): void => {
  const known = new Set(lease.reservations.map((r) => r.id));
  const unknown = reservationIds.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw invalid('INVALID_RESERVATION_IDS', `Please enter valid reservation IDs. Invalid reservation IDs are: ${unknown.join(', ')}`);
  }
};
