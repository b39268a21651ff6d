import { describe, expect, it } from 'vitest';
import {
  type Interval,
  MINUTE_MS,
  firstEndingAfter,
  insertSorted,
  isFree,
  overlapping,
  overlaps,
  someOverlapping,
  toMs,
  widen,
} from './interval.js';

/** Intervals in whole minutes keep the tables readable: iv(10, 20) = [10min, 20min). */
const iv = (startMinute: number, endMinute: number): Interval => ({ start: startMinute * MINUTE_MS, end: endMinute * MINUTE_MS });

interface Tagged extends Interval {
  readonly id: string;
}
const tagged = (id: string, startMinute: number, endMinute: number): Tagged => ({ id, ...iv(startMinute, endMinute) });

/** Sorted by start, non-overlapping: [10,20) [30,40) [50,60). */
const sorted: readonly Tagged[] = [tagged('a', 10, 20), tagged('b', 30, 40), tagged('c', 50, 60)];

describe('toMs', () => {
  it('parses an ISO-8601 UTC timestamp to epoch milliseconds', () => {
    expect(toMs('2030-01-01T10:00:00.000Z')).toBe(Date.UTC(2030, 0, 1, 10, 0, 0));
  });
});

describe('overlaps', () => {
  it.each([
    { name: 'disjoint, a before b', a: iv(0, 10), b: iv(20, 30), expected: false },
    { name: 'disjoint, a after b', a: iv(20, 30), b: iv(0, 10), expected: false },
    { name: 'touching: a ends where b starts', a: iv(0, 10), b: iv(10, 20), expected: false },
    { name: 'touching: b ends where a starts', a: iv(10, 20), b: iv(0, 10), expected: false },
    { name: 'partial overlap at the end of a', a: iv(0, 10), b: iv(9, 20), expected: true },
    { name: 'partial overlap at the start of a', a: iv(9, 20), b: iv(0, 10), expected: true },
    { name: 'a contains b', a: iv(0, 30), b: iv(10, 20), expected: true },
    { name: 'b contains a', a: iv(10, 20), b: iv(0, 30), expected: true },
    { name: 'identical', a: iv(10, 20), b: iv(10, 20), expected: true },
    { name: 'same start, different ends', a: iv(10, 20), b: iv(10, 15), expected: true },
    { name: 'same end, different starts', a: iv(10, 20), b: iv(15, 20), expected: true },
    { name: 'overlap of one millisecond', a: { start: 0, end: 1001 }, b: { start: 1000, end: 2000 }, expected: true },
  ])('$name -> $expected', ({ a, b, expected }) => {
    expect(overlaps(a, b)).toBe(expected);
    expect(overlaps(b, a)).toBe(expected);
  });
});

describe('widen', () => {
  it.each([
    { name: 'zero margin', interval: iv(10, 20), margin: 0, expected: iv(10, 20) },
    { name: 'a 5 minute margin', interval: iv(10, 20), margin: 5 * MINUTE_MS, expected: iv(5, 25) },
    { name: 'a 30 minute margin', interval: iv(60, 120), margin: 30 * MINUTE_MS, expected: iv(30, 150) },
    { name: 'a 1 ms margin', interval: { start: 1000, end: 2000 }, margin: 1, expected: { start: 999, end: 2001 } },
  ])('$name', ({ interval, margin, expected }) => {
    expect(widen(interval, margin)).toEqual(expected);
  });

  it('returns the very same interval when the margin is zero', () => {
    const interval = iv(10, 20);
    expect(widen(interval, 0)).toBe(interval);
  });

  it('does not mutate its input', () => {
    const interval = iv(10, 20);
    widen(interval, MINUTE_MS);
    expect(interval).toEqual(iv(10, 20));
  });

  it('makes touching intervals overlap', () => {
    expect(overlaps(iv(0, 10), iv(10, 20))).toBe(false);
    expect(overlaps(widen(iv(0, 10), MINUTE_MS), iv(10, 20))).toBe(true);
  });
});

describe('firstEndingAfter', () => {
  it.each([
    { name: 'empty list', list: [] as readonly Interval[], minute: 15, expected: 0 },
    { name: 'before everything', list: sorted, minute: 0, expected: 0 },
    { name: 'inside the first interval', list: sorted, minute: 15, expected: 0 },
    { name: 'exactly at the first end (end is exclusive)', list: sorted, minute: 20, expected: 1 },
    { name: 'in the gap after the first', list: sorted, minute: 25, expected: 1 },
    { name: 'exactly at the second start', list: sorted, minute: 30, expected: 1 },
    { name: 'one minute before the second end', list: sorted, minute: 39, expected: 1 },
    { name: 'exactly at the second end', list: sorted, minute: 40, expected: 2 },
    { name: 'inside the last', list: sorted, minute: 55, expected: 2 },
    { name: 'exactly at the last end', list: sorted, minute: 60, expected: 3 },
    { name: 'after everything', list: sorted, minute: 100, expected: 3 },
    { name: 'single interval, before its end', list: [iv(10, 20)], minute: 19, expected: 0 },
    { name: 'single interval, at its end', list: [iv(10, 20)], minute: 20, expected: 1 },
  ])('$name -> $expected', ({ list, minute, expected }) => {
    expect(firstEndingAfter(list, minute * MINUTE_MS)).toBe(expected);
  });

  it('agrees with a linear scan on a long list', () => {
    const long = Array.from({ length: 101 }, (_, i) => iv(i * 10, i * 10 + 5));
    for (let minute = -5; minute <= 1020; minute++) {
      const time = minute * MINUTE_MS;
      const linear = long.findIndex((member) => member.end > time);
      expect(firstEndingAfter(long, time), `at minute ${minute}`).toBe(linear === -1 ? long.length : linear);
    }
  });
});

