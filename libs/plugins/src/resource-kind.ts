import type { CancelMaintenanceData, Command, Decider, DomainEvent, MaintenanceWindow, ScheduleMaintenanceData } from '#domain/index.js';

/** Where and when one reservation books a resource (the booking plan's BookingWindow). */
export interface CalendarWindow {
  readonly leaseId: string;
  readonly reservationId: string;
  readonly startDate: string;
  readonly endDate: string;
  /** The capability names the reservation's request depends on. */
  readonly propertyNames: readonly string[];
}

/** One booking as generic code keeps, forgets and recalls it: [startDate, endDate), and the same in ms. */
export interface CalendarBooking {
  readonly reservationId: string;
  readonly leaseId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly start: number;
  readonly end: number;
}

/** What a booking event did to a calendar (every booking event names its resource, reservation and lease). */
export type CalendarFact =
  | {
      readonly did: 'booked' | 'moved';
      readonly resourceId: string;
      readonly reservationId: string;
      readonly leaseId: string;
      readonly startDate: string;
      readonly endDate: string;
    }
  | { readonly did: 'released'; readonly resourceId: string; readonly reservationId: string; readonly leaseId: string };

/** A public event's description (the event catalogue's entry, docs/events.md): stable type, summary and fields. */
export interface PublicEventDescription<D> {
  readonly publicType: string;
  readonly summary: (data: D) => string;
  readonly fields: Readonly<Record<string, (keyof D & string) | ((data: D) => unknown)>>;
}

export type EventDescriptions<E extends DomainEvent> = {
  readonly [T in E['type']]: PublicEventDescription<Extract<E, { readonly type: T }>['data']>;
};

/** What ties an event to a project in the feed: its lease, its reservation's lease, or nothing (operators' business). */
export type FeedTie = 'lease' | 'reservation' | 'none';

/** The subject outbound channels key a stream category's events by, the public field naming it, and its path (`networks/<id>`). */
export interface OutboundSubject<S extends string> {
  readonly category: string;
  readonly subject: S;
  readonly field: string;
  readonly path: string;
}

/** One field a capacity pool of a kind is named by (`network_type`, `vlan`), as GET /v1/capacity shows it. */
export type CapacityGroupField = readonly [field: string, value: string | null];

/** A stream fold generic code holds without knowing its state: a registry, or a capability name's privacy. */
export interface StreamFold<E extends DomainEvent> {
  initialState(): unknown;
  evolve(state: unknown, event: E): unknown;
}

/**
 * One exclusive resource kind (a calendar per resource, one holder at a time, cleaning time between leases), as the
 * generic code walks the registry of them (resource-kinds.ts): the write side's index and booking plan, the
 * availability projection, the event catalogue, the feed and the outbound channels. A kind that leaves a member out
 * does not compile. Hosts and floating IPs predate it and are still listed by hand where they appear.
 *
 * K: the kind's name (lh_availability.resourceKind); S, C, E: its resources' decider; B: a booking as its state holds
 * it; P: the allocation policy's snapshot of one resource; X: the events of its registry and property streams.
 */
export interface ResourceKind<
  K extends string,
  S,
  C extends Command,
  E extends DomainEvent,
  B extends CalendarBooking,
  P,
  X extends DomainEvent,
  Subject extends string,
> {
  readonly kind: K;
  /** The category of a resource's own stream (no hyphen). */
  readonly category: string;
  stream(resourceId: string): string;
  /** The data field naming the resource in the kind's events (its own stream's and its registry's). */
  readonly idField: string;
  readonly decider: Decider<S, C, E>;
  readonly calendar: {
    /** The bookings of a registered resource, sorted by start; null when the state is no registered resource. */
    bookings(state: S): readonly B[] | null;
    withBookings(state: S, bookings: readonly B[]): S;
    /** A booking recalled over a lease's window (only its ids count, for its release: see WriteIndex.recallForgottenBookings). */
    recalled(booking: CalendarBooking): B;
    book(window: CalendarWindow, cleaningTimeMinutes: number): C;
    move(window: CalendarWindow, cleaningTimeMinutes: number): C;
    release(reservationId: string): C;
    /** The booking event types, and what one did; null for the kind's other events. */
    readonly events: readonly E['type'][];
    fact(event: E): CalendarFact | null;
    /** A registered resource as the allocation policy sees it. */
    snapshot(state: S): P | null;
  };
  /** Maintenance windows (docs/maintenance.md): the decider's two commands, and the windows its state keeps. */
  readonly maintenance: {
    /** A registered resource's windows, sorted by start; null when the state is no registered resource. */
    windows(state: S): readonly MaintenanceWindow[] | null;
    schedule(data: ScheduleMaintenanceData): C;
    cancel(data: CancelMaintenanceData): C;
  };
  /** GET /v1/capacity reports the kind's resources in pools, one per group. */
  readonly capacity: {
    /** A registered resource's group, its fields in the order pools are sorted by; null when the state is no registered resource. */
    group(state: S): readonly CapacityGroupField[] | null;
  };
  /** The stream keeping each resource registered once (appended with the resource's own stream). */
  readonly registry: { readonly stream: string; readonly fold: StreamFold<X> };
  /** The privacy of the kind's capability names, one stream per name in this category. */
  readonly properties: { readonly category: string; readonly fold: StreamFold<X>; namesOf(event: E): readonly string[] };
  /** Every event of the kind: its public description, and what ties it to a project. */
  readonly events: EventDescriptions<E | X>;
  readonly ties: { readonly [T in (E | X)['type']]: FeedTie };
  readonly subjects: readonly OutboundSubject<Subject>[];
}
