import type { AllocationRatios, SlotDemand } from '#domain/index.js';
import type { FloatingIpSnapshot } from '../floating-ip/floating-ip-snapshot.js';
import type { HostAllocationRequest } from '../physical-host/host-allocation.policy.js';
import type { HostSnapshot } from '../physical-host/host-snapshot.js';
import type { ResourceKindName } from '../resource-kinds.js';

/** A resource kind, as far as its allocation policy's snapshots go (the kind's module, resource-kinds.ts). */
export interface KindSnapshots<P> {
  readonly kind: ResourceKindName;
  readonly calendar: { snapshot(state: never): P | null };
}

/** Where and when one reservation books: its lease's window and the capabilities it depends on. */
export interface BookingWindow {
  readonly leaseId: string;
  readonly reservationId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly propertyNames: readonly string[];
}

/**
 * The calendars an admission books against (the application's BookingPlan): capacity snapshots to
 * choose from, and bookings decided on working copies, so two reservations of one lease never take
 * the same capacity twice. Each booking call is decided by the host's or floating IP's own decider,
 * which enforces the calendar's invariants again.
 */
export interface ReservationCalendars {
  /** Blazar's cleaning time between two leases of one resource. */
  readonly cleaningTimeMs: number;
  /** Nova's cpu/ram/disk allocation ratios for instance slots. */
  readonly allocationRatios: AllocationRatios;
  /** Every registered host as it stands with this admission's bookings so far. */
  snapshots(): HostSnapshot[];
  floatingIpSnapshots(): FloatingIpSnapshot[];
  /** Hosts for the window, chosen by the host policy among `candidates` (default: every host); 409 when too few are free. */
  allocate(
    request: Omit<HostAllocationRequest, 'cleaningTimeMs' | 'window'>,
    window: BookingWindow,
    candidates?: readonly HostSnapshot[],
  ): readonly string[];
  /** A running reservation keeps exactly these hosts: 409 unless each stays free over the new window. */
  checkKeptHosts(hostIds: readonly string[], window: BookingWindow): void;
  book(hostId: string, window: BookingWindow): void;
  /** `started`: each booking of a running reservation keeps its own start when later than the window's. */
  move(hostId: string, window: BookingWindow, started?: boolean): void;
  release(hostId: string, reservationId: string): void;
  bookSlots(hostId: string, window: BookingWindow, slots: SlotDemand): void;
  moveSlots(hostId: string, window: BookingWindow, slots: SlotDemand, started?: boolean): void;
  bookFloatingIp(floatingIpId: string, window: BookingWindow): void;
  moveFloatingIp(floatingIpId: string, window: BookingWindow): void;
  releaseFloatingIp(floatingIpId: string, reservationId: string): void;
  /** Every registered resource of a kind (resource-kinds.ts) as it stands with this admission's bookings so far. */
  snapshotsOf<P>(kind: KindSnapshots<P>): P[];
  /** Books, moves or releases a resource of a kind, decided by the kind's own decider (its calendar's invariant enforced again). */
  bookResource(kind: ResourceKindName, resourceId: string, window: BookingWindow): void;
  moveResource(kind: ResourceKindName, resourceId: string, window: BookingWindow): void;
  releaseResource(kind: ResourceKindName, resourceId: string, reservationId: string): void;
}
