import type { Command } from '../shared/decider.js';
import type { AllocationRatios, Capabilities, HostInfo, SlotDemand } from './host.types.js';

export type RegisterHost = Command<
  'RegisterHost',
  { readonly hostId: string; readonly info: HostInfo; readonly capabilities: Capabilities; readonly now: string }
>;
export type UpdateHostCapabilities = Command<
  'UpdateHostCapabilities',
  { readonly capabilities: Capabilities; readonly now: string }
>;
export type SetHostReservable = Command<
  'SetHostReservable',
  { readonly reservable: boolean; readonly reason: string; readonly now: string }
>;
export type UnregisterHost = Command<'UnregisterHost', { readonly now: string }>;
export type BookHost = Command<
  'BookHost',
  {
    readonly reservationId: string;
    readonly leaseId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly propertyNames: readonly string[];
    readonly cleaningTimeMinutes: number;
    /** Instance slots to hold; null or absent books the whole host. */
    readonly slots?: SlotDemand | null;
    /** Required with slots: the ratios the host's capacity is judged with. */
    readonly allocationRatios?: AllocationRatios;
  }
>;
export type MoveHostBooking = Command<
  'MoveHostBooking',
  {
    readonly reservationId: string;
    readonly startDate: string;
    readonly endDate: string;
    /** Capability names the reservation depends on after the change (its properties may change too). */
    readonly propertyNames: readonly string[];
    readonly cleaningTimeMinutes: number;
    /** A slot booking's new slots (its count may change); ignored for whole-host bookings. */
    readonly slots?: SlotDemand | null;
    readonly allocationRatios?: AllocationRatios;
  }
>;
export type ReleaseHostBooking = Command<'ReleaseHostBooking', { readonly reservationId: string }>;

export type HostCommand =
  | RegisterHost
  | UpdateHostCapabilities
  | SetHostReservable
  | UnregisterHost
  | BookHost
  | MoveHostBooking
  | ReleaseHostBooking;
