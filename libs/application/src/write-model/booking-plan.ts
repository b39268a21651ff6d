import {
  type AllocationRatios,
  type Command,
  type DomainEvent,
  type FloatingIpCommand,
  type FloatingIpEvent,
  type FloatingIpState,
  type HostCommand,
  type HostEvent,
  type HostState,
  MINUTE_MS,
  type RegisteredHost,
  type SlotDemand,
  floatingIpDecider,
  floatingIpStream,
  hostDecider,
  hostStream,
  toMs,
} from '#domain/index.js';
import type { AppendRequest, EventMetadata } from '#event-store/event-store.port.js';
import type { BookingWindow, KindSnapshots, ReservationCalendars } from '#plugins/admission/calendars.port.js';
import type { FloatingIpSnapshot } from '#plugins/floating-ip/floating-ip-snapshot.js';
import type { HostSnapshot } from '#plugins/physical-host/host-snapshot.js';
import {
  type HostAllocationRequest,
  type HostsInIdOrder,
  allocateHosts,
  allocateHostsInIdOrder,
  notEnoughHostsError,
} from '#plugins/physical-host/host-allocation.policy.js';
import { EMPTY_QUERY, type HostQuery } from '#plugins/query/blazar-query.js';
import { RESOURCE_KINDS, type ResourceKindName, resourceKind } from '#plugins/resource-kinds.js';
import { appendTo } from '../command.js';
import { toHostSnapshot, type Versioned, type WriteIndex } from './write-index.js';

interface Working<S, E> extends Versioned<S> {
  readonly events: E[];
}

export interface BookingPlanOptions {
  readonly cleaningTimeMinutes: number;
  readonly allocationRatios: AllocationRatios;
}

/** Working copies of the calendars one admission touches, decided on in order, appended together. */
class Calendars<S, C, E extends { readonly type: string; readonly data: unknown }> {
  private readonly working = new Map<string, Working<S, E>>();

  constructor(
    private readonly load: (id: string) => Versioned<S>,
    private readonly decider: { decide(command: C, state: S): readonly E[]; evolve(state: S, event: E): S },
    private readonly stream: (id: string) => string,
  ) {}

  state(id: string): S {
    return this.current(id).state;
  }

  touched(id: string): S | undefined {
    return this.working.get(id)?.state;
  }

  decide(id: string, command: C): void {
    const entry = this.current(id);
    const events = this.decider.decide(command, entry.state);
    const state = events.reduce((s, e) => this.decider.evolve(s, e), entry.state);
    this.working.set(id, { state, revision: entry.revision, events: [...entry.events, ...events] });
  }

  appends(metadata: EventMetadata, newId: () => string): AppendRequest[] {
    return [...this.working.entries()]
      .filter(([, entry]) => entry.events.length > 0)
      .map(([id, entry]) => appendTo(this.stream(id), entry.revision, entry.events, metadata, newId));
  }

  private current(id: string): Working<S, E> {
    const existing = this.working.get(id);
    if (existing !== undefined) return existing;
    const fresh = { ...this.load(id), events: [] };
    this.working.set(id, fresh);
    return fresh;
  }
}

/**
 * The calendar half of one admission: decides bookings on working copies of the hosts' and floating
 * IPs' states (so two reservations of one lease never take the same capacity twice) and yields one
 * append per touched calendar, each guarded by the revision its decision was made on.
 */
export class BookingPlan implements ReservationCalendars {
  private readonly hosts: Calendars<HostState, HostCommand, HostEvent>;
  private readonly floatingIps: Calendars<FloatingIpState, FloatingIpCommand, FloatingIpEvent>;
  /** One per registered resource kind (resource-kinds.ts), by kind name. */
  private readonly kinds: ReadonlyMap<string, Calendars<unknown, Command, DomainEvent>>;

  constructor(
    private readonly index: WriteIndex,
    private readonly options: BookingPlanOptions,
  ) {
    this.hosts = new Calendars((id) => index.host(id), hostDecider, hostStream);
    this.floatingIps = new Calendars((id) => index.floatingIp(id), floatingIpDecider, floatingIpStream);
    this.kinds = new Map(
      RESOURCE_KINDS.map((kind) => [
        kind.kind,
        new Calendars(
          (id) => index.kindResource(kind.kind, id),
          kind.decider,
          (id) => kind.stream(id),
        ),
      ]),
    );
  }

  get cleaningTimeMs(): number {
    return this.options.cleaningTimeMinutes * MINUTE_MS;
  }

  get allocationRatios(): AllocationRatios {
    return this.options.allocationRatios;
  }

