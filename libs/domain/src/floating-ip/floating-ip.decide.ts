import type { Decider } from '../shared/decider.js';
import { conflict, invalid, notFound } from '../shared/errors.js';
import { MINUTE_MS, insertSorted, isFree, toMs, widen } from '../shared/interval.js';
import { clearOfMaintenance, withWindow } from '../shared/maintenance.js';
import type { BookFloatingIp, FloatingIpCommand, MoveFloatingIpBooking } from './floating-ip.commands.js';
import type { FloatingIpEvent } from './floating-ip.events.js';
import { cancelFloatingIpMaintenance, scheduleFloatingIpMaintenance } from './floating-ip.maintenance.js';
import { type FloatingIpState, type RegisteredFloatingIp, initialFloatingIpState } from './floating-ip.state.js';

const requireRegistered = (state: FloatingIpState): RegisteredFloatingIp => {
  if (state.status !== 'Registered') {
    const id = state.status === 'Removed' ? state.floatingIpId : 'unknown';
    throw notFound('FLOATING_IP_NOT_FOUND', `Floating IP ${id} not found.`);
  }
  return state;
};

/**
 * Blazar's rule: no address in two reservations whose windows (widened by the cleaning time) overlap; and no booking
 * gains an instant inside a maintenance window of the address.
 */
const checkFree = (ip: RegisteredFloatingIp, startDate: string, endDate: string, cleaningMinutes: number, reservationId: string): void => {
  if (toMs(endDate) < toMs(startDate)) throw invalid('INVALID_PERIOD', 'The end_date must be later than the start_date.');
  const period = { start: toMs(startDate), end: toMs(endDate) };
  const window = widen(period, cleaningMinutes * MINUTE_MS);
  if (!isFree(ip.bookings, window, (b) => b.reservationId === reservationId)) {
    throw conflict('FLOATING_IP_ALREADY_BOOKED', `Floating IP ${ip.address} is already reserved between ${startDate} and ${endDate}`);
  }
  if (!clearOfMaintenance(ip, period, cleaningMinutes * MINUTE_MS, reservationId)) {
    throw conflict('FLOATING_IP_IN_MAINTENANCE', `Floating IP ${ip.address} is in maintenance during part of ${startDate} to ${endDate}`);
  }
};

const book = ({ data }: BookFloatingIp, state: FloatingIpState): FloatingIpEvent[] => {
  const ip = requireRegistered(state);
  if (ip.bookings.some((b) => b.reservationId === data.reservationId)) {
    throw conflict('FLOATING_IP_ALREADY_BOOKED', `Floating IP ${ip.address} is already booked by reservation ${data.reservationId}`);
  }
  checkFree(ip, data.startDate, data.endDate, data.cleaningTimeMinutes, data.reservationId);
  const { cleaningTimeMinutes: _margin, ...booking } = data;
  return [{ type: 'FloatingIp.Booked', data: { floatingIpId: ip.floatingIpId, ...booking } }];
};

const move = ({ data }: MoveFloatingIpBooking, state: FloatingIpState): FloatingIpEvent[] => {
  const ip = requireRegistered(state);
  const current = ip.bookings.find((b) => b.reservationId === data.reservationId);
  if (!current) throw notFound('BOOKING_NOT_FOUND', `Floating IP ${ip.address} has no booking for reservation ${data.reservationId}`);
  if (current.startDate === data.startDate && current.endDate === data.endDate) return [];
  checkFree(ip, data.startDate, data.endDate, data.cleaningTimeMinutes, data.reservationId);
  const { reservationId, startDate, endDate } = data;
  return [{ type: 'FloatingIp.BookingMoved', data: { floatingIpId: ip.floatingIpId, reservationId, startDate, endDate } }];
};

