import {
  type AllocationRatios,
  type Booking,
  type Interval,
  LAST_INSTANT_MS,
  type RegisteredHost,
  type Resources,
  slotCapacity,
} from '#domain/index.js';
import type { BusyCalendars, BusyInterval } from '../availability/busy-calendars.js';
import { HostSweeper, minuteFrom } from '../availability/host-sweep.js';
import { toHostSnapshot } from '../write-model/write-index.js';

/** The report's frame: [start, end) cut into steps (the last one may be shorter), epoch ms. */
export interface CapacityFrame {
  readonly start: number;
  readonly end: number;
  readonly stepMs: number;
  /** The duration of the largest request each step reports. */
  readonly requestMs: number;
  readonly cleaningMs: number;
  readonly ratios: AllocationRatios;
}

/** Whole hosts of one zone in one step. */
export interface HostStep {
  readonly start: number;
  readonly end: number;
  readonly enrolled: number;
  /** Hosts with a maintenance window somewhere in the step (docs/maintenance.md): offered to no new lease there. */
  readonly inMaintenance: number;
  /** Hosts with a whole-host booking somewhere in the step, and no maintenance window. */
  readonly reservedWhole: number;
  /** Hosts with instance slots booked in the step and no whole-host booking. */
  readonly reservedBySlots: number;
  /** Hosts with nothing booked in the step. */
  readonly free: number;
  /** Most hosts holding a booking at one instant of the step, over the hosts enrolled (0 when none are). */
  readonly peakUtilisation: number;
  /**
   * Reservable hosts that a request for `requestMs` starting at the step would be given (the host policy's own count, cleaning time
   * included).
   */
  readonly largestRequest: number;
}

/** Instance slot resources of one zone in one step. */
export interface SlotStep {
  readonly start: number;
  readonly end: number;
  /** Totals x allocation ratios over the zone's hosts. */
  readonly capacity: Resources;
  /** Most held by slot bookings at one instant of the step. */
  readonly peakReserved: Resources;
  /** The fullest resource at its peak, over its capacity. */
  readonly peakUtilisation: number;
}

export interface ZoneCapacity {
  readonly availabilityZone: string;
  readonly hosts: readonly HostStep[];
  readonly slots: readonly SlotStep[];
}

const RESOURCES = ['vcpus', 'memoryMb', 'diskGb'] as const;

export const stepCount = (frame: Pick<CapacityFrame, 'start' | 'end' | 'stepMs'>): number =>
  Math.ceil((frame.end - frame.start) / frame.stepMs);

export const stepsOf = (frame: CapacityFrame): { readonly start: number; readonly end: number }[] =>
  Array.from({ length: stepCount(frame) }, (_, k) => ({
    start: frame.start + k * frame.stepMs,
    end: Math.min(frame.end, frame.start + (k + 1) * frame.stepMs),
  }));

/** The steps a booking reaches into: [first, last], or null when it misses the frame. */
export const stepRange = (frame: CapacityFrame, booking: Interval): readonly [number, number] | null => {
  if (booking.end <= frame.start || booking.start >= frame.end || booking.end <= booking.start) return null;
  const first = Math.floor((Math.max(booking.start, frame.start) - frame.start) / frame.stepMs);
  const last = Math.ceil((Math.min(booking.end, frame.end) - frame.start) / frame.stepMs) - 1;
  return [first, last];
};

/**
 * Per step, how many hosts are in maintenance, how many of the others hold a whole-host booking and how many
 * only slots. Each host marks a step once, in the first of these it is in (`marks` hold the last host that
 * counted each step), so the cost is the steps the windows and bookings reach.
 */
