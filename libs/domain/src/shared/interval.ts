/** Half-open interval [start, end) in epoch milliseconds. */
export interface Interval {
  readonly start: number;
  readonly end: number;
}

export const MINUTE_MS = 60_000;

export const toMs = (iso: string): number => Date.parse(iso);

export const overlaps = (a: Interval, b: Interval): boolean => a.start < b.end && b.start < a.end;

/** Widens an interval by a margin on both sides (Blazar's cleaning time). */
export const widen = (interval: Interval, marginMs: number): Interval =>
  marginMs === 0 ? interval : { start: interval.start - marginMs, end: interval.end + marginMs };

/**
 * Index of the first interval whose end is after `time`, in a list sorted by start and then end whose
 * members do not overlap (so ends are sorted too; the tie-break matters for empty intervals, which
 * may share a start with the next member). Binary search: O(log n).
 */
export const firstEndingAfter = (sorted: readonly Interval[], time: number): number => {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as Interval).end > time) high = mid;
    else low = mid + 1;
  }
  return low;
};

/** True if `window` overlaps none of the intervals (sorted by start then end, non-overlapping), ignoring `skip`. */
export const isFree = <T extends Interval>(sorted: readonly T[], window: Interval, skip: (member: T) => boolean = () => false): boolean => {
  for (let i = firstEndingAfter(sorted, window.start); i < sorted.length; i++) {
    const member = sorted[i] as T;
    if (member.start >= window.end) return true;
    if (!skip(member) && overlaps(member, window)) return false;
  }
  return true;
};

/**
 * Members of a start-sorted list that overlap `window`, in start order, when members may overlap
 * each other but none is longer than `longestMs`: binary search for the last start before the
 * window's end, then a backward scan that stops once no earlier member can reach the window.
 */
export const overlapping = <T extends Interval>(sorted: readonly T[], window: Interval, longestMs: number): T[] => {
  const found: T[] = [];
  eachOverlapping(sorted, window, longestMs, (member) => {
    found.push(member);
    return false;
  });
  return found.reverse();
};

/** How many members of a start-sorted list (none longer than `longestMs`) overlap `window`: `overlapping` without building the list. */
export const countOverlapping = <T extends Interval>(sorted: readonly T[], window: Interval, longestMs: number): number => {
  let count = 0;
  eachOverlapping(sorted, window, longestMs, () => {
    count++;
    return false;
  });
  return count;
};

/**
 * Whether some member of a start-sorted list (none longer than `longestMs`) overlaps `window` and passes `counts`: `overlapping` without
 * building the list.
 */
export const someOverlapping = <T extends Interval>(
  sorted: readonly T[],
  window: Interval,
  longestMs: number,
  counts: (member: T) => boolean = () => true,
): boolean => eachOverlapping(sorted, window, longestMs, counts);

/** Visits the members overlapping `window`, latest start first, until `visit` answers true (then true). */
const eachOverlapping = <T extends Interval>(
  sorted: readonly T[],
  window: Interval,
  longestMs: number,
  visit: (member: T) => boolean,
): boolean => {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as T).start < window.end) low = mid + 1;
    else high = mid;
  }
  for (let i = low - 1; i >= 0; i--) {
    const member = sorted[i] as T;
    if (member.start + longestMs <= window.start) return false;
    if (overlaps(member, window) && visit(member)) return true;
  }
  return false;
};

/**
 * A calendar with `booking` in place of the reservation's previous one, kept sorted by start then end
 * (an empty booking at another's start goes first, so the ends of non-overlapping members stay sorted
 * for isFree; overlapping members only need the start order for `overlapping`).
 */
export const insertSorted = <T extends Interval & { readonly reservationId: string }>(bookings: readonly T[], booking: T): T[] => {
  const next = bookings.filter((b) => b.reservationId !== booking.reservationId);
  let index = next.findIndex((b) => b.start > booking.start || (b.start === booking.start && b.end > booking.end));
  if (index === -1) index = next.length;
  next.splice(index, 0, booking);
  return next;
};
