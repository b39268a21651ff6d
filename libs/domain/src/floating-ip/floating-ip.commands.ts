import type { Command } from '../shared/decider.js';
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

export type FloatingIpCommand =
  RegisterFloatingIp | UnregisterFloatingIp | BookFloatingIp | MoveFloatingIpBooking | ReleaseFloatingIpBooking;