describe('isFree', () => {
  it.each([
    { name: 'empty list', list: [] as readonly Tagged[], window: iv(0, 100), expected: true },
    { name: 'window before everything', list: sorted, window: iv(0, 10), expected: true },
    { name: 'window after everything', list: sorted, window: iv(60, 70), expected: true },
    { name: 'window exactly filling a gap', list: sorted, window: iv(20, 30), expected: true },
    { name: 'window inside a gap', list: sorted, window: iv(41, 49), expected: true },
    { name: 'window overlapping the first start', list: sorted, window: iv(5, 11), expected: false },
    { name: 'window overlapping the first end', list: sorted, window: iv(19, 25), expected: false },
    { name: 'window inside a member', list: sorted, window: iv(32, 38), expected: false },
    { name: 'window covering a member', list: sorted, window: iv(25, 45), expected: false },
    { name: 'window covering everything', list: sorted, window: iv(0, 100), expected: false },
    { name: 'window overlapping the last', list: sorted, window: iv(59, 70), expected: false },
    { name: 'window identical to a member', list: sorted, window: iv(50, 60), expected: false },
  ])('$name -> $expected', ({ list, window, expected }) => {
    expect(isFree(list, window)).toBe(expected);
  });

  it.each([
    { name: 'skipping the only overlapped member frees the window', window: iv(32, 38), skip: ['b'], expected: true },
    { name: 'skipping another member does not', window: iv(32, 38), skip: ['a'], expected: false },
    { name: 'skipping one of two overlapped members is not enough', window: iv(35, 55), skip: ['b'], expected: false },
    { name: 'skipping both overlapped members frees the window', window: iv(35, 55), skip: ['b', 'c'], expected: true },
    { name: 'skipping a member in the middle of a wide window', window: iv(25, 45), skip: ['b'], expected: true },
    { name: 'skipping nothing', window: iv(25, 45), skip: [], expected: false },
  ])('skip: $name -> $expected', ({ window, skip, expected }) => {
    expect(isFree(sorted, window, (member) => skip.includes(member.id))).toBe(expected);
  });

  it('does not consult members that end before the window', () => {
    const consulted: string[] = [];
    isFree(sorted, iv(45, 55), (member) => {
      consulted.push(member.id);
      return false;
    });
    expect(consulted).toEqual(['c']);
  });

  it('stops at the first member that starts at or after the window end', () => {
    const consulted: string[] = [];
    expect(
      isFree(sorted, iv(15, 30), (member) => {
        consulted.push(member.id);
        return true;
      }),
    ).toBe(true);
    expect(consulted).toEqual(['a']);
  });
});