const decide = (command: FloatingIpCommand, state: FloatingIpState): readonly FloatingIpEvent[] => {
  switch (command.type) {
    case 'RegisterFloatingIp': {
      if (state.status !== 'Unregistered') throw conflict('FLOATING_IP_EXISTS', `Floating IP ${command.data.floatingIpId} already exists`);
      const { now, ...info } = command.data;
      return [{ type: 'FloatingIp.Registered', data: { ...info, registeredAt: now } }];
    }
    case 'UnregisterFloatingIp': {
      const ip = requireRegistered(state);
      // upstream refuses while any allocation exists; a finished one no longer holds the address
      if (ip.bookings.some((b) => b.end > toMs(command.data.now))) {
        throw conflict('FLOATING_IP_RESERVED', `Can't delete floating IP ${ip.floatingIpId}. The floating IP is reserved.`);
      }
      const { floatingIpId, networkId, address } = ip;
      return [{ type: 'FloatingIp.Unregistered', data: { floatingIpId, networkId, address, unregisteredAt: command.data.now } }];
    }
    case 'BookFloatingIp':
      return book(command, state);
    case 'MoveFloatingIpBooking':
      return move(command, state);
    case 'ReleaseFloatingIpBooking': {
      const ip = requireRegistered(state);
      const booking = ip.bookings.find((b) => b.reservationId === command.data.reservationId);
      if (!booking) return [];
      return [
        {
          type: 'FloatingIp.BookingReleased',
          data: { floatingIpId: ip.floatingIpId, reservationId: booking.reservationId, leaseId: booking.leaseId },
        },
      ];
    }
    case 'ScheduleFloatingIpMaintenance':
      return scheduleFloatingIpMaintenance(command, requireRegistered(state));
    case 'CancelFloatingIpMaintenance':
      return cancelFloatingIpMaintenance(command, requireRegistered(state));
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

const evolveRegistered = (ip: RegisteredFloatingIp, event: FloatingIpEvent): FloatingIpState => {
  switch (event.type) {
    case 'FloatingIp.Registered':
      return ip;
    case 'FloatingIp.Unregistered':
      return { status: 'Removed', floatingIpId: ip.floatingIpId };
    case 'FloatingIp.Booked': {
      const { floatingIpId: _ip, ...booking } = event.data;
      return { ...ip, bookings: insertSorted(ip.bookings, { ...booking, start: toMs(booking.startDate), end: toMs(booking.endDate) }) };
    }
    case 'FloatingIp.BookingMoved': {
      const current = ip.bookings.find((b) => b.reservationId === event.data.reservationId);
      if (!current) return ip;
      const { startDate, endDate } = event.data;
      return { ...ip, bookings: insertSorted(ip.bookings, { ...current, startDate, endDate, start: toMs(startDate), end: toMs(endDate) }) };
    }
    case 'FloatingIp.BookingReleased':
      return { ...ip, bookings: ip.bookings.filter((b) => b.reservationId !== event.data.reservationId) };
    case 'FloatingIp.MaintenanceScheduled': {
      const { floatingIpId: _ip, scheduledAt: _at, ...window } = event.data;
      return { ...ip, maintenance: withWindow(ip.maintenance, window) };
    }
    case 'FloatingIp.MaintenanceCancelled':
      return { ...ip, maintenance: ip.maintenance.filter((w) => w.windowId !== event.data.windowId) };
    default: {
      const _never: never = event;
      return ip;
    }
  }
};

const evolve = (state: FloatingIpState, event: FloatingIpEvent): FloatingIpState => {
  if (event.type === 'FloatingIp.Registered') {
    const { registeredAt, ...info } = event.data;
    return { status: 'Registered', ...info, bookings: [], maintenance: [], registeredAt };
  }
  return state.status === 'Registered' ? evolveRegistered(state, event) : state;
};

export const floatingIpDecider: Decider<FloatingIpState, FloatingIpCommand, FloatingIpEvent> = {
  initialState: initialFloatingIpState,
  decide,
  evolve,
};
