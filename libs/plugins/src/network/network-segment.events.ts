import type { DomainEvent } from '#domain/index.js';
import type { NetworkCapabilities, NetworkSegmentInfo } from './network-segment.types.js';

export type NetworkSegmentRegistered = DomainEvent<
  'NetworkSegment.Registered',
  NetworkSegmentInfo & { readonly capabilities: NetworkCapabilities; readonly registeredAt: string }
>;
/** `capabilities`: the ones set (new or changed values); `removed`: the names unset. */
export type NetworkSegmentUpdated = DomainEvent<
  'NetworkSegment.Updated',
  {
    readonly networkId: string;
    readonly capabilities: NetworkCapabilities;
    readonly removed: readonly string[];
    readonly updatedAt: string;
  }
>;
export type NetworkSegmentUnregistered = DomainEvent<
  'NetworkSegment.Unregistered',
  NetworkSegmentInfo & { readonly unregisteredAt: string }
>;

interface BookingFacts {
  readonly networkId: string;
  readonly reservationId: string;
  readonly leaseId: string;
}

interface Window {
  readonly startDate: string;
  readonly endDate: string;
  /** The capability names the reservation's request depends on: they cannot change while it holds the segment. */
  readonly propertyNames: readonly string[];
}

export type NetworkSegmentBooked = DomainEvent<'NetworkSegment.Booked', BookingFacts & Window>;
/** Names its lease too (unlike the host and floating-IP moves): the event alone says whose booking moved. */
export type NetworkSegmentBookingMoved = DomainEvent<'NetworkSegment.BookingMoved', BookingFacts & Window>;
export type NetworkSegmentBookingReleased = DomainEvent<'NetworkSegment.BookingReleased', BookingFacts>;

export type NetworkSegmentBookingEvent = NetworkSegmentBooked | NetworkSegmentBookingMoved | NetworkSegmentBookingReleased;

/** An operator took the segment out of service for [startDate, endDate): no new booking may reach into it. */
export type NetworkSegmentMaintenanceScheduled = DomainEvent<
  'NetworkSegment.MaintenanceScheduled',
  {
    readonly networkId: string;
    readonly windowId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly reason: string;
    readonly scheduledAt: string;
  }
>;
export type NetworkSegmentMaintenanceCancelled = DomainEvent<
  'NetworkSegment.MaintenanceCancelled',
  { readonly networkId: string; readonly windowId: string; readonly cancelledAt: string }
>;

export type NetworkSegmentEvent =
  | NetworkSegmentRegistered
  | NetworkSegmentUpdated
  | NetworkSegmentUnregistered
  | NetworkSegmentBookingEvent
  | NetworkSegmentMaintenanceScheduled
  | NetworkSegmentMaintenanceCancelled;

export const NETWORK_BOOKING_EVENT_TYPES: readonly NetworkSegmentBookingEvent['type'][] = [
  'NetworkSegment.Booked',
  'NetworkSegment.BookingMoved',
  'NetworkSegment.BookingReleased',
];
