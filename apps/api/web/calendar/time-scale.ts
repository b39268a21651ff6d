/** The calendar's time axis: which span is shown, where an instant falls on it, and its ticks. All UTC. */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface ZoomLevel {
  readonly id: string;
  readonly label: string;
  readonly spanMs: number;
  /** Ticks fall on multiples of this from the epoch (days start at UTC midnight). */
  readonly tickMs: number;
}

export const ZOOM_LEVELS: readonly ZoomLevel[] = [
  { id: '6h', label: '6 hours', spanMs: 6 * HOUR, tickMs: HOUR },
  { id: '1d', label: '1 day', spanMs: DAY, tickMs: 3 * HOUR },
  { id: '1w', label: '1 week', spanMs: 7 * DAY, tickMs: DAY },
  { id: '1m', label: '1 month', spanMs: 30 * DAY, tickMs: 3 * DAY },
  { id: '3m', label: '3 months', spanMs: 90 * DAY, tickMs: 10 * DAY },
];

export const DEFAULT_ZOOM = '1d';

export const zoomLevel = (id: string): ZoomLevel => ZOOM_LEVELS.find((level) => level.id === id) ?? zoomLevel(DEFAULT_ZOOM);

export interface TimeRange {
  readonly start: number;
  readonly end: number;
}

const floorTo = (instant: number, step: number): number => Math.floor(instant / step) * step;

/** A tenth of the span before `now` (so the today line and what just ended show), starting on a tick. */
export const rangeAround = (now: number, zoom: ZoomLevel): TimeRange => {
  const start = floorTo(now - zoom.spanMs / 10, zoom.tickMs);
  return { start, end: start + zoom.spanMs };
};

/** Half a span earlier (-1) or later (1). */
export const shifted = (range: TimeRange, direction: -1 | 1): TimeRange => {
  const step = ((range.end - range.start) / 2) * direction;
  return { start: range.start + step, end: range.end + step };
};

/** The same start, on a tick of the new level, with that level's span. */
export const zoomedTo = (range: TimeRange, zoom: ZoomLevel): TimeRange => {
  const start = floorTo(range.start, zoom.tickMs);
  return { start, end: start + zoom.spanMs };
};

/** Where an instant falls, 0 at the start and 1 at the end (outside the range: below 0 or above 1). */
export const fractionOf = (range: TimeRange, instant: number): number => (instant - range.start) / (range.end - range.start);

/** The part of [start, end) within the range as fractions, or null when none of it is. */
export const clip = (range: TimeRange, start: number, end: number): { readonly left: number; readonly right: number } | null => {
  if (end <= range.start || start >= range.end) return null;
  return { left: Math.max(0, fractionOf(range, start)), right: Math.min(1, fractionOf(range, end)) };
};

const pad = (value: number): string => String(value).padStart(2, '0');

/** `YYYY-MM-DD HH:MM`, UTC: Blazar's request format. */
export const formatUtc = (instant: number): string => {
  const date = new Date(instant);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
};

export interface Tick {
  readonly at: number;
  readonly label: string;
}

/** A label short enough for the tick spacing: the time within a day, the date from a day up. */
const tickLabel = (instant: number, zoom: ZoomLevel): string => {
  const text = formatUtc(instant);
  if (zoom.tickMs >= DAY) return text.slice(5, 10);
  return instant % DAY === 0 ? `${text.slice(5, 10)} 00:00` : text.slice(11);
};

export const ticksOf = (range: TimeRange, zoom: ZoomLevel): Tick[] => {
  const ticks: Tick[] = [];
  for (let at = Math.ceil(range.start / zoom.tickMs) * zoom.tickMs; at < range.end; at += zoom.tickMs)
    ticks.push({ at, label: tickLabel(at, zoom) });
  return ticks;
};