describe('overlapping', () => {
  /** Sorted by start, overlapping each other: [0,100) is long, the rest are short. */
  const crowded: readonly Tagged[] = [
    tagged('long', 0, 100),
    tagged('a', 10, 20),
    tagged('b', 15, 25),
    tagged('c', 30, 40),
    tagged('d', 30, 35),
    tagged('e', 50, 60),
  ];
  const LONGEST = 100 * MINUTE_MS;
  const ids = (found: readonly Tagged[]): string[] => found.map((member) => member.id);

  it.each([
    { name: 'empty list', list: [] as readonly Tagged[], window: iv(0, 100), longest: 0, expected: [] },
    { name: 'window after everything', list: crowded, window: iv(100, 120), longest: LONGEST, expected: [] },
    { name: 'window before everything', list: [tagged('x', 10, 20)], window: iv(0, 10), longest: 10 * MINUTE_MS, expected: [] },
    { name: 'window touching a member on each side', list: sorted, window: iv(20, 30), longest: 10 * MINUTE_MS, expected: [] },
    {
      name: 'window inside one of sorted, non-overlapping members',
      list: sorted,
      window: iv(32, 38),
      longest: 10 * MINUTE_MS,
      expected: ['b'],
    },
    { name: 'window reaching into three of them', list: sorted, window: iv(15, 55), longest: 10 * MINUTE_MS, expected: ['a', 'b', 'c'] },
    {
      name: 'members overlapping each other, in start order',
      list: crowded,
      window: iv(18, 32),
      longest: LONGEST,
      expected: ['long', 'a', 'b', 'c', 'd'],
    },
    { name: 'a long early member found far from its start', list: crowded, window: iv(90, 95), longest: LONGEST, expected: ['long'] },
    {
      name: 'members with the same start, in list order',
      list: crowded,
      window: iv(34, 36),
      longest: LONGEST,
      expected: ['long', 'c', 'd'],
    },
    { name: 'a member starting at the window end is left out', list: crowded, window: iv(45, 50), longest: LONGEST, expected: ['long'] },
    { name: 'a member ending at the window start is left out', list: crowded, window: iv(60, 70), longest: LONGEST, expected: ['long'] },
    { name: 'an empty window inside members', list: crowded, window: iv(17, 17), longest: LONGEST, expected: ['long', 'a', 'b'] },
    { name: 'an empty window at a member start', list: crowded, window: iv(10, 10), longest: LONGEST, expected: ['long'] },
  ])('$name -> $expected', ({ list, window, longest, expected }) => {
    expect(ids(overlapping(list, window, longest))).toEqual(expected);
  });

  it('someOverlapping says whether overlapping finds a member that counts, in every window of a crowded list', () => {
    const notLong = (member: Tagged) => member.id !== 'long';
    for (let start = -10; start <= 110; start += 5) {
      for (const length of [0, 5, 12, 40]) {
        const window = iv(start, start + length);
        expect(someOverlapping(crowded, window, LONGEST), `${start}+${length}`).toBe(overlapping(crowded, window, LONGEST).length > 0);
        expect(someOverlapping(crowded, window, LONGEST, notLong), `${start}+${length}`).toBe(
          overlapping(crowded, window, LONGEST).some(notLong),
        );
      }
    }
    expect(someOverlapping(crowded, iv(90, 95), 10 * MINUTE_MS)).toBe(false);
  });

  it('stops the backward scan at longestMs: an understated bound misses the long early member', () => {
    expect(ids(overlapping(crowded, iv(90, 95), 10 * MINUTE_MS))).toEqual([]);
    expect(ids(overlapping(crowded, iv(90, 95), 90 * MINUTE_MS))).toEqual([]);
    expect(ids(overlapping(crowded, iv(90, 95), 90 * MINUTE_MS + 1))).toEqual(['long']);
  });

  it('reads only a few members of a long list', () => {
    const long = Array.from({ length: 1000 }, (_, i) => tagged(`m${i}`, i * 10, i * 10 + 15));
    const read = new Set<number>();
    const watched = new Proxy(long, {
      get: (target, key, receiver): unknown => {
        if (typeof key === 'string' && /^\d+$/.test(key)) read.add(Number(key));
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    expect(ids(overlapping(watched, iv(5000, 5001), 15 * MINUTE_MS))).toEqual(['m499', 'm500']);
    // binary search (about log2(1000) = 10 reads) plus a scan of the two hits and the member that stops it
    expect(read.size).toBeLessThanOrEqual(14);
    expect(read.has(0)).toBe(false);
  });

  it('agrees with a linear scan on a crowded list', () => {
    const lengths = [5, 40, 15, 120, 10, 60, 25, 5, 90, 30];
    const list = Array.from({ length: 200 }, (_, i) => tagged(`m${i}`, i * 7, i * 7 + (lengths[i % lengths.length] ?? 0)));
    const longest = Math.max(...list.map((member) => member.end - member.start));
    for (let start = -20; start <= 1500; start += 13) {
      for (const length of [0, 1, 9, 50, 200]) {
        const window = iv(start, start + length);
        const linear = list.filter((member) => overlaps(member, window));
        expect(ids(overlapping(list, window, longest)), `window [${start}, ${start + length})`).toEqual(ids(linear));
      }
    }
  });
});

describe('insertSorted', () => {
  const booking = (reservationId: string, startMinute: number, endMinute: number) => ({ reservationId, ...iv(startMinute, endMinute) });
  const order = (list: readonly { reservationId: string }[]): string[] => list.map((b) => b.reservationId);

  it('keeps the calendar sorted by start, then end (an empty booking goes before a longer one at its start)', () => {
    const calendar = [booking('a', 10, 20), booking('b', 30, 40)];
    expect(order(insertSorted(calendar, booking('c', 20, 30)))).toEqual(['a', 'c', 'b']);
    expect(order(insertSorted(calendar, booking('d', 30, 30)))).toEqual(['a', 'd', 'b']);
    expect(order(insertSorted(calendar, booking('e', 50, 60)))).toEqual(['a', 'b', 'e']);
    expect(order(insertSorted(calendar, booking('f', 0, 5)))).toEqual(['f', 'a', 'b']);
  });

  it("replaces the reservation's previous booking and leaves the input untouched", () => {
    const calendar = [booking('a', 10, 20), booking('b', 30, 40)];
    const moved = insertSorted(calendar, booking('a', 45, 50));
    expect(moved).toEqual([booking('b', 30, 40), booking('a', 45, 50)]);
    expect(order(calendar)).toEqual(['a', 'b']);
  });
});
