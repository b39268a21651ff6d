/**
 * Test-only fixtures for host calendar specs (not exported from the package index, not built).
 *
 * Host 7 with 8 vcpus, 16 GiB of memory and 100 GB of disk, registered the day before; every time is
 * a fixed string on 2030-01-01. Pure data: no test framework, no I/O, no clock.
 */
import type { BookHost, BookHostSlots, MoveHostBooking, MoveHostSlots, ReleaseHostBooking } from '../host.commands.js';
import type {
  HostBooked,
  HostBookingMoved,
  HostBookingReleased,
  HostRegistered,
  HostReservableChanged,
  HostSlotsBooked,
  HostSlotsMoved,
} from '../host.events.js';
import { type AllocationRatios, DEFAULT_ALLOCATION_RATIOS, type HostInfo, type SlotDemand } from '../host.types.js';

export const HOST_ID = '7';
export const LEASE_ID = 'lease-1';
export const REGISTERED_AT = '2029-12-31T12:00:00.000Z';

const pad = (n: number): string => String(n).padStart(2, '0');
/** '2030-01-01T<hh>:<mm>:00.000Z' */
export const at = (hours: number, minutes = 0): string => `2030-01-01T${pad(hours)}:${pad(minutes)}:00.000Z`;

/** 8 vcpus, 16384 MB, 100 GB. */
export const smallHostInfo = (overrides: Partial<HostInfo> = {}): HostInfo => ({
  hypervisorHostname: 'compute-7',
  serviceName: 'nova-compute',
  vcpus: 8,
  memoryMb: 16384,
  localGb: 100,
  cpuInfo: '{"arch": "x86_64"}',
  hypervisorType: 'QEMU',
  hypervisorVersion: 6002000,
  availabilityZone: 'nova',
  ...overrides,
});

export const hostRegistered = (info: HostInfo = smallHostInfo()): HostRegistered => ({
  type: 'Host.Registered',
  data: { hostId: HOST_ID, info, capabilities: {}, registeredAt: REGISTERED_AT },
});

/** `count` slots of 1 vcpu, 1024 MB and 10 GB unless overridden. */
export const slots = (count: number, overrides: Partial<Omit<SlotDemand, 'count'>> = {}): SlotDemand => ({
  count,
  vcpus: 1,
  memoryMb: 1024,
  diskGb: 10,
  ...overrides,
});

/** A booking's window and what it holds, as the commands and events of these specs take them. */
export interface Hold {
  readonly startDate: string;
  readonly endDate: string;
  readonly propertyNames?: readonly string[];
}

// Events

export const hostBooked = (reservationId: string, { startDate, endDate, propertyNames = [] }: Hold): HostBooked => ({
  type: 'Host.Booked',
  data: { hostId: HOST_ID, reservationId, leaseId: LEASE_ID, startDate, endDate, propertyNames },
});

export const slotsBooked = (
  reservationId: string,
  demand: SlotDemand,
  { startDate, endDate, propertyNames = [] }: Hold,
): HostSlotsBooked => ({
  type: 'Host.SlotsBooked',
  data: { hostId: HOST_ID, reservationId, leaseId: LEASE_ID, startDate, endDate, propertyNames, slots: demand },
});

export const hostBookingMoved = (reservationId: string, { startDate, endDate, propertyNames = [] }: Hold): HostBookingMoved => ({
  type: 'Host.BookingMoved',
  data: { hostId: HOST_ID, reservationId, startDate, endDate, propertyNames },
});

export const slotsMoved = (
  reservationId: string,
  demand: SlotDemand,
  { startDate, endDate, propertyNames = [] }: Hold,
): HostSlotsMoved => ({
  type: 'Host.SlotsMoved',
  data: { hostId: HOST_ID, reservationId, startDate, endDate, propertyNames, slots: demand },
});

export const hostBookingReleased = (reservationId: string): HostBookingReleased => ({
  type: 'Host.BookingReleased',
  data: { hostId: HOST_ID, reservationId, leaseId: LEASE_ID },
});

export const hostReservableChanged = (reservable: boolean): HostReservableChanged => ({
  type: 'Host.ReservableChanged',
  data: { hostId: HOST_ID, reservable, reason: 'maintenance', changedAt: at(9) },
});

// Commands

export interface SlotOptions extends Hold {
  readonly cleaningTimeMinutes?: number;
  readonly allocationRatios?: AllocationRatios;
}

export const bookHost = (
  reservationId: string,
  { startDate, endDate, propertyNames = [], cleaningTimeMinutes = 0 }: SlotOptions,
): BookHost => ({
  type: 'BookHost',
  data: { reservationId, leaseId: LEASE_ID, startDate, endDate, propertyNames, cleaningTimeMinutes },
});

export const bookSlots = (reservationId: string, demand: SlotDemand, options: SlotOptions): BookHostSlots => {
  const { startDate, endDate, propertyNames = [], cleaningTimeMinutes = 0, allocationRatios = DEFAULT_ALLOCATION_RATIOS } = options;
  return {
    type: 'BookHostSlots',
    data: { reservationId, leaseId: LEASE_ID, startDate, endDate, propertyNames, cleaningTimeMinutes, slots: demand, allocationRatios },
  };
};

export const moveHostBooking = (
  reservationId: string,
  { startDate, endDate, propertyNames = [], cleaningTimeMinutes = 0 }: SlotOptions,
): MoveHostBooking => ({
  type: 'MoveHostBooking',
  data: { reservationId, startDate, endDate, propertyNames, cleaningTimeMinutes },
});

export const moveSlots = (reservationId: string, demand: SlotDemand, options: SlotOptions): MoveHostSlots => {
  const { startDate, endDate, propertyNames = [], cleaningTimeMinutes = 0, allocationRatios = DEFAULT_ALLOCATION_RATIOS } = options;
  return {
    type: 'MoveHostSlots',
    data: { reservationId, startDate, endDate, propertyNames, cleaningTimeMinutes, slots: demand, allocationRatios },
  };
};

export const releaseHostBooking = (reservationId: string): ReleaseHostBooking => ({ type: 'ReleaseHostBooking', data: { reservationId } });

/** A deterministic PRNG (32-bit LCG, Numerical Recipes constants) so property-style specs replay exactly. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 0x1_0000_0000;
  };
};

/** An integer in [min, max] drawn from `random`. */
export const randomInt = (random: () => number, min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