const reservedPerStep = (
  frame: CapacityFrame,
  hosts: readonly RegisteredHost[],
): { readonly maintenance: Int32Array; readonly whole: Int32Array; readonly slots: Int32Array } => {
  const count = stepCount(frame);
  const [maintenance, whole, slots] = [new Int32Array(count), new Int32Array(count), new Int32Array(count)];
  const marks = [maintenance, whole, slots].map(() => new Int32Array(count).fill(-1));
  /** Whether host `h` already counted in step `k` at `rank` or before it. */
  const counted = (h: number, k: number, rank: number): boolean => {
    for (let r = 0; r <= rank; r++) if (marks[r]?.[k] === h) return true;
    return false;
  };
  const mark = (h: number, span: Interval, counts: Int32Array, rank: number): void => {
    const range = stepRange(frame, span);
    if (range === null) return;
    for (let k = range[0]; k <= range[1]; k++) {
      if (counted(h, k, rank)) continue;
      (marks[rank] as Int32Array)[k] = h;
      counts[k] = (counts[k] ?? 0) + 1;
    }
  };
  hosts.forEach((host, h) => {
    for (const window of host.maintenance) mark(h, window, maintenance, 0);
    for (const booking of host.bookings) if (booking.slots === null) mark(h, booking, whole, 1);
    for (const booking of host.bookings) if (booking.slots !== null) mark(h, booking, slots, 2);
  });
  return { maintenance, whole, slots };
};

/**
 * A walk over the bookings of some resources (a zone's hosts, a group of a kind's) in time order (the busy calendars'
 * lists by start and by end): each booking starts (+1) and ends (-1) once through `change`; `observe` is called at each
 * step's start and at every instant inside the step where something changed, each time after all changes at it.
 */
export const walk = <S extends object, B extends Interval>(
  calendars: BusyCalendars<S, B>,
  included: readonly boolean[],
  frame: CapacityFrame,
  change: (interval: BusyInterval<B>, sign: 1 | -1) => void,
  observe: (step: number) => void,
): void => {
  const { byStart, byEnd } = calendars;
  let enter = 0;
  let leave = 0;
  const next = (): number => Math.min(byStart[enter]?.start ?? Infinity, byEnd[leave]?.end ?? Infinity);
  const applyAt = (time: number): void => {
    for (let interval = byStart[enter]; interval?.start === time; interval = byStart[++enter])
      if (included[interval.member] === true) change(interval, 1);
    for (let interval = byEnd[leave]; interval?.end === time; interval = byEnd[++leave])
      if (included[interval.member] === true) change(interval, -1);
  };
  stepsOf(frame).forEach((step, k) => {
    for (let time = next(); time <= step.start; time = next()) applyAt(time);
    observe(k);
    for (let time = next(); time < step.end; time = next()) {
      applyAt(time);
      observe(k);
    }
  });
};

/** Per step, the most hosts busy at one instant, and the most of each resource held by slots at one instant. */
const peaksPerStep = (calendars: BusyCalendars<RegisteredHost, Booking>, inZone: readonly boolean[], frame: CapacityFrame) => {
  const count = stepCount(frame);
  const hostPeak = new Int32Array(count);
  const slotPeak = RESOURCES.map(() => new Float64Array(count));
  const covering = new Int32Array(inZone.length);
  const held = [0, 0, 0];
  let busy = 0;
  walk(
    calendars,
    inZone,
    frame,
    ({ member, booking }, sign) => {
      const before = covering[member] ?? 0;
      covering[member] = before + sign;
      if (before === 0 && sign === 1) busy++;
      if (before === 1 && sign === -1) busy--;
      if (booking.slots !== null)
        RESOURCES.forEach(
          (resource, r) => (held[r] = (held[r] ?? 0) + sign * (booking.slots?.count ?? 0) * (booking.slots?.[resource] ?? 0)),
        );
    },
    (k) => {
      hostPeak[k] = Math.max(hostPeak[k] ?? 0, busy);
      slotPeak.forEach((peaks, r) => (peaks[k] = Math.max(peaks[k] ?? 0, held[r] ?? 0)));
    },
  );
  return { hostPeak, slotPeak };
};

/**
 * Free hosts for a request of `requestMs` at each step's start, by the host policy's rule (a sweep); none for a request that would end
 * after the last instant a date may be, which no lease can ask for.
 */
