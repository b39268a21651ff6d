import { checkNewWindow, windowToCancel, withWindowHolds } from '../shared/maintenance.js';
import type { CancelFloatingIpMaintenance, ScheduleFloatingIpMaintenance } from './floating-ip.commands.js';
import type { FloatingIpEvent } from './floating-ip.events.js';
import type { RegisteredFloatingIp } from './floating-ip.state.js';
import type { FloatingIpBooking } from './floating-ip.types.js';

/** A window on a registered address, by the rules every kind's windows follow (shared/maintenance.ts). */
export const scheduleFloatingIpMaintenance = ({ data }: ScheduleFloatingIpMaintenance, ip: RegisteredFloatingIp): FloatingIpEvent[] => {
  checkNewWindow(ip.maintenance, data, `Floating IP ${ip.address}`);
  const { windowId, startDate, endDate, reason, now } = data;
  return [
    {
      type: 'FloatingIp.MaintenanceScheduled',
      data: { floatingIpId: ip.floatingIpId, windowId, startDate, endDate, reason, scheduledAt: now },
    },
  ];
};

export const cancelFloatingIpMaintenance = ({ data }: CancelFloatingIpMaintenance, ip: RegisteredFloatingIp): FloatingIpEvent[] => {
  const { windowId } = windowToCancel(ip.maintenance, data.windowId, data.now, `Floating IP ${ip.address}`);
  return [{ type: 'FloatingIp.MaintenanceCancelled', data: { floatingIpId: ip.floatingIpId, windowId, cancelledAt: data.now } }];
};

/**
 * The address's calendar as the sweeps see it (availability, counter-offers): its bookings and its windows as holds,
 * sorted by start. The same list without a window.
 */
export const floatingIpHoldsOf = (ip: RegisteredFloatingIp): readonly FloatingIpBooking[] =>
  withWindowHolds(ip.bookings, ip.maintenance, (hold) => hold);
