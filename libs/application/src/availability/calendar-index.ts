import {
  type Booking,
  type FloatingIpBooking,
  type RegisteredFloatingIp,
  type MaintenanceWindow,
  type RegisteredHost,
  floatingIpHoldsOf,
  holdsOf,
  withWindowHolds,
} from '#domain/index.js';
import type { CalendarBooking } from '#plugins/resource-kind.js';
import { RESOURCE_KINDS, type ResourceKindName, resourceKind } from '#plugins/resource-kinds.js';
import type { WriteIndex } from '../write-model/write-index.js';
import { BusyCalendars } from './busy-calendars.js';

/**
 * A registered resource of a kind: its id with its state (one object per state, so calendars patch by identity), its
 * calendar as sweeps see it (bookings and maintenance windows as holds) and its windows apart (capacity counts them).
 */
export interface KindMember {
  readonly id: string;
  readonly state: object;
  readonly bookings: readonly CalendarBooking[];
  readonly maintenance: readonly MaintenanceWindow[];
}

/** The booked intervals of every host, floating IP and resource of a registered kind, sorted for sweeps (see BusyCalendars). */
export class CalendarIndex {
  readonly hosts = new BusyCalendars<RegisteredHost, Booking>(
    (host) => host.hostId,
    // maintenance windows hold a resource as bookings do: searches and capacity skip it there
    holdsOf,
  );
  readonly floatingIps = new BusyCalendars<RegisteredFloatingIp, FloatingIpBooking>((ip) => ip.floatingIpId, floatingIpHoldsOf);
  private readonly kinds = new Map<ResourceKindName, BusyCalendars<KindMember, CalendarBooking>>(
    RESOURCE_KINDS.map(({ kind }) => [
      kind,
      new BusyCalendars<KindMember, CalendarBooking>(
        (member) => member.id,
        (member) => member.bookings,
      ),
    ]),
  );
  private readonly members = new WeakMap<object, KindMember>();

  /** The calendars of a registered kind's resources. */
  kind(name: ResourceKindName): BusyCalendars<KindMember, CalendarBooking> {
    const calendars = this.kinds.get(name);
    if (calendars === undefined) throw new Error(`No resource kind ${name}`);
    return calendars;
  }

  /** In step with the write index as it stands (call after it caught up). */
  refresh(index: WriteIndex): this {
    this.hosts.refresh(index.registeredHosts());
    this.floatingIps.refresh(index.registeredFloatingIps());
    for (const kind of RESOURCE_KINDS) this.kind(kind.kind).refresh(this.kindMembers(index, kind.kind));
    return this;
  }

  private kindMembers(index: WriteIndex, name: ResourceKindName): KindMember[] {
    const { calendar, maintenance } = resourceKind(name);
    return index.registeredKindResourceIds(name).map((id) => {
      const state = index.kindResource<object>(name, id).state;
      let member = this.members.get(state);
      if (member === undefined) {
        const windows = maintenance.windows(state) ?? [];
        // maintenance windows hold a resource as bookings do: searches skip it there
        member = { id, state, bookings: withWindowHolds(calendar.bookings(state) ?? [], windows, (hold) => hold), maintenance: windows };
        this.members.set(state, member);
      }
      return member;
    });
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