  /** The registered hosts as the log left them, before this admission. */
  registeredHosts(): readonly RegisteredHost[] {
    return this.index.registeredHosts();
  }

  /** The registered hosts as this admission leaves them (its own bookings in). */
  workingHosts(): RegisteredHost[] {
    return this.index
      .registeredHosts()
      .map((host) => this.hosts.touched(host.hostId) ?? host)
      .filter((state): state is RegisteredHost => state.status === 'Registered');
  }

  snapshots(): HostSnapshot[] {
    return this.index
      .registeredHosts()
      .map((host) => this.hosts.touched(host.hostId) ?? host)
      .filter((state): state is RegisteredHost => state.status === 'Registered')
      .map(toHostSnapshot);
  }

  floatingIpSnapshots(): FloatingIpSnapshot[] {
    return this.index.registeredFloatingIps().flatMap((registered) => {
      const ip = this.floatingIps.touched(registered.floatingIpId) ?? registered;
      return ip.status === 'Registered'
        ? [{ id: ip.floatingIpId, networkId: ip.networkId, address: ip.address, bookings: ip.bookings, maintenance: ip.maintenance }]
        : [];
    });
  }

  allocate(
    request: Omit<HostAllocationRequest, 'cleaningTimeMs' | 'window'>,
    window: BookingWindow,
    candidates?: readonly HostSnapshot[],
  ): readonly string[] {
    const full = { ...request, window: { start: toMs(window.startDate), end: toMs(window.endDate) }, cleaningTimeMs: this.cleaningTimeMs };
    // every host: in id order, so that the policy stops at the first free ones (see allocateHostsInIdOrder)
    const result = candidates === undefined ? allocateHostsInIdOrder(full, this.hostsInIdOrder()) : allocateHosts(full, candidates);
    if (!result.ok) throw notEnoughHostsError(result);
    return result.hostIds;
  }

  /** The snapshots() hosts, made one by one as the policy asks for them. */
  private hostsInIdOrder(): HostsInIdOrder {
    const { ids, placeOf } = this.index.hostsInIdOrder();
    const stateAt = (place: number | undefined): RegisteredHost | undefined => {
      const hostId = ids[place ?? -1];
      if (hostId === undefined) return undefined;
      const state = this.hosts.touched(hostId) ?? this.index.host(hostId).state;
      return state.status === 'Registered' ? state : undefined;
    };
    const snapshotAt = (place: number | undefined): HostSnapshot | undefined => {
      const state = stateAt(place);
      return state === undefined ? undefined : toHostSnapshot(state);
    };
    // a host's snapshot carries its state's bookings as they are, so the state's calendar is the snapshot's
    // an admission books hosts, it never changes their capabilities: the log's index holds for its own states too
    const placesMatching = (query: HostQuery): readonly number[] | null => this.index.hostCapabilities().placesFor(query);
    return { count: ids.length, at: snapshotAt, calendarAt: stateAt, byId: (id) => snapshotAt(placeOf.get(id)), placesMatching };
  }

  /**
   * A running reservation keeps exactly its hosts: each must stay free for the new window from its own
   * booking's start (see keptStart), else 409 as for an allocation.
   */
  checkKeptHosts(hostIds: readonly string[], window: BookingWindow): void {
    const own = this.snapshots().filter((host) => hostIds.includes(host.id));
    const free = own.filter((host) => {
      const kept = this.keptStart(host.id, window, true);
      const span = { start: toMs(kept.startDate), end: toMs(kept.endDate) };
      return allocateHosts(
        { min: 1, max: 1, query: EMPTY_QUERY, reservationId: window.reservationId, window: span, cleaningTimeMs: this.cleaningTimeMs },
        [host],
      ).ok;
    });
    if (free.length < hostIds.length)
      throw notEnoughHostsError({ ok: false, matching: own.length, free: free.length, requested: hostIds.length });
  }

  book(hostId: string, window: BookingWindow): void {
    this.hosts.decide(hostId, { type: 'BookHost', data: { ...window, cleaningTimeMinutes: this.options.cleaningTimeMinutes } });
  }

  /** `started`: the reservation runs, and each of its bookings keeps its own start when later than the lease's (see keptStart). */
  move(hostId: string, window: BookingWindow, started = false): void {
    const { reservationId, startDate, endDate, propertyNames } = this.keptStart(hostId, window, started);
    const data = { reservationId, startDate, endDate, propertyNames, cleaningTimeMinutes: this.options.cleaningTimeMinutes };
    this.hosts.decide(hostId, { type: 'MoveHostBooking', data });
  }

