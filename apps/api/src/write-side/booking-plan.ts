import {
  type AllocationRatios,
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
} from '../../../../libs/domain/src/index.js';
import type { AppendRequest, EventMetadata } from '../../../../libs/event-store/src/event-store.port.js';
import type { FloatingIpSnapshot } from '../../../../libs/plugins/src/floating-ip/floating-ip-snapshot.js';
import type { HostSnapshot } from '../../../../libs/plugins/src/physical-host/host-snapshot.js';
import { type HostAllocationRequest, allocateHosts, notEnoughHostsError } from '../../../../libs/plugins/src/physical-host/host-allocation.policy.js';
import { appendRequest } from './event-envelope.js';
import { toHostSnapshot, type Versioned, type WriteIndex } from './write-index.js';

interface Working<S, E> extends Versioned<S> {
  readonly events: E[];
}

export interface BookingWindow {
  readonly leaseId: string;
  readonly reservationId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly propertyNames: readonly string[];
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

  appends(metadata: EventMetadata): AppendRequest[] {
    return [...this.working.entries()]
      .filter(([, entry]) => entry.events.length > 0)
      .map(([id, entry]) => appendRequest(this.stream(id), entry.revision, entry.events, metadata));
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
export class BookingPlan {
  private readonly hosts: Calendars<HostState, HostCommand, HostEvent>;
  private readonly floatingIps: Calendars<FloatingIpState, FloatingIpCommand, FloatingIpEvent>;

  constructor(
    private readonly index: WriteIndex,
    private readonly options: BookingPlanOptions,
  ) {
    this.hosts = new Calendars((id) => index.host(id), hostDecider, hostStream);
    this.floatingIps = new Calendars((id) => index.floatingIp(id), floatingIpDecider, floatingIpStream);
  }

  get cleaningTimeMs(): number {
    return this.options.cleaningTimeMinutes * MINUTE_MS;
  }

  get allocationRatios(): AllocationRatios {
    return this.options.allocationRatios;
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
      return ip.status === 'Registered' ? [{ id: ip.floatingIpId, networkId: ip.networkId, address: ip.address, bookings: ip.bookings }] : [];
    });
  }

  allocate(request: Omit<HostAllocationRequest, 'cleaningTimeMs' | 'window'>, window: BookingWindow, candidates?: readonly HostSnapshot[]): readonly string[] {
    const result = allocateHosts(
      { ...request, window: { start: toMs(window.startDate), end: toMs(window.endDate) }, cleaningTimeMs: this.cleaningTimeMs },
      candidates ?? this.snapshots(),
    );
    if (!result.ok) throw notEnoughHostsError(result);
    return result.hostIds;
  }

  book(hostId: string, window: BookingWindow): void {
    this.hosts.decide(hostId, { type: 'BookHost', data: { ...window, cleaningTimeMinutes: this.options.cleaningTimeMinutes } });
  }

  move(hostId: string, window: BookingWindow): void {
    const { reservationId, startDate, endDate, propertyNames } = window;
    const data = { reservationId, startDate, endDate, propertyNames, cleaningTimeMinutes: this.options.cleaningTimeMinutes };
    this.hosts.decide(hostId, { type: 'MoveHostBooking', data });
  }

  bookSlots(hostId: string, window: BookingWindow, slots: SlotDemand): void {
    const { cleaningTimeMinutes, allocationRatios } = this.options;
    this.hosts.decide(hostId, { type: 'BookHostSlots', data: { ...window, slots, cleaningTimeMinutes, allocationRatios } });
  }

  moveSlots(hostId: string, window: BookingWindow, slots: SlotDemand): void {
    const { reservationId, startDate, endDate, propertyNames } = window;
    const { cleaningTimeMinutes, allocationRatios } = this.options;
    const data = { reservationId, startDate, endDate, propertyNames, slots, cleaningTimeMinutes, allocationRatios };
    this.hosts.decide(hostId, { type: 'MoveHostSlots', data });
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

  appends(metadata: EventMetadata): AppendRequest[] {
    return [...this.hosts.appends(metadata), ...this.floatingIps.appends(metadata)];
  }
}
