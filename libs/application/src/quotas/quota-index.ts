import { DateTime } from 'luxon';
import {
  type HeldQuota,
  type LeaseEvent,
  type LeaseHolding,
  QUOTA_CATEGORY,
  type QuotaAmounts,
  type QuotaEvent,
  type QuotaState,
  type TrackedLease,
  quotaDecider,
  trackLease,
  monthsOf,
  trackedHolding,
  unitMsWithin,
} from '#domain/index.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { QUOTAS, reservationAmounts } from '#plugins/reservation-holdings.js';
import { AsyncMutex } from '../write-model/async-mutex.js';
import type { Versioned } from '../write-model/write-index.js';

const CATEGORIES = ['lease', QUOTA_CATEGORY];

/** Every project's quota settings, over the quotas the registered types count. */
export const QUOTA_DECIDER = quotaDecider(QUOTAS);
const PAGE = 5000;

/** What a snapshot of the index holds: the leases it tracks, the hours of those it forgot, every project's quota stream. */
export interface QuotaIndexPayload {
  readonly leases: readonly TrackedLease[];
  readonly spent: readonly (readonly [string, readonly (readonly [number, QuotaAmounts])[]])[];
  readonly quotas: readonly (readonly [string, Versioned<QuotaState>])[];
}

/** Per month (its first instant, epoch ms): each unit's milliseconds the forgotten leases spent in it. */
type Spent = Map<number, QuotaAmounts>;

const monthOf = (ms: number): number => monthsOf({ start: ms, end: ms + 1 })[0]?.start ?? ms;

const addSpent = (spent: Spent, tracked: TrackedLease, fromMonth: number): void => {
  const holding = trackedHolding(tracked);
  for (const month of monthsOf(holding)) {
    if (month.start < fromMonth) continue;
    const amounts: Partial<Record<HeldQuota, number>> = { ...spent.get(month.start) };
    for (const unit of Object.keys(holding.amounts) as HeldQuota[])
      amounts[unit] = (amounts[unit] ?? 0) + unitMsWithin(holding, unit, month);
    spent.set(month.start, amounts);
  }
};

/**
 * A month's forgotten hours as the rules read a holding: one millisecond long at the month's first
 * instant, its amounts the unit-milliseconds, so it counts in that month's hours (unitMsWithin) in
 * full and at no instant from now on (the month began before the cutoff, before now).
 */
const spentHolding = (projectId: string, month: number, amounts: QuotaAmounts): LeaseHolding => ({
  leaseId: `spent-${DateTime.fromMillis(month, { zone: 'utc' }).toFormat('yyyy-MM')}`,
  projectId,
  start: month,
  end: month + 1,
  amounts,
});

interface Held {
  readonly tracked: TrackedLease;
  readonly holding: LeaseHolding;
}

/**
 * What quotas are decided on, kept in memory next to the write index: per project, what each of its
 * leases holds over which window, and its quota stream (settings, and the revision every admission
 * of the project is fenced on). Folded from the log and caught up before each decision; a stale view
 * costs a retry, as the fence's revision is what the append checks.
 */
export class QuotaIndex {
  private position = 0;
  private readonly leases = new Map<string, Held>();
  private readonly byProject = new Map<string, Set<string>>();
  private readonly spent = new Map<string, Spent>();
  private readonly quotas = new Map<string, Versioned<QuotaState>>();
  private readonly catchUpLock = new AsyncMutex();

  constructor(private readonly store: EventStore) {}

  catchUp(): Promise<void> {
    return this.catchUpLock.run(async () => {
      for (;;) {
        const events = await this.store.readAll({ from: this.position, limit: PAGE, filter: { categories: CATEGORIES } });
        for (const event of events) this.apply(event);
        if (events.length < PAGE) return;
      }
    });
  }

  /** The index as it stands, for its snapshot. */
  capture(): { readonly position: number; readonly payload: QuotaIndexPayload } {
    const leases = [...this.leases.values()].map((held) => held.tracked);
    const spent = [...this.spent].map(([projectId, months]) => [projectId, [...months]] as const);
    return { position: this.position, payload: { leases, spent, quotas: [...this.quotas.entries()] } };
  }

  /** The index from a snapshot taken at `position`; the next catch-up reads the events after it. */
  restore(position: number, payload: QuotaIndexPayload): void {
    if (this.position > 0 || this.leases.size > 0) throw new Error('a quota index is restored before it applies anything');
    for (const tracked of payload.leases) this.track(tracked.leaseId, tracked);
    for (const [projectId, months] of payload.spent) this.spent.set(projectId, new Map(months));
    for (const [projectId, quota] of payload.quotas) this.quotas.set(projectId, quota);
    this.position = position;
  }

