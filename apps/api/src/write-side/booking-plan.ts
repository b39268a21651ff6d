import {
  type HostCommand,
  type HostEvent,
  type HostState,
  MINUTE_MS,
  type RegisteredHost,
  hostDecider,
  hostStream,
  toMs,
} from '../../../../libs/domain/src/index.js';
import type { AppendRequest, EventMetadata } from '../../../../libs/event-store/src/event-store.port.js';
import type { HostSnapshot } from '../../../../libs/plugins/src/physical-host/host-snapshot.js';
import { type HostAllocationRequest, allocateHosts, notEnoughHostsError } from '../../../../libs/plugins/src/physical-host/host-allocation.policy.js';
import { appendRequest } from './event-envelope.js';
import { toHostSnapshot, type Versioned, type WriteIndex } from './write-index.js';

interface Working extends Versioned<HostState> {
  readonly events: HostEvent[];
}

export interface BookingWindow {
  readonly leaseId: string;
  readonly reservationId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly propertyNames: readonly string[];
}

/**
 * The host-side half of one admission: decides bookings on a working copy of the hosts' states (so
 * two reservations of one lease never pick the same host) and yields one append per touched host,
 * each guarded by the revision its decision was made on.
 */
export class BookingPlan {
  private readonly working = new Map<string, Working>();

  constructor(
    private readonly index: WriteIndex,
    private readonly cleaningTimeMinutes: number,
  ) {}

  private current(hostId: string): Working {
    const existing = this.working.get(hostId);
    if (existing !== undefined) return existing;
    const fresh = { ...this.index.host(hostId), events: [] };
    this.working.set(hostId, fresh);
    return fresh;
  }

  private decide(hostId: string, command: HostCommand): void {
    const host = this.current(hostId);
    const events = hostDecider.decide(command, host.state);
    const state = events.reduce(hostDecider.evolve, host.state);
    this.working.set(hostId, { state, revision: host.revision, events: [...host.events, ...events] });
  }

  snapshots(): HostSnapshot[] {
    return this.index
      .registeredHosts()
      .map((host) => this.working.get(host.hostId)?.state ?? host)
      .filter((state): state is RegisteredHost => state.status === 'Registered')
      .map(toHostSnapshot);
  }

  allocate(request: Omit<HostAllocationRequest, 'cleaningTimeMs' | 'window'>, window: BookingWindow, candidates?: readonly HostSnapshot[]): readonly string[] {
    const result = allocateHosts(
      { ...request, window: { start: toMs(window.startDate), end: toMs(window.endDate) }, cleaningTimeMs: this.cleaningTimeMinutes * MINUTE_MS },
      candidates ?? this.snapshots(),
    );
    if (!result.ok) throw notEnoughHostsError(result);
    return result.hostIds;
  }

  book(hostId: string, window: BookingWindow): void {
    this.decide(hostId, { type: 'BookHost', data: { ...window, cleaningTimeMinutes: this.cleaningTimeMinutes } });
  }

  move(hostId: string, window: BookingWindow): void {
    const { reservationId, startDate, endDate, propertyNames } = window;
    const data = { reservationId, startDate, endDate, propertyNames, cleaningTimeMinutes: this.cleaningTimeMinutes };
    this.decide(hostId, { type: 'MoveHostBooking', data });
  }

  release(hostId: string, reservationId: string): void {
    if (this.current(hostId).state.status !== 'Registered') return;
    this.decide(hostId, { type: 'ReleaseHostBooking', data: { reservationId } });
  }

  appends(metadata: EventMetadata): AppendRequest[] {
    return [...this.working.entries()]
      .filter(([, host]) => host.events.length > 0)
      .map(([hostId, host]) => appendRequest(hostStream(hostId), host.revision, host.events, metadata));
  }
}
