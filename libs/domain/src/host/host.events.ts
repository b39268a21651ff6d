import type { DomainEvent } from '../shared/decider.js';
import type { EnrollmentRecord } from './host.commands.js';
import type { Capabilities, HealthSource, HostDownReason, HostInfo, SlotDemand } from './host.types.js';

export type HostRegistered = DomainEvent<
  'Host.Registered',
  { readonly hostId: string; readonly info: HostInfo; readonly capabilities: Capabilities; readonly registeredAt: string }
>;
export type HostCapabilitiesUpdated = DomainEvent<
  'Host.CapabilitiesUpdated',
  { readonly hostId: string; readonly capabilities: Capabilities; readonly updatedAt: string }
>;
export type HostReservableChanged = DomainEvent<
  'Host.ReservableChanged',
  { readonly hostId: string; readonly reservable: boolean; readonly reason: string; readonly changedAt: string }
>;
/** An operator took the host out of service for [startDate, endDate): no new booking may reach into it. */
export type HostMaintenanceScheduled = DomainEvent<
  'Host.MaintenanceScheduled',
  {
    readonly hostId: string;
    readonly windowId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly reason: string;
    readonly scheduledAt: string;
  }
>;
export type HostMaintenanceCancelled = DomainEvent<
  'Host.MaintenanceCancelled',
  { readonly hostId: string; readonly windowId: string; readonly cancelledAt: string }
>;
export type HostUnregistered = DomainEvent<
  'Host.Unregistered',
  { readonly hostId: string; readonly hypervisorHostname: string; readonly unregisteredAt: string }
>;
export type HostBooked = DomainEvent<
  'Host.Booked',
  {
    readonly hostId: string;
    readonly reservationId: string;
    readonly leaseId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly propertyNames: readonly string[];
  }
>;
export type HostSlotsBooked = DomainEvent<
  'Host.SlotsBooked',
  {
    readonly hostId: string;
    readonly reservationId: string;
    readonly leaseId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly propertyNames: readonly string[];
    readonly slots: SlotDemand;
  }
>;
export type HostBookingMoved = DomainEvent<
  'Host.BookingMoved',
  {
    readonly hostId: string;
    readonly reservationId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly propertyNames: readonly string[];
  }
>;
export type HostSlotsMoved = DomainEvent<
  'Host.SlotsMoved',
  {
    readonly hostId: string;
    readonly reservationId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly propertyNames: readonly string[];
    readonly slots: SlotDemand;
  }
>;
export type HostBookingReleased = DomainEvent<
  'Host.BookingReleased',
  { readonly hostId: string; readonly reservationId: string; readonly leaseId: string }
>;

export type HostWentDown = DomainEvent<
  'Host.WentDown',
  { readonly hostId: string; readonly reasons: readonly HostDownReason[]; readonly source: HealthSource; readonly observedAt: string }
>;
export type HostDownReasonsChanged = DomainEvent<
  'Host.DownReasonsChanged',
  { readonly hostId: string; readonly reasons: readonly HostDownReason[]; readonly source: HealthSource; readonly observedAt: string }
>;
export type HostCameUp = DomainEvent<
  'Host.CameUp',
  { readonly hostId: string; readonly source: HealthSource; readonly observedAt: string }
>;

/** The host joined the cloud's free pool (freepool aggregate and its Placement child provider). */
export type HostEnrolled = DomainEvent<
  'Host.Enrolled',
  { readonly hostId: string; readonly effects: readonly EnrollmentRecord[]; readonly enrolledAt: string }
>;
export type HostEnrollmentFailed = DomainEvent<
  'Host.EnrollmentFailed',
  { readonly hostId: string; readonly error: string; readonly effects: readonly EnrollmentRecord[]; readonly failedAt: string }
>;
/** The removed host left the cloud's free pool. */
export type HostUnenrolled = DomainEvent<
  'Host.Unenrolled',
  { readonly hostId: string; readonly effects: readonly EnrollmentRecord[]; readonly unenrolledAt: string }
>;
export type HostUnenrollmentFailed = DomainEvent<
  'Host.UnenrollmentFailed',
  { readonly hostId: string; readonly error: string; readonly effects: readonly EnrollmentRecord[]; readonly failedAt: string }
>;

export type HostEvent =
  | HostRegistered
  | HostCapabilitiesUpdated
  | HostReservableChanged
  | HostUnregistered
  | HostBooked
  | HostSlotsBooked
  | HostBookingMoved
  | HostSlotsMoved
  | HostBookingReleased
  | HostWentDown
  | HostDownReasonsChanged
  | HostCameUp
  | HostEnrolled
  | HostEnrollmentFailed
  | HostUnenrolled
  | HostUnenrollmentFailed
  | HostMaintenanceScheduled
  | HostMaintenanceCancelled;

export const HOST_EVENT_TYPES: readonly HostEvent['type'][] = [
  'Host.Registered',
  'Host.CapabilitiesUpdated',
  'Host.ReservableChanged',
  'Host.Unregistered',
  'Host.Booked',
  'Host.SlotsBooked',
  'Host.BookingMoved',
  'Host.SlotsMoved',
  'Host.BookingReleased',
  'Host.WentDown',
  'Host.DownReasonsChanged',
  'Host.CameUp',
  'Host.Enrolled',
  'Host.EnrollmentFailed',
  'Host.Unenrolled',
  'Host.UnenrollmentFailed',
  'Host.MaintenanceScheduled',
  'Host.MaintenanceCancelled',
];
