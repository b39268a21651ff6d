import { conflict, invalid, notFound } from './errors.js';
import { type Interval, overlaps, toMs, widen } from './interval.js';

/**
 * An operator's maintenance window on a resource, [startDate, endDate) as ISO-8601 UTC plus ms: no booking may
 * gain an instant inside it (it holds the resource as a booking would, cleaning time included). The rules here
 * are every kind's: a kind's state keeps its windows sorted by start, and its decider names the resource.
 */
export interface MaintenanceWindow {
  readonly windowId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly start: number;
  readonly end: number;
  readonly reason: string;
}

/** What a kind's schedule command carries (`windowId` is the caller's new id; dates ISO-8601 UTC). */
export interface ScheduleMaintenanceData {
  readonly windowId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly reason: string;
  readonly now: string;
}

/** What a kind's cancel command carries. */
export interface CancelMaintenanceData {
  readonly windowId: string;
  readonly now: string;
}

export interface WindowRequest {
  readonly windowId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly now: string;
}

/**
 * A window must end after it starts and after now (one that starts in the past holds the resource from now on).
 * Windows of one resource never overlap: an operator who needs a longer one cancels it and schedules the whole,
 * so each window stays one fact with one reason, and a cancellation never reopens time another still holds.
 */
export const checkNewWindow = (windows: readonly MaintenanceWindow[], request: WindowRequest, resource: string): void => {
  const { windowId, startDate, endDate, now } = request;
  const window = { start: toMs(startDate), end: toMs(endDate) };
  if (window.end <= window.start) throw invalid('INVALID_PERIOD', 'The end must be later than the start.');
  if (window.end <= toMs(now)) throw invalid('MAINTENANCE_IN_PAST', `The end ${endDate} of a maintenance window must be in the future.`);
  if (windows.some((w) => w.windowId === windowId))
    throw conflict('MAINTENANCE_EXISTS', `${resource} already has maintenance window ${windowId}`);
  const clash = windows.find((w) => overlaps(w, window));
  if (clash !== undefined) {
    throw conflict(
      'MAINTENANCE_OVERLAPS',
      `${resource} already has maintenance window ${clash.windowId} from ${clash.startDate} to ${clash.endDate}`,
    );
  }
};

/** The window to cancel. One that has ended is history: cancelling it would rewrite what the resource went through. */
export const windowToCancel = (
  windows: readonly MaintenanceWindow[],
  windowId: string,
  now: string,
  resource: string,
): MaintenanceWindow => {
  const window = windows.find((w) => w.windowId === windowId);
  if (window === undefined) throw notFound('MAINTENANCE_NOT_FOUND', `${resource} has no maintenance window ${windowId}`);
  if (window.end <= toMs(now))
    throw conflict('MAINTENANCE_ENDED', `Maintenance window ${windowId} of ${resource} ended at ${window.endDate}`);
  return window;
};

/** The windows with one more, sorted by start. */
export const withWindow = (windows: readonly MaintenanceWindow[], window: Omit<MaintenanceWindow, 'start' | 'end'>): MaintenanceWindow[] =>
  [...windows, { ...window, start: toMs(window.startDate), end: toMs(window.endDate) }].sort((a, b) => a.start - b.start);

/**
 * True when `span` (a booking's, widened by the cleaning time) has no instant inside a window that `held` (what the
 * same reservation's booking already reached, widened alike; null for a new booking) did not have already: a
 * reservation holding the resource before a window was scheduled may keep or shrink its dates, never grow into it.
 */
export const reachesNoNewWindowTime = (windows: readonly Interval[], span: Interval, held: Interval | null): boolean =>
  windows.every((closed) => {
    const start = Math.max(closed.start, span.start);
    const end = Math.min(closed.end, span.end);
    return start >= end || (held !== null && held.start <= start && end <= held.end);
  });

/** What the booking check needs of a resource's calendar: its bookings and its windows (a state or a snapshot). */
export interface MaintainedCalendar {
  readonly bookings: readonly (Interval & { readonly reservationId: string })[];
  readonly maintenance: readonly Interval[];
}

/**
 * True when a booking of `window` (widened by the cleaning time, as against any other holder) gains no instant
 * inside a maintenance window of the resource (reachesNoNewWindowTime, against the reservation's own booking here).
 */
export const clearOfMaintenance = (
  calendar: MaintainedCalendar,
  window: Interval,
  cleaningTimeMs: number,
  reservationId?: string,
): boolean => {
  if (calendar.maintenance.length === 0) return true;
  const own = reservationId === undefined ? undefined : calendar.bookings.find((b) => b.reservationId === reservationId);
  return reachesNoNewWindowTime(calendar.maintenance, widen(window, cleaningTimeMs), own === undefined ? null : widen(own, cleaningTimeMs));
};

/** What a booking on any kind's calendar has, and a window's hold with it (no lease holds it: its ids name the window). */
export interface Hold extends Interval {
  readonly reservationId: string;
  readonly leaseId: string;
  readonly startDate: string;
  readonly endDate: string;
}

/**
 * A resource's calendar as sweeps over many resources see it (availability, counter-offers, capacity): its bookings
 * and its maintenance windows as holds (`asBooking` completes a hold to the kind's booking), sorted by start. The
 * same list when there is no window.
 */
export const withWindowHolds = <B extends Hold>(
  bookings: readonly B[],
  windows: readonly MaintenanceWindow[],
  asBooking: (hold: Hold) => B,
): readonly B[] =>
  windows.length === 0
    ? bookings
    : [
        ...bookings,
        ...windows.map(({ windowId, startDate, endDate, start, end }) =>
          asBooking({ reservationId: `maintenance-${windowId}`, leaseId: '', startDate, endDate, start, end }),
        ),
      ].sort((a, b) => a.start - b.start);
