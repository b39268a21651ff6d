import type { Interval } from '#domain/index.js';

/** One booked interval of one resource; `member` is the resource's place in `BusyCalendars.members`. */
export interface BusyInterval<B extends Interval = Interval> extends Interval {
  readonly member: number;
  readonly booking: B;
}

/** Index of the first of `sorted` whose `key` is at least `value`. */
export const firstAtLeast = (sorted: readonly BusyInterval[], key: 'start' | 'end', value: number): number => {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as BusyInterval)[key] < value) low = mid + 1;
    else high = mid;
  }
  return low;
};

const insertBy = <B extends Interval>(sorted: BusyInterval<B>[], key: 'start' | 'end', interval: BusyInterval<B>): void => {
  sorted.splice(firstAtLeast(sorted, key, interval[key]), 0, interval);
};

/** Above this many changed calendars a rebuild costs less than patching the sorted lists one by one. */
const PATCH_LIMIT = 64;

/**
 * Every booked interval of one kind of resource, in two lists, one sorted by start and one by end, so a
 * sweep over time visits each booking twice and skips everything before the instant it starts from.
 * Kept in step with the write side's calendars by identity: an evolved state is a new object, so a
 * refresh after the index caught up patches the lists for exactly the calendars that changed (a
 * search always sees the caller's own writes) and costs a comparison per resource otherwise.
 */
export class BusyCalendars<S extends object, B extends Interval = Interval> {
  private current: readonly S[] = [];
  private starts: BusyInterval<B>[] = [];
  private ends: BusyInterval<B>[] = [];

  constructor(
    private readonly idOf: (state: S) => string,
    private readonly bookingsOf: (state: S) => readonly B[],
  ) {}

  /** The resources' states, each at its place. */
  get members(): readonly S[] {
    return this.current;
  }

  get byStart(): readonly BusyInterval<B>[] {
    return this.starts;
  }

  get byEnd(): readonly BusyInterval<B>[] {
    return this.ends;
  }

  refresh(members: readonly S[]): void {
    const changed = this.changedMembers(members);
    if (changed === null || changed.length > PATCH_LIMIT) this.rebuild(members);
    else if (changed.length > 0) this.patch(members, changed);
    this.current = members;
  }

  /** Places whose state changed; null when resources came or went (places shift). */
  private changedMembers(members: readonly S[]): number[] | null {
    if (members.length !== this.current.length) return null;
    const changed: number[] = [];
    for (let i = 0; i < members.length; i++) {
      const before = this.current[i] as S;
      const after = members[i] as S;
      if (before !== after) {
        if (this.idOf(before) !== this.idOf(after)) return null;
        changed.push(i);
      }
    }
    return changed;
  }

  private rebuild(members: readonly S[]): void {
    const all: BusyInterval<B>[] = [];
    members.forEach((state, member) => {
      for (const booking of this.bookingsOf(state)) all.push({ start: booking.start, end: booking.end, member, booking });
    });
    this.starts = [...all].sort((a, b) => a.start - b.start);
    this.ends = all.sort((a, b) => a.end - b.end);
  }

  private patch(members: readonly S[], changed: readonly number[]): void {
    const gone = new Set(changed);
    this.starts = this.starts.filter((interval) => !gone.has(interval.member));
    this.ends = this.ends.filter((interval) => !gone.has(interval.member));
    for (const member of changed) {
      for (const booking of this.bookingsOf(members[member] as S)) {
        const interval = { start: booking.start, end: booking.end, member, booking };
        insertBy(this.starts, 'start', interval);
        insertBy(this.ends, 'end', interval);
      }
    }
  }
}
