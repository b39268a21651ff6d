import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { DomainError } from '../shared/errors.js';
import { type Interval, MINUTE_MS } from '../shared/interval.js';
import type { HostCommand } from './host.commands.js';
import {
  type Calendar,
  type CalendarEntry,
  type Resources,
  freeSlotCount,
  peakSlotUsage,
  slotCapacity,
  wholeHostFree,
} from './host.capacity.js';
import { hostDecider } from './host.decide.js';
import type { HostEvent } from './host.events.js';
import { type AllocationRatios, DEFAULT_ALLOCATION_RATIOS, type SlotDemand } from './host.types.js';
import {
  bookHost,
  bookSlots,
  hostRegistered,
  moveHostBooking,
  moveSlots,
  randomInt,
  releaseHostBooking,
  seededRandom,
  slots,
} from './testing/host.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Fixtures: calendars in whole minutes keep the tables readable.
// ---------------------------------------------------------------------------------------------

const minutes = (startMinute: number, endMinute: number): Interval => ({ start: startMinute * MINUTE_MS, end: endMinute * MINUTE_MS });

/** Slots of `count` x (vcpus, memoryMb, diskGb) over [start, end) minutes. */
const slotEntry = (reservationId: string, start: number, end: number, demand: SlotDemand): CalendarEntry => ({
  reservationId,
  ...minutes(start, end),
  slots: demand,
});

const wholeEntry = (reservationId: string, start: number, end: number): CalendarEntry => ({
  reservationId,
  ...minutes(start, end),
  slots: null,
});

const calendar = (...bookings: CalendarEntry[]): Calendar => ({
  bookings: [...bookings].sort((a, b) => a.start - b.start),
  longestBookingMs: Math.max(0, ...bookings.map((b) => b.end - b.start)),
  maintenance: [],
});

const resources = (vcpus: number, memoryMb: number, diskGb: number): Resources => ({ vcpus, memoryMb, diskGb });

const NONE = resources(0, 0, 0);
/** 8 vcpus, 16384 MB, 100 GB: the fixture host at ratio 1. */
const CAPACITY = resources(8, 16384, 100);
/** One slot of 1 vcpu, 1024 MB, 10 GB. */
const ONE = resources(1, 1024, 10);

// ---------------------------------------------------------------------------------------------
// slotCapacity
// ---------------------------------------------------------------------------------------------

