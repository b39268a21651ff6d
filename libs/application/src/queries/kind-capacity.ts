import type { Interval } from '#domain/index.js';
import type { CalendarBooking, CapacityGroupField } from '#plugins/resource-kind.js';
import type { AnyResourceKind } from '#plugins/resource-kinds.js';
import type { BusyCalendars } from '../availability/busy-calendars.js';
import type { KindMember } from '../availability/calendar-index.js';
import { type CapacityFrame, ratio, stepCount, stepRange, stepsOf, walk } from './capacity-report.js';

/** The resources of one group of a kind (network segments of one type and physical network) in one step. */
export interface KindStep {
  readonly start: number;
  readonly end: number;
  readonly registered: number;
  /** Held at the step's start. */
  readonly bookedAtStart: number;
  /** With a maintenance window somewhere in the step (docs/maintenance.md): offered to no new lease there. */
  readonly inMaintenance: number;
  /** With a booking somewhere in the step, and no maintenance window. */
  readonly booked: number;
  /** With nothing booked and no window in the step. */
  readonly free: number;
  /** Most held at one instant of the step, over those registered (0 when none are). */
  readonly peakUtilisation: number;
}

export interface KindPool {
  readonly kind: string;
  readonly group: readonly CapacityGroupField[];
  readonly steps: readonly KindStep[];
}

/**
 * Per step, the group's resources in maintenance, and the others with a booking in it: each resource marks a step
 * once, as in maintenance first (its windows' holds among its bookings then count nowhere else), so the cost is the
 * steps the windows and bookings reach.
 */
const bookedPerStep = (calendars: BusyCalendars<KindMember, CalendarBooking>, inGroup: readonly boolean[], frame: CapacityFrame) => {
  const [maintenance, booked] = [new Int32Array(stepCount(frame)), new Int32Array(stepCount(frame))];
  const marks = new Int32Array(booked.length).fill(-1);
  calendars.members.forEach((member, m) => {
    if (inGroup[m] !== true) return;
    const mark = (span: Interval, counts: Int32Array): void => {
      const range = stepRange(frame, span);
      if (range === null) return;
      for (let k = range[0]; k <= range[1]; k++) {
        if (marks[k] === m) continue;
        marks[k] = m;
        counts[k] = (counts[k] ?? 0) + 1;
      }
    };
    for (const window of member.maintenance) mark(window, maintenance);
    for (const booking of member.bookings) mark(booking, booked);
  });
  return { maintenance, booked };
};

/** Per step, the group's resources held at its start and at most at one instant of it. */
const heldPerStep = (calendars: BusyCalendars<KindMember, CalendarBooking>, inGroup: readonly boolean[], frame: CapacityFrame) => {
  const atStart = new Int32Array(stepCount(frame)).fill(-1);
  const peak = new Int32Array(atStart.length);
  const covering = new Int32Array(inGroup.length);
  let held = 0;
  walk(
    calendars,
    inGroup,
    frame,
    ({ member }, sign) => {
      const before = covering[member] ?? 0;
      covering[member] = before + sign;
      if (before === 0 && sign === 1) held++;
      if (before === 1 && sign === -1) held--;
    },
    (k) => {
      // the walk observes each step at its start first
      if (atStart[k] === -1) atStart[k] = held;
      peak[k] = Math.max(peak[k] ?? 0, held);
    },
  );
  return { atStart, peak };
};

const groupSteps = (
  calendars: BusyCalendars<KindMember, CalendarBooking>,
  inGroup: readonly boolean[],
  frame: CapacityFrame,
): KindStep[] => {
  const registered = inGroup.filter(Boolean).length;
  const { maintenance, booked } = bookedPerStep(calendars, inGroup, frame);
  const { atStart, peak } = heldPerStep(calendars, inGroup, frame);
  return stepsOf(frame).map((step, k) => ({
    ...step,
    registered,
    bookedAtStart: atStart[k] ?? 0,
    inMaintenance: maintenance[k] ?? 0,
    booked: booked[k] ?? 0,
    free: registered - (maintenance[k] ?? 0) - (booked[k] ?? 0),
    peakUtilisation: ratio(peak[k] ?? 0, registered),
  }));
};

const compareGroups = (a: readonly CapacityGroupField[], b: readonly CapacityGroupField[]): number => {
  for (const [i, [, value]] of a.entries()) {
    const other = b[i]?.[1] ?? null;
    if (value !== other) return value === null ? -1 : other === null ? 1 : value.localeCompare(other);
  }
  return 0;
};

/** A pool per group of the kind's registered resources (the kind says how it groups them), sorted by the groups' fields. */
export const kindCapacity = (
  calendars: BusyCalendars<KindMember, CalendarBooking>,
  kind: AnyResourceKind,
  frame: CapacityFrame,
): KindPool[] => {
  const groups = new Map<string, readonly CapacityGroupField[]>();
  const groupOf = calendars.members.map((member) => {
    const group = kind.capacity.group(member.state);
    if (group === null) return null;
    const key = JSON.stringify(group);
    groups.set(key, group);
    return key;
  });
  return [...groups]
    .sort(([, a], [, b]) => compareGroups(a, b))
    .map(([key, group]) => ({
      kind: kind.kind,
      group,
      steps: groupSteps(
        calendars,
        groupOf.map((of) => of === key),
        frame,
      ),
    }));
};