  bookSlots(hostId: string, window: BookingWindow, slots: SlotDemand): void {
    const { cleaningTimeMinutes, allocationRatios } = this.options;
    this.hosts.decide(hostId, { type: 'BookHostSlots', data: { ...window, slots, cleaningTimeMinutes, allocationRatios } });
  }

  moveSlots(hostId: string, window: BookingWindow, slots: SlotDemand, started = false): void {
    const { reservationId, startDate, endDate, propertyNames } = this.keptStart(hostId, window, started);
    const { cleaningTimeMinutes, allocationRatios } = this.options;
    const data = { reservationId, startDate, endDate, propertyNames, slots, cleaningTimeMinutes, allocationRatios };
    this.hosts.decide(hostId, { type: 'MoveHostSlots', data });
  }

  /**
   * A running reservation's booking on a host that joined it later (a healing replacement) starts when it
   * joined: moving it back to the lease's start would claim a past that may have been another lease's.
   * A lease ended at once ("now" is the current minute) may end before that: the booking then ends where it starts.
   */
  private keptStart(hostId: string, window: BookingWindow, started: boolean): BookingWindow {
    if (!started) return window;
    const state = this.hosts.state(hostId);
    const booking = state.status === 'Registered' ? state.bookings.find((b) => b.reservationId === window.reservationId) : undefined;
    if (booking === undefined || booking.start <= toMs(window.startDate)) return window;
    return { ...window, startDate: booking.start < toMs(window.endDate) ? booking.startDate : window.endDate };
  }

  release(hostId: string, reservationId: string): void {
    if (this.hosts.state(hostId).status !== 'Registered') return;
    this.hosts.decide(hostId, { type: 'ReleaseHostBooking', data: { reservationId } });
  }

  bookFloatingIp(floatingIpId: string, window: BookingWindow): void {
    const { leaseId, reservationId, startDate, endDate } = window;
    const data = { leaseId, reservationId, startDate, endDate, cleaningTimeMinutes: this.options.cleaningTimeMinutes };
    this.floatingIps.decide(floatingIpId, { type: 'BookFloatingIp', data });
  }

  moveFloatingIp(floatingIpId: string, window: BookingWindow): void {
    const { reservationId, startDate, endDate } = window;
    const data = { reservationId, startDate, endDate, cleaningTimeMinutes: this.options.cleaningTimeMinutes };
    this.floatingIps.decide(floatingIpId, { type: 'MoveFloatingIpBooking', data });
  }

  releaseFloatingIp(floatingIpId: string, reservationId: string): void {
    if (this.floatingIps.state(floatingIpId).status !== 'Registered') return;
    this.floatingIps.decide(floatingIpId, { type: 'ReleaseFloatingIpBooking', data: { reservationId } });
  }

  /** A kind's registered resources as this admission leaves them, as its allocation policy sees them. */
  snapshotsOf<P>(kind: KindSnapshots<P>): P[] {
    const calendars = this.kindCalendars(kind.kind);
    return this.index.registeredKindResourceIds(kind.kind).flatMap((id) => {
      const snapshot = kind.calendar.snapshot(calendars.state(id) as never);
      return snapshot === null ? [] : [snapshot];
    });
  }

  bookResource(name: ResourceKindName, resourceId: string, window: BookingWindow): void {
    this.kindCalendars(name).decide(resourceId, resourceKind(name).calendar.book(window, this.options.cleaningTimeMinutes));
  }

  moveResource(name: ResourceKindName, resourceId: string, window: BookingWindow): void {
    this.kindCalendars(name).decide(resourceId, resourceKind(name).calendar.move(window, this.options.cleaningTimeMinutes));
  }

  releaseResource(name: ResourceKindName, resourceId: string, reservationId: string): void {
    const calendars = this.kindCalendars(name);
    const kind = resourceKind(name);
    if (kind.calendar.bookings(calendars.state(resourceId)) === null) return;
    calendars.decide(resourceId, kind.calendar.release(reservationId));
  }

  private kindCalendars(name: ResourceKindName): Calendars<unknown, Command, DomainEvent> {
    const calendars = this.kinds.get(name);
    if (calendars === undefined) throw new Error(`No resource kind ${name}`);
    return calendars;
  }

  /** One append per touched calendar, each under the revision its decisions were made on. */
  appends(metadata: EventMetadata, newId: () => string): AppendRequest[] {
    const kinds = [...this.kinds.values()].flatMap((calendars) => calendars.appends(metadata, newId));
    return [...this.hosts.appends(metadata, newId), ...this.floatingIps.appends(metadata, newId), ...kinds];
  }
}
