import type { Command } from '../shared/decider.js';
import type { AllocationRatios, Capabilities, HealthSource, HostDownReason, HostInfo, SlotDemand } from './host.types.js';

export type RegisterHost = Command<
  'RegisterHost',
  { readonly hostId: string; readonly info: HostInfo; readonly capabilities: Capabilities; readonly now: string }
>;
export type UpdateHostCapabilities = Command<'UpdateHostCapabilities', { readonly capabilities: Capabilities; readonly now: string }>;
export type SetHostReservable = Command<
  'SetHostReservable',
  { readonly reservable: boolean; readonly reason: string; readonly now: string }
>;
/** Takes the host out of service for [startDate, endDate), ISO-8601 UTC; `windowId` is the caller's new id. */
export type ScheduleHostMaintenance = Command<
  'ScheduleHostMaintenance',
  { readonly windowId: string; readonly startDate: string; readonly endDate: string; readonly reason: string; readonly now: string }
>;
export type CancelHostMaintenance = Command<'CancelHostMaintenance', { readonly windowId: string; readonly now: string }>;
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
  }
>;
/** Books instance slots on a host (the whole host stays shared with other slot bookings). */
export type BookHostSlots = Command<
  'BookHostSlots',
  {
    readonly reservationId: string;
    readonly leaseId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly propertyNames: readonly string[];
    readonly cleaningTimeMinutes: number;
    readonly slots: SlotDemand;
    /** The ratios the host's capacity is judged with (configuration, passed in). */
    readonly allocationRatios: AllocationRatios;
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
  }
>;
/** Moves a slot booking and/or changes its slots. */
export type MoveHostSlots = Command<
  'MoveHostSlots',
  {
    readonly reservationId: string;
    readonly startDate: string;
    readonly endDate: string;
    readonly propertyNames: readonly string[];
    readonly cleaningTimeMinutes: number;
    readonly slots: SlotDemand;
    readonly allocationRatios: AllocationRatios;
  }
>;
export type ReleaseHostBooking = Command<'ReleaseHostBooking', { readonly reservationId: string }>;

/** What a monitor saw of the host's compute service: no reasons means it is up. */
export type ReportHostHealth = Command<
  'ReportHostHealth',
  { readonly reasons: readonly HostDownReason[]; readonly source: HealthSource; readonly observedAt: string }
>;

/** What an enrollment adapter reports it did to the cloud (the lease effects' record shape). */
export type EnrollmentRecord = Readonly<{ operation: string; [detail: string]: unknown }>;

export type EnrollmentOutcome =
  | { readonly ok: true; readonly effects: readonly EnrollmentRecord[] }
  | { readonly ok: false; readonly error: string; readonly effects: readonly EnrollmentRecord[] };

/**
 * What the reactor did to put a registered host into the cloud's free pool (`enroll`), or to take a
 * removed one out of it (`unenroll`).
 */
export type RecordHostEnrollment = Command<
  'RecordHostEnrollment',
  { readonly hostId: string; readonly direction: 'enroll' | 'unenroll'; readonly outcome: EnrollmentOutcome; readonly now: string }
>;

export type HostCommand =
  | RegisterHost
  | UpdateHostCapabilities
  | SetHostReservable
  | UnregisterHost
  | BookHost
  | BookHostSlots
  | MoveHostBooking
  | MoveHostSlots
  | ReleaseHostBooking
  | ReportHostHealth
  | RecordHostEnrollment
  | ScheduleHostMaintenance
  | CancelHostMaintenance;
