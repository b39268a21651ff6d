import { conflict, invalid, notFound } from '../shared/errors.js';
import { MINUTE_MS, toMs } from '../shared/interval.js';
import { clearOfMaintenance } from '../shared/maintenance.js';
import { freeSlotCount, slotCapacity, wholeHostFree } from './host.capacity.js';
import type { HostState, RegisteredHost } from './host.state.js';
import {
  type AllocationRatios,
  type Booking,
  type Capabilities,
  type HostDownReason,
  MAX_CAPABILITY_KEY_LENGTH,
  type SlotDemand,
} from './host.types.js';

export const requireRegistered = (state: HostState): RegisteredHost => {
  if (state.status !== 'Registered') {
    const id = state.status === 'Removed' ? state.hostId : 'unknown';
    throw notFound('HOST_NOT_FOUND', `Host ${id} not found`);
  }
  return state;
};

export const checkCapabilityKeys = (capabilities: Capabilities): void => {
  for (const key of Object.keys(capabilities)) {
    if (key.length > MAX_CAPABILITY_KEY_LENGTH) throw invalid('EXTRA_CAPABILITY_TOO_LONG', 'Extra capability key too long');
    if (key.length === 0) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter extra capability (empty key)');
  }
};

/** Bookings that have not ended at `now`: what makes a host "reserved now or in future". */
export const liveBookings = (host: RegisteredHost, now: string): Booking[] => host.bookings.filter((b) => b.end > toMs(now));

export const isReferenced = (host: RegisteredHost, key: string, now: string): boolean =>
  liveBookings(host, now).some((b) => b.propertyNames.includes(key));

export interface BookingRequest {
  readonly reservationId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly cleaningTimeMinutes: number;
  readonly slots: SlotDemand | null;
  readonly allocationRatios: AllocationRatios;
}

const isSlotDemand = (slots: SlotDemand | null): slots is SlotDemand => slots !== null;

const checkSlotDemand = (slots: SlotDemand): void => {
  const whole = (value: number, min: number): boolean => Number.isSafeInteger(value) && value >= min;
  if (!whole(slots.count, 1) || !whole(slots.vcpus, 1) || !whole(slots.memoryMb, 1) || !whole(slots.diskGb, 0)) {
    throw invalid('INVALID_SLOTS', 'Instance slots need count, vcpus and memory_mb of at least 1 and disk_gb of at least 0');
  }
};

/**
 * The host's calendar invariant: a whole-host booking shares its window (widened by the cleaning
 * time) with nothing; slot bookings never take more than capacity x allocation ratio at any instant;
 * no booking gains an instant inside a maintenance window.
 */
export const checkFits = (host: RegisteredHost, request: BookingRequest): void => {
  const { reservationId, startDate, endDate, slots } = request;
  // an empty booking is allowed: it is what a lease ended in its first minute leaves behind
  if (toMs(endDate) < toMs(startDate)) throw invalid('INVALID_PERIOD', 'The end_date must be later than the start_date.');
  const window = { start: toMs(startDate), end: toMs(endDate) };
  const cleaningTimeMs = request.cleaningTimeMinutes * MINUTE_MS;
  if (!clearOfMaintenance(host, window, cleaningTimeMs, reservationId)) {
    throw conflict('HOST_IN_MAINTENANCE', `Host ${host.hostId} is in maintenance during part of ${startDate} to ${endDate}`);
  }
  if (!isSlotDemand(slots)) {
    if (!wholeHostFree(host, window, cleaningTimeMs, reservationId)) {
      throw conflict('HOST_ALREADY_BOOKED', `Host ${host.hostId} is already booked between ${startDate} and ${endDate}`);
    }
    return;
  }
  checkSlotDemand(slots);
  const totals = { vcpus: host.info.vcpus, memoryMb: host.info.memoryMb, diskGb: host.info.localGb };
  const free = freeSlotCount(host, slotCapacity(totals, request.allocationRatios), {
    window,
    cleaningTimeMs,
    demand: slots,
    reservationId,
  });
  if (free < slots.count) {
    throw conflict(
      'HOST_CAPACITY_EXCEEDED',
      `Host ${host.hostId} has room for ${free} more instance(s) of this size between ${startDate} and ${endDate}, ${slots.count} requested`,
    );
  }
};

export const checkBookable = (host: RegisteredHost, reservationId: string): void => {
  if (!host.reservable) throw conflict('HOST_NOT_RESERVABLE', `Host ${host.hostId} is not reservable`);
  if (host.health.status === 'down') throw conflict('HOST_DOWN', `Host ${host.hostId} is down (${host.health.reasons.join(', ')})`);
  if (host.bookings.some((b) => b.reservationId === reservationId)) {
    throw conflict('HOST_ALREADY_BOOKED', `Host ${host.hostId} is already booked by reservation ${reservationId}`);
  }
};

const sameSlots = (a: SlotDemand | null, b: SlotDemand | null): boolean =>
  a === b || (a !== null && b !== null && a.count === b.count && a.vcpus === b.vcpus && a.memoryMb === b.memoryMb && a.diskGb === b.diskGb);

export const requireBooking = (host: RegisteredHost, reservationId: string, slots: boolean): Booking => {
  const current = host.bookings.find((b) => b.reservationId === reservationId && (b.slots !== null) === slots);
  if (!current) {
    const kind = slots ? 'instance slots' : 'booking';
    throw notFound('BOOKING_NOT_FOUND', `Host ${host.hostId} has no ${kind} for reservation ${reservationId}`);
  }
  return current;
};

export const bookingUnchanged = (
  current: Booking,
  startDate: string,
  endDate: string,
  propertyNames: readonly string[],
  slots: SlotDemand | null,
): boolean =>
  current.startDate === startDate &&
  current.endDate === endDate &&
  current.propertyNames.length === propertyNames.length &&
  current.propertyNames.every((n, i) => n === propertyNames[i]) &&
  sameSlots(current.slots, slots);

export const sameReasons = (a: readonly HostDownReason[], b: readonly HostDownReason[]): boolean =>
  a.length === b.length && a.every((r) => b.includes(r));
