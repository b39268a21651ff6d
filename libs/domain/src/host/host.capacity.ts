import { type Interval, overlapping, someOverlapping, widen } from '../shared/interval.js';
import { clearOfMaintenance } from '../shared/maintenance.js';
import type { AllocationRatios, SlotDemand } from './host.types.js';

/** Amounts of the three resources an instance slot takes. */
export interface Resources {
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly diskGb: number;
}

/** What capacity checks need of a host's calendar (the host state and the policy's snapshot both fit). */
export interface CalendarEntry extends Interval {
  readonly reservationId: string;
  readonly slots: SlotDemand | null;
}

export interface Calendar {
  /** Sorted by start. */
  readonly bookings: readonly CalendarEntry[];
  /** No booking is longer than this (bounds the search for overlapping bookings). */
  readonly longestBookingMs: number;
  /** Maintenance windows, sorted by start: they hold the host as a whole-host booking would. */
  readonly maintenance: readonly Interval[];
}

/** A host's raw totals times the allocation ratios, as Placement computes capacity. */
export const slotCapacity = (totals: Resources, ratios: AllocationRatios): Resources => ({
  vcpus: Math.floor(totals.vcpus * ratios.cpu),
  memoryMb: Math.floor(totals.memoryMb * ratios.ram),
  diskGb: Math.floor(totals.diskGb * ratios.disk),
});

const RESOURCES = ['vcpus', 'memoryMb', 'diskGb'] as const;

/**
 * Highest use of each resource by slot bookings at any instant of `window` (a sweep over their
 * starts and ends). The demand to add is constant over the window, so checking each resource's
 * peak separately is exact: usage(t) + demand <= capacity for every t.
 */
export const peakSlotUsage = (bookings: readonly CalendarEntry[], window: Interval): Resources => {
  const points: { readonly at: number; readonly sign: 1 | -1; readonly slots: SlotDemand }[] = [];
  for (const booking of bookings) {
    if (booking.slots === null || booking.slots.count === 0) continue;
    points.push({ at: Math.max(booking.start, window.start), sign: 1, slots: booking.slots });
    points.push({ at: Math.min(booking.end, window.end), sign: -1, slots: booking.slots });
  }
  // half-open intervals: at equal times ends come first
  points.sort((a, b) => a.at - b.at || a.sign - b.sign);
  const current = { vcpus: 0, memoryMb: 0, diskGb: 0 };
  const peak = { vcpus: 0, memoryMb: 0, diskGb: 0 };
  for (const point of points) {
    for (const resource of RESOURCES) {
      current[resource] += point.sign * point.slots.count * point.slots[resource];
      peak[resource] = Math.max(peak[resource], current[resource]);
    }
  }
  return peak;
};

export interface SlotQuestion {
  readonly window: Interval;
  readonly cleaningTimeMs: number;
  readonly demand: Resources;
  /** The asking reservation's own booking (on update) does not count. */
  readonly reservationId?: string;
}

/**
 * How many more slots of `demand` fit on the host for the whole window: 0 when a whole-host booking
 * is within the cleaning time of it, else the tightest resource's headroom at its peak.
 */
export const freeSlotCount = (calendar: Calendar, capacity: Resources, question: SlotQuestion): number => {
  const { window, cleaningTimeMs, demand, reservationId } = question;
  const widened = widen(window, cleaningTimeMs);
  if (!clearOfMaintenance(calendar, window, cleaningTimeMs, reservationId)) return 0;
  const counts = (b: CalendarEntry) => b.reservationId !== reservationId;
  // most hosts have nothing near a window: their headroom is their capacity, found without building lists
  if (!someOverlapping(calendar.bookings, widened, calendar.longestBookingMs, counts)) return headroom(capacity, NOTHING_USED, demand);
  const near = overlapping(calendar.bookings, widened, calendar.longestBookingMs).filter(counts);
  if (near.some((b) => b.slots === null)) return 0;
  return headroom(
    capacity,
    peakSlotUsage(
      near.filter((b) => b.start < window.end && window.start < b.end),
      window,
    ),
    demand,
  );
};

const NOTHING_USED: Resources = { vcpus: 0, memoryMb: 0, diskGb: 0 };

/** Slots of `demand` that fit in what `peak` leaves of `capacity`, by the tightest resource. */
const headroom = (capacity: Resources, peak: Resources, demand: Resources): number => {
  let count = Number.POSITIVE_INFINITY;
  for (const resource of RESOURCES) {
    if (demand[resource] > 0) count = Math.min(count, Math.floor((capacity[resource] - peak[resource]) / demand[resource]));
  }
  return Math.max(0, count === Number.POSITIVE_INFINITY ? Number.MAX_SAFE_INTEGER : count);
};

/** True when a whole-host booking fits: nothing else is booked, and no maintenance falls, within the cleaning time of the window. */
export const wholeHostFree = (calendar: Calendar, window: Interval, cleaningTimeMs: number, reservationId?: string): boolean =>
  wholeHostFreeFor(window, cleaningTimeMs, reservationId)(calendar);

/** wholeHostFree for one window, asked of many calendars (the widened window and the filter made once). */
export const wholeHostFreeFor = (window: Interval, cleaningTimeMs: number, reservationId?: string): ((calendar: Calendar) => boolean) => {
  const widened = widen(window, cleaningTimeMs);
  const counts = (b: CalendarEntry) => b.reservationId !== reservationId;
  return (calendar) =>
    !someOverlapping(calendar.bookings, widened, calendar.longestBookingMs, counts) &&
    clearOfMaintenance(calendar, window, cleaningTimeMs, reservationId);
};
