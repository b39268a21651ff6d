import type { Command } from '../shared/decider.js';
import type { CancelMaintenanceData, ScheduleMaintenanceData } from '../shared/maintenance.js';
import type { FloatingIpInfo } from './floating-ip.types.js';

export type RegisterFloatingIp = Command<'RegisterFloatingIp', FloatingIpInfo & { readonly now: string }>;
export type UnregisterFloatingIp = Command<'UnregisterFloatingIp', { readonly now: string }>;
export type BookFloatingIp = Command<
  'BookFloatingIp',
  {
    readonly reservationId: string;
    readonly leaseId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly cleaningTimeMinutes: number;
  }
>;
export type MoveFloatingIpBooking = Command<
  'MoveFloatingIpBooking',
  { readonly reservationId: string; readonly startDate: string; readonly endDate: string; readonly cleaningTimeMinutes: number }
>;
export type ReleaseFloatingIpBooking = Command<'ReleaseFloatingIpBooking', { readonly reservationId: string }>;

/** Takes the address out of service for [startDate, endDate) (docs/maintenance.md). */
export type ScheduleFloatingIpMaintenance = Command<'ScheduleFloatingIpMaintenance', ScheduleMaintenanceData>;
export type CancelFloatingIpMaintenance = Command<'CancelFloatingIpMaintenance', CancelMaintenanceData>;

export type FloatingIpCommand =
  | RegisterFloatingIp
  | UnregisterFloatingIp
  | BookFloatingIp
  | MoveFloatingIpBooking
  | ReleaseFloatingIpBooking
  | ScheduleFloatingIpMaintenance
  | CancelFloatingIpMaintenance;