describe('slotCapacity', () => {
  it.each([
    { name: 'ratio 1 keeps the totals', ratios: DEFAULT_ALLOCATION_RATIOS, expected: resources(8, 16384, 100) },
    { name: 'cpu 4.0 multiplies vcpus only', ratios: { cpu: 4, ram: 1, disk: 1 }, expected: resources(32, 16384, 100) },
    { name: 'Nova defaults (16.0, 1.5, 1.0)', ratios: { cpu: 16, ram: 1.5, disk: 1 }, expected: resources(128, 24576, 100) },
    { name: 'fractional products floor', ratios: { cpu: 1.3, ram: 0.9, disk: 1.005 }, expected: resources(10, 14745, 100) },
    { name: 'ratio 0 leaves nothing', ratios: { cpu: 0, ram: 0, disk: 0 }, expected: resources(0, 0, 0) },
  ])('$name', ({ ratios, expected }: { ratios: AllocationRatios; expected: Resources }) => {
    expect(slotCapacity(resources(8, 16384, 100), ratios)).toEqual(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// peakSlotUsage
// ---------------------------------------------------------------------------------------------

describe('peakSlotUsage', () => {
  const window = minutes(100, 200);

  it.each([
    { name: 'no bookings', bookings: [], expected: NONE },
    { name: 'a whole-host booking counts for nothing', bookings: [wholeEntry('w', 100, 200)], expected: NONE },
    { name: 'slots with count 0 count for nothing', bookings: [slotEntry('a', 100, 200, slots(0))], expected: NONE },
    { name: 'one booking inside the window', bookings: [slotEntry('a', 120, 130, slots(2))], expected: resources(2, 2048, 20) },
    { name: 'a booking starting before the window', bookings: [slotEntry('a', 50, 150, slots(2))], expected: resources(2, 2048, 20) },
    { name: 'a booking running past the window', bookings: [slotEntry('a', 150, 250, slots(2))], expected: resources(2, 2048, 20) },
    {
      name: 'two bookings overlapping each other add up',
      bookings: [slotEntry('a', 100, 150, slots(2)), slotEntry('b', 140, 200, slots(3))],
      expected: resources(5, 5120, 50),
    },
    {
      name: 'touching bookings (one ends when the other starts) do not add up',
      bookings: [slotEntry('a', 100, 150, slots(2)), slotEntry('b', 150, 200, slots(3))],
      expected: resources(3, 3072, 30),
    },
    {
      name: 'a chain never all in use: the highest pair',
      bookings: [slotEntry('a', 100, 140, slots(3)), slotEntry('b', 130, 170, slots(3)), slotEntry('c', 140, 200, slots(3))],
      expected: resources(6, 6144, 60),
    },
    {
      name: 'bookings ending before the window are left out',
      bookings: [slotEntry('a', 0, 100, slots(5)), slotEntry('b', 120, 130, slots(1))],
      expected: resources(1, 1024, 10),
    },
    {
      name: 'bookings starting at the window end are left out',
      bookings: [slotEntry('a', 200, 300, slots(5)), slotEntry('b', 120, 130, slots(1))],
      expected: resources(1, 1024, 10),
    },
    {
      name: 'each resource peaks at its own instant',
      bookings: [
        slotEntry('cpu-heavy', 100, 120, slots(1, { vcpus: 6, memoryMb: 1, diskGb: 0 })),
        slotEntry('ram-heavy', 150, 170, slots(1, { vcpus: 1, memoryMb: 9000, diskGb: 70 })),
      ],
      expected: resources(6, 9000, 70),
    },
    {
      name: 'counts multiply the slot size',
      bookings: [slotEntry('a', 100, 200, slots(4, { vcpus: 2, memoryMb: 512, diskGb: 5 }))],
      expected: resources(8, 2048, 20),
    },
  ])('$name', ({ bookings, expected }: { bookings: readonly CalendarEntry[]; expected: Resources }) => {
    expect(peakSlotUsage(bookings, window)).toEqual(expected);
  });

  it('is the same whatever order the bookings come in', () => {
    const bookings = [
      slotEntry('a', 100, 140, slots(3)),
      slotEntry('b', 130, 170, slots(2)),
      slotEntry('c', 140, 200, slots(4)),
      slotEntry('d', 90, 110, slots(1)),
    ];
    const expected = resources(6, 6144, 60);
    expect(peakSlotUsage(bookings, window)).toEqual(expected);
    expect(peakSlotUsage([...bookings].reverse(), window)).toEqual(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// freeSlotCount
// ---------------------------------------------------------------------------------------------

describe('freeSlotCount', () => {
  const question = (overrides: Partial<Parameters<typeof freeSlotCount>[2]> = {}): Parameters<typeof freeSlotCount>[2] => ({
    window: minutes(100, 200),
    cleaningTimeMs: 0,
    demand: ONE,
    ...overrides,
  });

  it.each([
    { name: 'an empty host: the tightest resource (vcpus)', cal: calendar(), q: question(), expected: 8 },
    { name: 'memory-heavy slots: memory is tightest', cal: calendar(), q: question({ demand: resources(1, 4096, 0) }), expected: 4 },
    { name: 'disk-heavy slots: disk is tightest', cal: calendar(), q: question({ demand: resources(1, 1024, 30) }), expected: 3 },
    {
      name: 'slots without disk ignore the disk',
      cal: calendar(slotEntry('a', 100, 200, slots(1, { diskGb: 100 }))),
      q: question({ demand: resources(1, 1024, 0) }),
      expected: 7,
    },
    {
      name: 'what the peak leaves',
      cal: calendar(slotEntry('a', 100, 150, slots(3)), slotEntry('b', 150, 200, slots(5))),
      q: question(),
      expected: 3,
    },
    { name: 'nothing when the host is full', cal: calendar(slotEntry('a', 100, 200, slots(8))), q: question(), expected: 0 },
    {
      name: 'nothing, not less, when the host is over capacity',
      cal: calendar(slotEntry('a', 100, 200, slots(20, { memoryMb: 1, diskGb: 0 }))),
      q: question(),
      expected: 0,
    },
    { name: 'a slot bigger than the host', cal: calendar(), q: question({ demand: resources(9, 1, 0) }), expected: 0 },
    {
      name: 'the asking reservation does not count',
      cal: calendar(slotEntry('me', 100, 200, slots(8))),
      q: question({ reservationId: 'me' }),
      expected: 8,
    },
    {
      name: 'another reservation does',
      cal: calendar(slotEntry('other', 100, 200, slots(6))),
      q: question({ reservationId: 'me' }),
      expected: 2,
    },
    { name: 'a whole-host booking in the window leaves nothing', cal: calendar(wholeEntry('w', 150, 160)), q: question(), expected: 0 },
    { name: 'a whole-host booking touching the window leaves all', cal: calendar(wholeEntry('w', 200, 260)), q: question(), expected: 8 },
    {
      name: 'a whole-host booking within the cleaning time leaves nothing',
      cal: calendar(wholeEntry('w', 200, 260)),
      q: question({ cleaningTimeMs: 30 * MINUTE_MS }),
      expected: 0,
    },
    {
      name: 'a whole-host booking exactly the cleaning time away leaves all',
      cal: calendar(wholeEntry('w', 230, 260)),
      q: question({ cleaningTimeMs: 30 * MINUTE_MS }),
      expected: 8,
    },
    {
      name: "the asking reservation's own whole-host booking does not count",
      cal: calendar(wholeEntry('me', 100, 200)),
      q: question({ reservationId: 'me' }),
      expected: 8,
    },
    {
      name: 'slots within the cleaning time but outside the window do not count',
      cal: calendar(slotEntry('a', 200, 260, slots(8))),
      q: question({ cleaningTimeMs: 30 * MINUTE_MS }),
      expected: 8,
    },
    {
      name: 'a long early booking still running counts',
      cal: calendar(slotEntry('long', 0, 1000, slots(5)), slotEntry('a', 10, 20, slots(1)), slotEntry('b', 30, 40, slots(1))),
      q: question(),
      expected: 3,
    },
  ])('$name -> $expected', ({ cal, q, expected }) => {
    expect(freeSlotCount(cal, CAPACITY, q)).toBe(expected);
  });

  it('trusts longestBookingMs: an understated bound misses a long early booking', () => {
    const understated: Calendar = { bookings: [slotEntry('long', 0, 1000, slots(5))], longestBookingMs: 10 * MINUTE_MS, maintenance: [] };
    expect(freeSlotCount(understated, CAPACITY, question())).toBe(8);
  });
});

// ---------------------------------------------------------------------------------------------
// wholeHostFree
// ---------------------------------------------------------------------------------------------

describe('wholeHostFree', () => {
  const window = minutes(100, 200);

  it.each([
    { name: 'an empty host', cal: calendar(), cleaning: 0, reservationId: undefined, expected: true },
    {
      name: 'one slot in the window',
      cal: calendar(slotEntry('a', 150, 160, slots(1))),
      cleaning: 0,
      reservationId: undefined,
      expected: false,
    },
    {
      name: 'a whole-host booking in the window',
      cal: calendar(wholeEntry('w', 50, 101)),
      cleaning: 0,
      reservationId: undefined,
      expected: false,
    },
    {
      name: 'bookings touching both ends',
      cal: calendar(wholeEntry('w', 50, 100), slotEntry('a', 200, 300, slots(1))),
      cleaning: 0,
      reservationId: undefined,
      expected: true,
    },
    {
      name: 'slots within the cleaning time',
      cal: calendar(slotEntry('a', 200, 300, slots(1))),
      cleaning: 30,
      reservationId: undefined,
      expected: false,
    },
    {
      name: 'slots exactly the cleaning time away',
      cal: calendar(slotEntry('a', 230, 300, slots(1))),
      cleaning: 30,
      reservationId: undefined,
      expected: true,
    },
    {
      name: 'whole host within the cleaning time',
      cal: calendar(wholeEntry('w', 40, 71)),
      cleaning: 30,
      reservationId: undefined,
      expected: false,
    },
    { name: 'its own booking', cal: calendar(wholeEntry('me', 100, 200)), cleaning: 30, reservationId: 'me', expected: true },
    {
      name: 'its own booking and another one',
      cal: calendar(wholeEntry('me', 100, 150), slotEntry('a', 150, 200, slots(1))),
      cleaning: 0,
      reservationId: 'me',
      expected: false,
    },
    {
      name: 'a long early booking still running',
      cal: calendar(slotEntry('long', 0, 1000, slots(1)), wholeEntry('w', 10, 20)),
      cleaning: 0,
      reservationId: undefined,
      expected: false,
    },
  ])('$name -> $expected', ({ cal, cleaning, reservationId, expected }) => {
    expect(wholeHostFree(cal, window, cleaning * MINUTE_MS, reservationId)).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: the decider's calendar never exceeds capacity, and refuses only what does not fit
// ---------------------------------------------------------------------------------------------

interface ModelBooking extends Interval {
  readonly reservationId: string;
  readonly slots: SlotDemand | null;
}

const overlap = (a: Interval, b: Interval): boolean => a.start < b.end && b.start < a.end;
const around = (window: Interval, marginMs: number): Interval => ({ start: window.start - marginMs, end: window.end + marginMs });

/** Slot use at instant `t` (brute force over every booking). */
const usageAt = (bookings: readonly ModelBooking[], t: number): Resources => {
  const used = { vcpus: 0, memoryMb: 0, diskGb: 0 };
  for (const b of bookings) {
    if (b.slots === null || !(b.start <= t && t < b.end)) continue;
    used.vcpus += b.slots.count * b.slots.vcpus;
    used.memoryMb += b.slots.count * b.slots.memoryMb;
    used.diskGb += b.slots.count * b.slots.diskGb;
  }
  return used;
};

const within = (used: Resources, capacity: Resources): boolean =>
  used.vcpus <= capacity.vcpus && used.memoryMb <= capacity.memoryMb && used.diskGb <= capacity.diskGb;

/** Whether `candidate` fits next to `others`, judged at every instant where usage can change. */
const fitsByBruteForce = (others: readonly ModelBooking[], candidate: ModelBooking, cleaningMs: number, capacity: Resources): boolean => {
  const widened = around(candidate, cleaningMs);
  if (candidate.slots === null) return others.every((b) => !overlap(b, widened));
  if (others.some((b) => b.slots === null && overlap(b, widened))) return false;
  const demand = candidate.slots;
  const instants = [candidate.start, ...others.map((b) => b.start)].filter((t) => candidate.start <= t && t < candidate.end);
  return instants.every((t) => {
    const used = usageAt(others, t);
    return within(
      {
        vcpus: used.vcpus + demand.count * demand.vcpus,
        memoryMb: used.memoryMb + demand.count * demand.memoryMb,
        diskGb: used.diskGb + demand.count * demand.diskGb,
      },
      capacity,
    );
  });
};

const isoAt = (minute: number): string => new Date(Date.UTC(2030, 0, 1) + minute * MINUTE_MS).toISOString();

interface Step {
  readonly command: HostCommand;
  readonly candidate: ModelBooking | null;
  readonly cleaningMs: number;
}

const sameHold = (a: ModelBooking, b: ModelBooking): boolean =>
  a.start === b.start && a.end === b.end && JSON.stringify(a.slots) === JSON.stringify(b.slots);

const randomStep = (random: () => number, bookings: readonly ModelBooking[], nextId: () => string, ratios: AllocationRatios): Step => {
  const startMinute = randomInt(random, 0, 48) * 15;
  const endMinute = startMinute + randomInt(random, 1, 12) * 15;
  const cleaningTimeMinutes = [0, 0, 15, 30][randomInt(random, 0, 3)] ?? 0;
  const cleaningMs = cleaningTimeMinutes * MINUTE_MS;
  const demand = slots(randomInt(random, 1, 4), {
    vcpus: randomInt(random, 1, 3),
    memoryMb: randomInt(random, 1, 6) * 512,
    diskGb: randomInt(random, 0, 3) * 10,
  });
  const options = { startDate: isoAt(startMinute), endDate: isoAt(endMinute), cleaningTimeMinutes, allocationRatios: ratios };
  const hold = (reservationId: string, held: SlotDemand | null): ModelBooking => ({
    reservationId,
    ...minutes(startMinute, endMinute),
    slots: held,
  });
  const existing = bookings[randomInt(random, 0, Math.max(0, bookings.length - 1))];
  const roll = random();
  if (existing !== undefined && roll < 0.1) return { command: releaseHostBooking(existing.reservationId), candidate: null, cleaningMs };
  if (existing !== undefined && roll < 0.3) {
    const id = existing.reservationId;
    const moved = hold(id, existing.slots === null ? null : demand);
    // an unchanged move is accepted without a check, whatever the cleaning time
    const candidate = sameHold(moved, existing) ? null : moved;
    const command = existing.slots === null ? moveHostBooking(id, options) : moveSlots(id, demand, options);
    return { command, candidate, cleaningMs };
  }
  const id = nextId();
  return roll < 0.4
    ? { command: bookHost(id, options), candidate: hold(id, null), cleaningMs }
    : { command: bookSlots(id, demand, options), candidate: hold(id, demand), cleaningMs };
};

const modelOf = (events: readonly HostEvent[]): ModelBooking[] => {
  const state = foldEvents(hostDecider, events);
  if (state.status !== 'Registered') throw new Error('expected a registered host');
  const base = Date.UTC(2030, 0, 1);
  return state.bookings.map((b) => ({ reservationId: b.reservationId, start: b.start - base, end: b.end - base, slots: b.slots }));
};

const decideOrRefusal = (command: HostCommand, events: readonly HostEvent[]): readonly HostEvent[] | string => {
  try {
    return hostDecider.decide(command, foldEvents(hostDecider, events));
  } catch (error: unknown) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
};

describe('property: random bookings accepted one by one never exceed capacity', () => {
  const ratiosBySeed: readonly AllocationRatios[] = [
    DEFAULT_ALLOCATION_RATIOS,
    { cpu: 1.5, ram: 1, disk: 1 },
    { cpu: 4, ram: 1.5, disk: 0.5 },
  ];
  const seeds = Array.from({ length: 12 }, (_, i) => i + 1);

  it.each(seeds)('seed %i', (seed) => {
    const random = seededRandom(seed);
    const ratios = ratiosBySeed[seed % ratiosBySeed.length] ?? DEFAULT_ALLOCATION_RATIOS;
    const capacity = slotCapacity(resources(8, 16384, 100), ratios);
    const events: HostEvent[] = [hostRegistered()];
    let counter = 0;
    const nextId = (): string => `res-${seed}-${++counter}`;
    const tally = { accepted: 0, refused: 0 };

    for (let i = 0; i < 150; i++) {
      const bookings = modelOf(events);
      const step = randomStep(random, bookings, nextId, ratios);
      const result = decideOrRefusal(step.command, events);
      if (step.candidate !== null) {
        const others = bookings.filter((b) => b.reservationId !== step.candidate?.reservationId);
        const fits = fitsByBruteForce(others, step.candidate, step.cleaningMs, capacity);
        const context = `seed ${seed}, step ${i}: ${JSON.stringify(step.command)}`;
        if (fits) expect(result, context).not.toBeTypeOf('string');
        else expect(result, context).toBe(step.candidate.slots === null ? 'HOST_ALREADY_BOOKED' : 'HOST_CAPACITY_EXCEEDED');
      }
      if (typeof result === 'string') {
        tally.refused++;
        continue;
      }
      tally.accepted++;
      events.push(...result);

      const after = modelOf(events);
      for (const t of after.flatMap((b) => [b.start, b.end])) {
        expect(within(usageAt(after, t), capacity), `seed ${seed}, step ${i}, usage at minute ${t / MINUTE_MS}`).toBe(true);
      }
      for (const whole of after.filter((b) => b.slots === null)) {
        expect(
          after.filter((b) => b !== whole && overlap(b, whole)),
          `seed ${seed}, step ${i}, whole host ${whole.reservationId}`,
        ).toEqual([]);
      }
    }
    // both paths are exercised
    expect(tally.accepted).toBeGreaterThan(10);
    expect(tally.refused).toBeGreaterThan(10);
  });
});
