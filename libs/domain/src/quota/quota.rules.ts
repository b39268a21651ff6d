import { hoursOf } from '../usage/hours.js';
import type { HeldQuota, LeaseHolding, MonthlyQuota, QuotaCatalogue, QuotaLimits, QuotaName } from './quota.types.js';

interface Segment {
  readonly start: number;
  readonly end: number;
}

/** What a decision would make a quota's use: `wouldBe` in its own unit (hours for a monthly one, of `month`). */
export interface QuotaExcess {
  readonly quota: QuotaName;
  readonly limit: number;
  readonly wouldBe: number;
  /** `YYYY-MM` for a monthly quota, null for one held at once. */
  readonly month: string | null;
}

/** A lease decision as quotas see it: the project's other leases, the lease before and after (null: none). */
export interface QuotaDecision {
  readonly limits: QuotaLimits;
  readonly others: readonly LeaseHolding[];
  readonly before: LeaseHolding | null;
  readonly after: LeaseHolding | null;
  /** Epoch ms: what is held at once is judged from now on, the past being past. */
  readonly now: number;
}

const clip = (segment: Segment, from: number): Segment | null => {
  const start = Math.max(segment.start, from);
  return start < segment.end ? { start, end: segment.end } : null;
};

/** Where the lease holds more of `name` after than before: all of its window, or only what lies outside the old one. */
const growth = (before: LeaseHolding | null, after: LeaseHolding, name: HeldQuota): Segment[] => {
  const amount = after.amounts[name] ?? 0;
  if (amount === 0) return [];
  if (before === null || amount > (before.amounts[name] ?? 0)) return [after];
  const parts = [
    { start: after.start, end: Math.min(after.end, before.start) },
    { start: Math.max(after.start, before.end), end: after.end },
  ];
  return parts.filter((part) => part.start < part.end);
};

/** The most the holdings hold of `name` at once within [start, end): a sweep over their starts and ends. */
export const peakWithin = (holdings: readonly LeaseHolding[], name: HeldQuota, segment: Segment): number => {
  const steps: [number, number][] = [];
  for (const h of holdings) {
    const amount = h.amounts[name] ?? 0;
    if (amount === 0 || h.start >= segment.end || h.end <= segment.start) continue;
    steps.push([Math.max(h.start, segment.start), amount], [h.end, -amount]);
  }
  // ends before starts at one instant: windows are half-open
  steps.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let held = 0;
  let peak = 0;
  for (const [, change] of steps) {
    held += change;
    peak = Math.max(peak, held);
  }
  return peak;
};

const heldExcess = (decision: QuotaDecision, after: LeaseHolding, name: HeldQuota): QuotaExcess | null => {
  const limit = decision.limits[name];
  if (limit === null) return null;
  let wouldBe = 0;
  for (const part of growth(decision.before, after, name)) {
    const segment = clip(part, decision.now);
    if (segment !== null) wouldBe = Math.max(wouldBe, peakWithin([...decision.others, after], name, segment));
  }
  return wouldBe > limit ? { quota: name, limit, wouldBe, month: null } : null;
};

/** Epoch ms of the first instant of the UTC month `offset` months after the one `ms` lies in. */
const monthStart = (ms: number, offset = 0): number => {
  const day = new Date(ms);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + offset, 1);
};

export const monthKey = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** The UTC months [start, end) touches, as their bounds. */
export const monthsOf = (segment: Segment): Segment[] => {
  const months: Segment[] = [];
  for (let start = monthStart(segment.start); start < segment.end; start = monthStart(start, 1))
    months.push({ start, end: monthStart(start, 1) });
  return months;
};

/** Unit-milliseconds the holding spends in `month`: its amount times the time its window overlaps the month. */
export const unitMsWithin = (holding: LeaseHolding, unit: HeldQuota, month: Segment): number =>
  (holding.amounts[unit] ?? 0) * Math.max(0, Math.min(holding.end, month.end) - Math.max(holding.start, month.start));

/** A month's use of a monthly quota summing `unit`, in unit-milliseconds. */
export const monthlyUse = (holdings: readonly LeaseHolding[], unit: HeldQuota, month: Segment): number =>
  holdings.reduce((total, h) => total + unitMsWithin(h, unit, month), 0);

const monthlyExcess = (decision: QuotaDecision, after: LeaseHolding, name: MonthlyQuota, unit: HeldQuota): QuotaExcess | null => {
  const limit = decision.limits[name];
  if (limit === null) return null;
  const { before, others } = decision;
  for (const month of monthsOf(after)) {
    const added = unitMsWithin(after, unit, month) - (before === null ? 0 : unitMsWithin(before, unit, month));
    if (added <= 0) continue;
    // judged on the hours a usage report would show, so a refusal never names the limit itself as what passes it
    const wouldBe = hoursOf(monthlyUse(others, unit, month) + unitMsWithin(after, unit, month));
    if (wouldBe > limit) return { quota: name, limit, wouldBe, month: monthKey(month.start) };
  }
  return null;
};

/**
 * The first quota a lease decision would take past its limit, or null. A decision is refused only
 * where it adds: an instant (from now on) at which the lease holds more than it did, a month in
 * which it spends more hours; so a project over a limit lowered since can still shrink its leases.
 */
export const quotaExcess = (quotas: QuotaCatalogue, decision: QuotaDecision): QuotaExcess | null => {
  const { after } = decision;
  if (after === null) return null;
  for (const name of quotas.held) {
    const excess = heldExcess(decision, after, name);
    if (excess !== null) return excess;
  }
  for (const name of quotas.monthly) {
    const excess = monthlyExcess(decision, after, name, quotas.unitOf[name]);
    if (excess !== null) return excess;
  }
  return null;
};

/** A project's use of its quotas at `now`: held now, the most held at once from now on, and this month's hours. */
export interface QuotaUse {
  readonly month: string;
  readonly held: Readonly<Record<HeldQuota, number>>;
  readonly peak: Readonly<Record<HeldQuota, number>>;
  readonly monthly: Readonly<Record<MonthlyQuota, number>>;
}

export const quotaUse = (quotas: QuotaCatalogue, holdings: readonly LeaseHolding[], now: number): QuotaUse => {
  const [month] = monthsOf({ start: now, end: now + 1 }) as [Segment];
  const held = (name: HeldQuota): number =>
    holdings.reduce((total, h) => total + (h.start <= now && now < h.end ? (h.amounts[name] ?? 0) : 0), 0);
  const peak = (name: HeldQuota): number => peakWithin(holdings, name, { start: now, end: Number.POSITIVE_INFINITY });
  return {
    month: monthKey(now),
    held: Object.fromEntries(quotas.held.map((name) => [name, held(name)])) as Record<HeldQuota, number>,
    peak: Object.fromEntries(quotas.held.map((name) => [name, peak(name)])) as Record<HeldQuota, number>,
    monthly: Object.fromEntries(quotas.monthly.map((name) => [name, hoursOf(monthlyUse(holdings, quotas.unitOf[name], month))])) as Record<
      MonthlyQuota,
      number
    >,
  };
};
