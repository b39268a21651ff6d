import { insertSorted, toMs } from '../shared/interval.js';
import { withWindow } from '../shared/maintenance.js';
import type { HostEvent } from './host.events.js';
import type { HostState, RegisteredHost } from './host.state.js';
import type { Booking } from './host.types.js';

const withBooking = (host: RegisteredHost, booking: Booking): RegisteredHost => ({
  ...host,
  bookings: insertSorted(host.bookings, booking),
  longestBookingMs: Math.max(host.longestBookingMs, booking.end - booking.start),
});

const evolveRegistered = (host: RegisteredHost, event: HostEvent): HostState => {
  switch (event.type) {
    case 'Host.Registered':
      return host;
    case 'Host.CapabilitiesUpdated':
      return { ...host, capabilities: { ...host.capabilities, ...event.data.capabilities }, updatedAt: event.data.updatedAt };
    case 'Host.ReservableChanged':
      return { ...host, reservable: event.data.reservable, updatedAt: event.data.changedAt };
    case 'Host.Unregistered':
      return { status: 'Removed', hostId: host.hostId };
    case 'Host.Booked':
    case 'Host.SlotsBooked': {
      const { hostId: _host, ...booking } = event.data;
      const slots = event.type === 'Host.SlotsBooked' ? event.data.slots : null;
      return withBooking(host, { ...booking, slots, start: toMs(booking.startDate), end: toMs(booking.endDate) });
    }
    case 'Host.BookingMoved':
    case 'Host.SlotsMoved': {
      const current = host.bookings.find((b) => b.reservationId === event.data.reservationId);
      if (!current) return host;
      const { startDate, endDate, propertyNames } = event.data;
      const slots = event.type === 'Host.SlotsMoved' ? event.data.slots : current.slots;
      return withBooking(host, { ...current, startDate, endDate, propertyNames, slots, start: toMs(startDate), end: toMs(endDate) });
    }
    case 'Host.BookingReleased':
      return { ...host, bookings: host.bookings.filter((b) => b.reservationId !== event.data.reservationId) };
    case 'Host.WentDown':
      return { ...host, health: { status: 'down', reasons: event.data.reasons, since: event.data.observedAt } };
    case 'Host.DownReasonsChanged':
      return host.health.status === 'down' ? { ...host, health: { ...host.health, reasons: event.data.reasons } } : host;
    case 'Host.CameUp':
      return { ...host, health: { status: 'up' } };
    case 'Host.MaintenanceScheduled': {
      const { hostId: _host, scheduledAt: _at, ...window } = event.data;
      return { ...host, maintenance: withWindow(host.maintenance, window) };
    }
    case 'Host.MaintenanceCancelled':
      return { ...host, maintenance: host.maintenance.filter((w) => w.windowId !== event.data.windowId) };
    case 'Host.Enrolled':
    case 'Host.EnrollmentFailed':
    case 'Host.Unenrolled':
    case 'Host.UnenrollmentFailed':
      return host;
    default: {
      const _never: never = event;
      return host;
    }
  }
};

/** Folds a host's history; it trusts what was recorded and never throws. */
export const evolveHost = (state: HostState, event: HostEvent): HostState => {
  if (event.type === 'Host.Registered') {
    const { hostId, info, capabilities, registeredAt } = event.data;
    return {
      status: 'Registered',
      hostId,
      info,
      capabilities,
      reservable: true,
      health: { status: 'up' },
      bookings: [],
      longestBookingMs: 0,
      maintenance: [],
      registeredAt,
      updatedAt: null,
    };
  }
  return state.status === 'Registered' ? evolveRegistered(state, event) : state;
};
