import { conflict, invalid, notFound } from '../shared/errors.js';
import { overlaps, toMs } from '../shared/interval.js';
import type { CancelHostMaintenance, ScheduleHostMaintenance } from './host.commands.js';
import type { HostEvent } from './host.events.js';
import { requireRegistered } from './host.rules.js';
import type { HostState, RegisteredHost } from './host.state.js';
import type { Booking, MaintenanceWindow } from './host.types.js';

/**
 * A window must end after it starts and after now (one that starts in the past holds the host from now on).
 * Windows of one host never overlap: an operator who needs a longer one cancels it and schedules the whole,
 * so each window stays one fact with one reason, and a cancellation never reopens time another still holds.
 */
export const scheduleMaintenance = ({ data }: ScheduleHostMaintenance, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  const { windowId, startDate, endDate, reason, now } = data;
  const window = { start: toMs(startDate), end: toMs(endDate) };
  if (window.end <= window.start) throw invalid('INVALID_PERIOD', 'The end must be later than the start.');
  if (window.end <= toMs(now)) throw invalid('MAINTENANCE_IN_PAST', `The end ${endDate} of a maintenance window must be in the future.`);
  if (host.maintenance.some((w) => w.windowId === windowId)) {
    throw conflict('MAINTENANCE_EXISTS', `Host ${host.hostId} already has maintenance window ${windowId}`);
  }
  const clash = host.maintenance.find((w) => overlaps(w, window));
  if (clash !== undefined) {
    throw conflict(
      'MAINTENANCE_OVERLAPS',
      `Host ${host.hostId} already has maintenance window ${clash.windowId} from ${clash.startDate} to ${clash.endDate}`,
    );
  }
  return [{ type: 'Host.MaintenanceScheduled', data: { hostId: host.hostId, windowId, startDate, endDate, reason, scheduledAt: now } }];
};

/** A window that has ended is history: cancelling it would rewrite what the host went through. */
export const cancelMaintenance = ({ data }: CancelHostMaintenance, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  const window = host.maintenance.find((w) => w.windowId === data.windowId);
  if (window === undefined) throw notFound('MAINTENANCE_NOT_FOUND', `Host ${host.hostId} has no maintenance window ${data.windowId}`);
  if (window.end <= toMs(data.now)) {
    throw conflict('MAINTENANCE_ENDED', `Maintenance window ${data.windowId} of host ${host.hostId} ended at ${window.endDate}`);
  }
  return [{ type: 'Host.MaintenanceCancelled', data: { hostId: host.hostId, windowId: window.windowId, cancelledAt: data.now } }];
};

/** A maintenance window as a whole-host hold on the calendar (no lease holds it: its ids name the window). */
const holdOf = (window: MaintenanceWindow): Booking => ({
  reservationId: `maintenance-${window.windowId}`,
  leaseId: '',
  startDate: window.startDate,
  endDate: window.endDate,
  start: window.start,
  end: window.end,
  propertyNames: [],
  slots: null,
});

/**
 * The host's calendar as sweeps over many hosts see it (availability, counter-offers, capacity): its bookings
 * and its maintenance windows as whole-host holds, sorted by start. The same list when there is no window.
 */
export const holdsOf = (host: RegisteredHost): readonly Booking[] =>
  host.maintenance.length === 0 ? host.bookings : [...host.bookings, ...host.maintenance.map(holdOf)].sort((a, b) => a.start - b.start);

/** No member of holdsOf(host) is longer (bounds its overlap searches). */
export const longestHoldMs = (host: RegisteredHost): number =>
  host.maintenance.reduce((longest, window) => Math.max(longest, window.end - window.start), host.longestBookingMs);
