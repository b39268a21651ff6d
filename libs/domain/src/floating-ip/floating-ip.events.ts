import type { DomainEvent } from '../shared/decider.js';
import type { FloatingIpInfo } from './floating-ip.types.js';

export type FloatingIpRegistered = DomainEvent<'FloatingIp.Registered', FloatingIpInfo & { readonly registeredAt: string }>;
export type FloatingIpUnregistered = DomainEvent<
  'FloatingIp.Unregistered',
  { readonly floatingIpId: string; readonly networkId: string; readonly address: string; readonly unregisteredAt: string }
>;
export type FloatingIpBooked = DomainEvent<
  'FloatingIp.Booked',
  {
    readonly floatingIpId: string;
    readonly reservationId: string;
    readonly leaseId: string;
    readonly startDate: string;
    readonly endDate: string;
  }
>;
export type FloatingIpBookingMoved = DomainEvent<
  'FloatingIp.BookingMoved',
  { readonly floatingIpId: string; readonly reservationId: string; readonly startDate: string; readonly endDate: string }
>;
export type FloatingIpBookingReleased = DomainEvent<
  'FloatingIp.BookingReleased',
  { readonly floatingIpId: string; readonly reservationId: string; readonly leaseId: string }
>;

/** An operator took the address out of service for [startDate, endDate): no new booking may reach into it. */
export type FloatingIpMaintenanceScheduled = DomainEvent<
  'FloatingIp.MaintenanceScheduled',
  {
    readonly floatingIpId: string;
    readonly windowId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly reason: string;
    readonly scheduledAt: string;
  }
>;
export type FloatingIpMaintenanceCancelled = DomainEvent<
  'FloatingIp.MaintenanceCancelled',
  { readonly floatingIpId: string; readonly windowId: string; readonly cancelledAt: string }
>;

export type FloatingIpEvent =
  | FloatingIpRegistered
  | FloatingIpUnregistered
  | FloatingIpBooked
  | FloatingIpBookingMoved
  | FloatingIpBookingReleased
  | FloatingIpMaintenanceScheduled
  | FloatingIpMaintenanceCancelled;

export const FLOATING_IP_EVENT_TYPES: readonly FloatingIpEvent['type'][] = [
  'FloatingIp.Registered',
  'FloatingIp.Unregistered',
  'FloatingIp.Booked',
  'FloatingIp.BookingMoved',
  'FloatingIp.BookingReleased',
  'FloatingIp.MaintenanceScheduled',
  'FloatingIp.MaintenanceCancelled',
];
