import type { CancelMaintenanceData, Command, ScheduleMaintenanceData } from '#domain/index.js';
import type { NetworkCapabilities, NetworkSegmentInfo } from './network-segment.types.js';

export type RegisterNetworkSegment = Command<
  'RegisterNetworkSegment',
  NetworkSegmentInfo & { readonly capabilities: NetworkCapabilities; readonly now: string }
>;
/** Extra capabilities to set and to remove (Chameleon's PUT, a null value unsets); the segment itself never changes. */
export type UpdateNetworkSegment = Command<
  'UpdateNetworkSegment',
  { readonly set: NetworkCapabilities; readonly unset: readonly string[]; readonly now: string }
>;
export type UnregisterNetworkSegment = Command<'UnregisterNetworkSegment', { readonly now: string }>;

interface BookingData {
  readonly reservationId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly propertyNames: readonly string[];
  readonly cleaningTimeMinutes: number;
}

export type BookNetworkSegment = Command<'BookNetworkSegment', BookingData & { readonly leaseId: string }>;
export type MoveNetworkSegmentBooking = Command<'MoveNetworkSegmentBooking', BookingData>;
export type ReleaseNetworkSegmentBooking = Command<'ReleaseNetworkSegmentBooking', { readonly reservationId: string }>;

/** Takes the segment out of service for [startDate, endDate) (docs/maintenance.md). */
export type ScheduleNetworkSegmentMaintenance = Command<'ScheduleNetworkSegmentMaintenance', ScheduleMaintenanceData>;
export type CancelNetworkSegmentMaintenance = Command<'CancelNetworkSegmentMaintenance', CancelMaintenanceData>;

export type NetworkSegmentCommand =
  | ScheduleNetworkSegmentMaintenance
  | CancelNetworkSegmentMaintenance
  | RegisterNetworkSegment
  | UpdateNetworkSegment
  | UnregisterNetworkSegment
  | BookNetworkSegment
  | MoveNetworkSegmentBooking
  | ReleaseNetworkSegmentBooking;
