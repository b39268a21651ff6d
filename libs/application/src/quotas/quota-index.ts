import {
  type LeaseEvent,
  type LeaseHolding,
  QUOTA_CATEGORY,
  type QuotaEvent,
  type QuotaState,
  type TrackedLease,
  quotaDecider,
  trackLease,
  monthsOf,
  trackedHolding,
} from '#domain/index.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { AsyncMutex } from '../write-model/async-mutex.js';
import type { Versioned } from '../write-model/write-index.js';

const CATEGORIES = ['lease', QUOTA_CATEGORY];
const PAGE = 5000;

/** What a snapshot of the index holds: every lease it tracks and every project's quota stream. */
export interface QuotaIndexPayload {
  readonly leases: readonly TrackedLease[];
  readonly quotas: readonly (readonly [string, Versioned<QuotaState>])[];
}

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
    return { position: this.position, payload: { leases: [...this.leases.values()].map((held) => held.tracked), quotas: [...this.quotas.entries()] } };
  }

  /** The index from a snapshot taken at `position`; the next catch-up reads the events after it. */
  restore(position: number, payload: QuotaIndexPayload): void {
    if (this.position > 0 || this.leases.size > 0) throw new Error('a quota index is restored before it applies anything');
    for (const tracked of payload.leases) this.track(tracked.leaseId, tracked);
    for (const [projectId, quota] of payload.quotas) this.quotas.set(projectId, quota);
    this.position = position;
  }

  quota(projectId: string): Versioned<QuotaState> {
    return this.quotas.get(projectId) ?? { state: quotaDecider.initialState(), revision: -1 };
  }

  /** What the project's leases hold (deleted ones only for the time they held), but `exceptLeaseId`'s. */
  holdings(projectId: string, exceptLeaseId: string | null = null): LeaseHolding[] {
    const held: LeaseHolding[] = [];
    for (const leaseId of this.byProject.get(projectId) ?? []) {
      const lease = this.leases.get(leaseId);
      if (lease !== undefined && leaseId !== exceptLeaseId) held.push(lease.holding);
    }
    return held;
  }

  /**
   * Drops the leases no decision or use can count any more: those ended before the month `cutoffMs`
   * lies in, or, in a project with a lease running since an earlier month, before that month (a
   * started lease that grows counts the others' hours in every month it spans). What ended before
   * `cutoffMs` changes no more (an ended lease's update is refused), and a lease's later events find
   * nothing tracked and track nothing (only its creation starts it).
   */
  forgetLeasesEndedBefore(cutoffMs: number): void {
    for (const [projectId, leaseIds] of this.byProject) {
      let from = cutoffMs;
      for (const leaseId of leaseIds) {
        const tracked = this.leases.get(leaseId)?.tracked;
        if (tracked !== undefined && tracked.end >= cutoffMs && tracked.start < from) from = tracked.start;
      }
      const [month] = monthsOf({ start: from, end: from + 1 });
      const monthStart = month?.start ?? from;
      for (const leaseId of leaseIds) {
        const tracked = this.leases.get(leaseId)?.tracked;
        if (tracked !== undefined && tracked.end > monthStart) continue;
        leaseIds.delete(leaseId);
        this.leases.delete(leaseId);
      }
      if (leaseIds.size === 0) this.byProject.delete(projectId);
    }
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
      const state = quotaDecider.evolve(this.quota(projectId).state, event as unknown as QuotaEvent);
      this.quotas.set(projectId, { state, revision: event.revision });
    } else if (event.streamId.startsWith('lease-')) {
      this.applyLease(event.streamId.slice('lease-'.length), event as unknown as LeaseEvent);
    }
  }

  private applyLease(leaseId: string, event: LeaseEvent): void {
    const previous = this.leases.get(leaseId);
    const tracked = trackLease(previous?.tracked ?? null, event);
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
