import { checkNewWindow, windowToCancel, withWindowHolds } from '../shared/maintenance.js';
import type { CancelHostMaintenance, ScheduleHostMaintenance } from './host.commands.js';
import type { HostEvent } from './host.events.js';
import { requireRegistered } from './host.rules.js';
import type { HostState, RegisteredHost } from './host.state.js';
import type { Booking } from './host.types.js';

/** A window on a registered host, by the rules every kind's windows follow (shared/maintenance.ts). */
export const scheduleMaintenance = ({ data }: ScheduleHostMaintenance, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  checkNewWindow(host.maintenance, data, `Host ${host.hostId}`);
  const { windowId, startDate, endDate, reason, now } = data;
  return [{ type: 'Host.MaintenanceScheduled', data: { hostId: host.hostId, windowId, startDate, endDate, reason, scheduledAt: now } }];
};

export const cancelMaintenance = ({ data }: CancelHostMaintenance, state: HostState): HostEvent[] => {
  const host = requireRegistered(state);
  const { windowId } = windowToCancel(host.maintenance, data.windowId, data.now, `Host ${host.hostId}`);
  return [{ type: 'Host.MaintenanceCancelled', data: { hostId: host.hostId, windowId, cancelledAt: data.now } }];
};

/**
 * The host's calendar as sweeps over many hosts see it (availability, counter-offers, capacity): its bookings
 * and its maintenance windows as whole-host holds, sorted by start. The same list when there is no window.
 */
export const holdsOf = (host: RegisteredHost): readonly Booking[] =>
  withWindowHolds(host.bookings, host.maintenance, (hold) => ({ ...hold, propertyNames: [], slots: null }));

/** No member of holdsOf(host) is longer (bounds its overlap searches). */
export const longestHoldMs = (host: RegisteredHost): number =>
  host.maintenance.reduce((longest, window) => Math.max(longest, window.end - window.start), host.longestBookingMs);
