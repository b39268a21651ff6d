import { type Booking, MINUTE_MS, type RegisteredHost, countOverlapping, holdsOf, longestHoldMs } from '#domain/index.js';
import type { HostQuery } from '#plugins/query/blazar-query.js';
import { matchesHost } from '#plugins/query/blazar-query.js';
import { toHostSnapshot } from '../write-model/write-index.js';
import { type BusyCalendars, type BusyInterval, firstAtLeast } from './busy-calendars.js';

/** The first minute at or after `ms`. */
export const minuteFrom = (ms: number): number => Math.ceil(ms / MINUTE_MS) * MINUTE_MS;

/** The first minute strictly after `ms`. */
export const minuteAfter = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS + MINUTE_MS;

/** Which hosts a query matches (reservable ones only), by place in the busy calendars. */
export const matchingHosts = (hosts: BusyCalendars<RegisteredHost, Booking>, query: HostQuery | null): boolean[] =>
  hosts.members.map((state) => {
    const snapshot = toHostSnapshot(state);
    return snapshot.columns.reservable && (query === null || matchesHost(query, snapshot));
  });

export interface HostSweep {
  readonly matching: readonly boolean[];
  readonly min: number;
  readonly durationMs: number;
  readonly cleaningMs: number;
  /** Last start worth trying (epoch ms): the window must end by the search's end. */
  readonly lastStart: number;
}

/**
 * The earliest minutes at which `min` of the matching hosts are free for a whole window, as the host
 * policy judges one reservation alone (no booking of the host within the cleaning time of
 * [s, s + duration)). A host is busy for the starts s in (booking.start - cleaning - duration,
 * booking.end + cleaning), so a sweep over the bookings by start (a host turns busy) and by end (it
 * may turn free) answers without trying each candidate start. One sweeper serves one search, asked for
 * later and later starts: it only moves forward, and counts the bookings before its first start once,
 * per host, by binary search.
 */
export class HostSweeper {
  private readonly total: number;
  private covering: number[] = [];
  private busy = 0;
  private enter = 0;
  private leave = 0;
  /** The minute the counts stand at (before the first question: none). */
  private at = -Infinity;

  constructor(
    private readonly hosts: BusyCalendars<RegisteredHost, Booking>,
    private readonly sweep: HostSweep,
  ) {
    this.total = sweep.matching.reduce((n, m) => n + (m ? 1 : 0), 0);
  }

  /** How many hosts match, and how many of them are free for a window starting at `from` (the host policy's supply). */
  supplyAt(from: number): { readonly matching: number; readonly free: number } {
    this.moveTo(from);
    return { matching: this.total, free: this.total - this.busy };
  }

  /** The earliest start at or after `from` (a minute) with enough hosts free; null when none is left up to `lastStart`. */
  earliestFrom(from: number): number | null {
    const { min, lastStart } = this.sweep;
    if (this.total < min) return null;
    this.moveTo(from);
    for (;;) {
      if (this.at > lastStart) return null;
      if (this.total - this.busy >= min) return this.at;
      const point = this.nextPoint();
      if (point === Infinity) return null;
      this.apply(point);
    }
  }

  private moveTo(from: number): void {
    if (from < this.at || this.at === -Infinity) {
      this.start(from);
      return;
    }
    for (let point = this.nextPoint(); point <= from; point = this.nextPoint()) this.apply(point);
    this.at = from;
  }

  /** Counts, per host, the bookings that keep it busy for a window starting at `from`; the cursors go to the first later event. */
  private start(from: number): void {
    const { matching, durationMs, cleaningMs } = this.sweep;
    const window = { start: from - cleaningMs, end: from + durationMs + cleaningMs };
    this.covering = this.hosts.members.map((host, member) =>
      matching[member] === true ? countOverlapping(holdsOf(host), window, longestHoldMs(host)) : 0,
    );
    this.busy = this.covering.reduce((n, c) => n + (c > 0 ? 1 : 0), 0);
    this.enter = firstAtLeast(this.hosts.byStart, 'start', from + cleaningMs + durationMs);
    this.leave = firstAtLeast(this.hosts.byEnd, 'end', from - cleaningMs + 1);
    this.at = from;
  }

  private enterPoint(i: number): number {
    const interval = this.hosts.byStart[i];
    return interval === undefined ? Infinity : minuteAfter(interval.start - this.sweep.cleaningMs - this.sweep.durationMs);
  }

  private leavePoint(i: number): number {
    const interval = this.hosts.byEnd[i];
    return interval === undefined ? Infinity : minuteFrom(interval.end + this.sweep.cleaningMs);
  }

  private nextPoint(): number {
    return Math.min(this.enterPoint(this.enter), this.leavePoint(this.leave));
  }

  /** Every booking entering at `point` first, then every one leaving: a host busy again at once never looks free. */
  private apply(point: number): void {
    const { byStart, byEnd } = this.hosts;
    for (; this.enterPoint(this.enter) === point; this.enter++) this.count((byStart[this.enter] as BusyInterval).member, 1);
    for (; this.leavePoint(this.leave) === point; this.leave++) this.count((byEnd[this.leave] as BusyInterval).member, -1);
    this.at = point;
  }

  private count(member: number, change: 1 | -1): void {
    if (this.sweep.matching[member] !== true) return;
    const before = this.covering[member] ?? 0;
    this.covering[member] = before + change;
    if (before === 0 && change === 1) this.busy++;
    else if (before === 1 && change === -1) this.busy--;
  }
}
