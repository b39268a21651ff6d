import { type BusyInterval, firstAtLeast } from './busy-calendars.js';
import { minuteAfter, minuteFrom } from './host-sweep.js';

/** One kind of calendar and which of its resources can change the answer. */
export interface RelevantCalendars {
  readonly calendars: { readonly byStart: readonly BusyInterval[]; readonly byEnd: readonly BusyInterval[] };
  readonly relevant: readonly boolean[];
}

/** A stream of candidate minutes from one sorted list: each booking's bound moved by `shift`, then rounded. */
interface PointStream {
  readonly list: readonly BusyInterval[];
  readonly relevant: readonly boolean[];
  /** The candidate minute of a booking of the list. */
  readonly point: (interval: BusyInterval) => number;
  /** Index of the first booking whose point is after `after`. */
  readonly firstAfter: (after: number) => number;
}

/**
 * The minutes where a request's admission may change, in order, read lazily from the calendars' sorted
 * lists: where a booking leaves a window (its end, or end plus cleaning time) and, when
 * `enteringMatters`, where one enters it (its start less the duration, less the cleaning time too).
 * Only bookings on relevant resources count; the lists are binary-searched, so asking for the next
 * candidate costs a few look-ups, not a pass over every booking.
 */
export class CandidateStarts {
  private readonly streams: PointStream[];

  constructor(
    private readonly calendars: readonly RelevantCalendars[],
    private readonly options: {
      readonly durationMs: number;
      readonly cleaningMs: number;
      readonly enteringMatters: boolean;
      readonly lastStart: number;
    },
  ) {
    const { durationMs, cleaningMs, enteringMatters } = options;
    const shifts = cleaningMs === 0 ? [0] : [0, cleaningMs];
    this.streams = calendars.flatMap(({ calendars: { byStart, byEnd }, relevant }) => [
      ...shifts.map((shift) => ({
        list: byEnd,
        relevant,
        point: (b: BusyInterval) => minuteFrom(b.end + shift),
        firstAfter: (after: number) => firstAtLeast(byEnd, 'end', after - shift + 1),
      })),
      ...(enteringMatters ? shifts : []).map((shift) => ({
        list: byStart,
        relevant,
        point: (b: BusyInterval) => minuteAfter(b.start - durationMs - shift),
        firstAfter: (after: number) => firstAtLeast(byStart, 'start', after + durationMs + shift),
      })),
    ]);
  }

  /** The first candidate minute after `after` (a minute), or null when none is left up to the last start. */
  next(after: number): number | null {
    let best = Infinity;
    for (const stream of this.streams) {
      for (let i = stream.firstAfter(after); i < stream.list.length; i++) {
        const interval = stream.list[i] as BusyInterval;
        if (stream.relevant[interval.member] !== true) continue;
        best = Math.min(best, stream.point(interval));
        break;
      }
    }
    return best <= this.options.lastStart ? best : null;
  }

  /** The first minute from which no relevant booking is near any window (its end plus the cleaning time passed). */
  emptyFrom(notBefore: number): number {
    let from = notBefore;
    for (const {
      calendars: { byEnd },
      relevant,
    } of this.calendars) {
      for (let i = byEnd.length - 1; i >= 0; i--) {
        const interval = byEnd[i] as BusyInterval;
        if (relevant[interval.member] !== true) continue;
        from = Math.max(from, minuteFrom(interval.end + this.options.cleaningMs));
        break;
      }
    }
    return from;
  }
}
