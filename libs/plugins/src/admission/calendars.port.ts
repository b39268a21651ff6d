import type { AllocationRatios, SlotDemand } from '#domain/index.js';
import type { FloatingIpSnapshot } from '../floating-ip/floating-ip-snapshot.js';
import type { HostAllocationRequest } from '../physical-host/host-allocation.policy.js';
import type { HostSnapshot } from '../physical-host/host-snapshot.js';

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
}
