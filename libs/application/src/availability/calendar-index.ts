import type { Booking, FloatingIpBooking, RegisteredFloatingIp, RegisteredHost } from '#domain/index.js';
import type { WriteIndex } from '../write-model/write-index.js';
import { BusyCalendars } from './busy-calendars.js';

/** The booked intervals of every host and floating IP, sorted for sweeps (see BusyCalendars). */
export class CalendarIndex {
  readonly hosts = new BusyCalendars<RegisteredHost, Booking>(
    (host) => host.hostId,
    (host) => host.bookings,
  );
  readonly floatingIps = new BusyCalendars<RegisteredFloatingIp, FloatingIpBooking>(
    (ip) => ip.floatingIpId,
    (ip) => ip.bookings,
  );

  /** In step with the write index as it stands (call after it caught up). */
  refresh(index: WriteIndex): this {
    this.hosts.refresh(index.registeredHosts());
    this.floatingIps.refresh(index.registeredFloatingIps());
    return this;
  }
}

/** One per write index: every search of a process shares the sorted lists and their upkeep. */
const indexes = new WeakMap<WriteIndex, CalendarIndex>();

export const calendarIndexOf = (index: WriteIndex): CalendarIndex => {
  let calendars = indexes.get(index);
  if (calendars === undefined) {
    calendars = new CalendarIndex();
    indexes.set(index, calendars);
  }
  return calendars.refresh(index);
};