  quota(projectId: string): Versioned<QuotaState> {
    return this.quotas.get(projectId) ?? { state: QUOTA_DECIDER.initialState(), revision: -1 };
  }

  /** What the project's leases hold (deleted ones only for the time they held), but `exceptLeaseId`'s. */
  holdings(projectId: string, exceptLeaseId: string | null = null): LeaseHolding[] {
    const held: LeaseHolding[] = [];
    for (const leaseId of this.byProject.get(projectId) ?? []) {
      const lease = this.leases.get(leaseId);
      if (lease !== undefined && leaseId !== exceptLeaseId) held.push(lease.holding);
    }
    for (const [month, amounts] of this.spent.get(projectId) ?? []) held.push(spentHolding(projectId, month, amounts));
    return held;
  }

  /**
   * Forgets the leases that ended before `cutoffMs`: what ended changes no more (an ended lease's
   * update is refused) and counts only in monthly hours, so a started one is kept as its hours per
   * month (one sum per project and month). Those hours are kept from the month `cutoffMs` lies in, or,
   * in a project with a lease running since an earlier month, from that month (a started lease that
   * grows counts the others' hours in every month it spans). A lease that never started stays while
   * it counts (its delete takes it out: it held nothing). A forgotten lease's later events find
   * nothing tracked and track nothing (only its creation starts it).
   */
  forgetLeasesEndedBefore(cutoffMs: number): void {
    for (const [projectId, leaseIds] of this.byProject) {
      const fromMonth = monthOf(this.countedFrom(leaseIds, cutoffMs));
      const spent: Spent = new Map([...(this.spent.get(projectId) ?? [])].filter(([month]) => month >= fromMonth));
      for (const leaseId of leaseIds) {
        const tracked = this.leases.get(leaseId)?.tracked;
        if (tracked !== undefined && (tracked.end >= cutoffMs || (!tracked.started && tracked.end > fromMonth))) continue;
        if (tracked?.started === true) addSpent(spent, tracked, fromMonth);
        leaseIds.delete(leaseId);
        this.leases.delete(leaseId);
      }
      if (spent.size > 0) this.spent.set(projectId, spent);
      else this.spent.delete(projectId);
      if (leaseIds.size === 0 && spent.size === 0) this.byProject.delete(projectId);
    }
  }

  /** From when a project's hours may still count: the cutoff, or the start of a lease running since before it. */
  private countedFrom(leaseIds: ReadonlySet<string>, cutoffMs: number): number {
    let from = cutoffMs;
    for (const leaseId of leaseIds) {
      const tracked = this.leases.get(leaseId)?.tracked;
      if (tracked !== undefined && tracked.end >= cutoffMs && tracked.start < from) from = tracked.start;
    }
    return from;
  }

  /** How many leases the index tracks (what memory grows with). */
  trackedLeases(): number {
    return this.leases.size;
  }

  /** Every project with a lease or quota settings. */
  projects(): string[] {
    return [...new Set([...this.byProject.keys(), ...this.quotas.keys()])];
  }

  private apply(event: RecordedEvent): void {
    if (event.position <= this.position) return;
    this.position = event.position;
    if (event.streamId.startsWith(`${QUOTA_CATEGORY}-`)) {
      const projectId = event.streamId.slice(QUOTA_CATEGORY.length + 1);
      const state = QUOTA_DECIDER.evolve(this.quota(projectId).state, event as unknown as QuotaEvent);
      this.quotas.set(projectId, { state, revision: event.revision });
    } else if (event.streamId.startsWith('lease-')) {
      this.applyLease(event.streamId.slice('lease-'.length), event as unknown as LeaseEvent);
    }
  }

  private applyLease(leaseId: string, event: LeaseEvent): void {
    const previous = this.leases.get(leaseId);
    const tracked = trackLease(reservationAmounts, previous?.tracked ?? null, event);
    // most of a lease's events (its effects, its phases) change nothing quotas count
    if (tracked === previous?.tracked) return;
    if (tracked === null) {
      if (previous !== undefined) this.byProject.get(previous.tracked.projectId)?.delete(leaseId);
      this.leases.delete(leaseId);
      return;
    }
    this.track(leaseId, tracked);
  }

  private track(leaseId: string, tracked: TrackedLease): void {
    this.leases.set(leaseId, { tracked, holding: trackedHolding(tracked) });
    let project = this.byProject.get(tracked.projectId);
    if (project === undefined) this.byProject.set(tracked.projectId, (project = new Set()));
    project.add(leaseId);
  }
}