const largestPerStep = (calendars: BusyCalendars<RegisteredHost, Booking>, inZone: readonly boolean[], frame: CapacityFrame): number[] => {
  const matching = calendars.members.map((host, i) => inZone[i] === true && toHostSnapshot(host).columns.reservable);
  const lastStart = LAST_INSTANT_MS - frame.requestMs;
  const sweeper = new HostSweeper(calendars, { matching, min: 0, durationMs: frame.requestMs, cleaningMs: frame.cleaningMs, lastStart });
  return stepsOf(frame).map((step) => {
    const start = minuteFrom(step.start);
    return start > lastStart ? 0 : sweeper.supplyAt(start).free;
  });
};

export const ratio = (used: number, total: number): number => (total === 0 ? 0 : Math.round((used / total) * 10_000) / 10_000);

/** The smallest instance a reservation may ask for (1 vCPU, 1 MB, a 0 GB root disk): a host that cannot hold it holds no slot. */
const SMALLEST_INSTANCE: Resources = { vcpus: 1, memoryMb: 1, diskGb: 0 };

const holdsAnInstance = (capacity: Resources): boolean => RESOURCES.every((resource) => capacity[resource] >= SMALLEST_INSTANCE[resource]);

/**
 * Totals x allocation ratios over the hosts a slot can really be placed on, as the instance policy picks them: reservable
 * (and up), and able to hold one instance at all. A host registered without memory adds none of its vCPUs or disk.
 */
const slotCapacityOf = (hosts: readonly RegisteredHost[], ratios: AllocationRatios): Resources =>
  hosts.reduce<Resources>(
    (sum, host) => {
      if (!toHostSnapshot(host).columns.reservable) return sum;
      const one = slotCapacity({ vcpus: host.info.vcpus, memoryMb: host.info.memoryMb, diskGb: host.info.localGb }, ratios);
      if (!holdsAnInstance(one)) return sum;
      return { vcpus: sum.vcpus + one.vcpus, memoryMb: sum.memoryMb + one.memoryMb, diskGb: sum.diskGb + one.diskGb };
    },
    { vcpus: 0, memoryMb: 0, diskGb: 0 },
  );

/** One zone's rows: its hosts by step (maintenance, whole, slots, free, peak, largest request) and its slot resources by step. */
export const zoneCapacity = (calendars: BusyCalendars<RegisteredHost, Booking>, zone: string, frame: CapacityFrame): ZoneCapacity => {
  const inZone = calendars.members.map((host) => host.info.availabilityZone === zone);
  const hosts = calendars.members.filter((_, i) => inZone[i] === true);
  const { maintenance, whole, slots } = reservedPerStep(frame, hosts);
  const { hostPeak, slotPeak } = peaksPerStep(calendars, inZone, frame);
  const largest = largestPerStep(calendars, inZone, frame);
  const capacity = slotCapacityOf(hosts, frame.ratios);
  const steps = stepsOf(frame);
  return {
    availabilityZone: zone,
    hosts: steps.map((step, k) => {
      const [m, w, s] = [maintenance[k] ?? 0, whole[k] ?? 0, slots[k] ?? 0];
      return {
        ...step,
        enrolled: hosts.length,
        inMaintenance: m,
        reservedWhole: w,
        reservedBySlots: s,
        free: hosts.length - m - w - s,
        peakUtilisation: ratio(hostPeak[k] ?? 0, hosts.length),
        largestRequest: largest[k] ?? 0,
      };
    }),
    slots: steps.map((step, k) => {
      const peakReserved = { vcpus: slotPeak[0]?.[k] ?? 0, memoryMb: slotPeak[1]?.[k] ?? 0, diskGb: slotPeak[2]?.[k] ?? 0 };
      return {
        ...step,
        capacity,
        peakReserved,
        peakUtilisation: Math.max(...RESOURCES.map((resource) => ratio(peakReserved[resource], capacity[resource]))),
      };
    }),
  };
};
