import type { DueAction, EffectPhase } from '#domain/index.js';

export interface DueEntry {
  readonly action: DueAction;
  readonly dueMs: number;
  /** Keys of the cloud resources the lease holds (`host:<id>`, `floatingip:<id>`): actions touching one run in due order. */
  readonly resources: readonly string[];
  /**
   * Keys of what the lease's owed work still gives up in the cloud though the ledger freed it (what a
   * change took from an active reservation): no other lease's action takes one before this lease's
   * action has run, whatever their order.
   */
  readonly releases: readonly string[];
  /** The lease ends the instant it starts (its end was moved onto its start): it holds its resources for no time at all. */
  readonly instant: boolean;
}

/**
 * Upstream runs before-end and end events before start events of the same instant, so back-to-back
 * leases work; an active reservation's update takes resources too, so it also waits for the ends.
 * Of the starts of one instant, a lease that ends at that instant goes first: its end (due then too,
 * once it has started) then comes before the other starts, so it hands over what it took at once
 * (the calendar lets another lease book its resources from that instant).
 */
const RANK: Readonly<Record<EffectPhase, number>> = { before_end: 0, end: 1, update: 2, start: 3 };

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const compare = (a: DueEntry, b: DueEntry): number =>
  a.dueMs - b.dueMs ||
  RANK[a.action.phase] - RANK[b.action.phase] ||
  Number(b.instant) - Number(a.instant) ||
  byId(a.action.leaseId, b.action.leaseId);

const sameEntry = (a: DueEntry, b: DueEntry): boolean =>
  a.dueMs === b.dueMs &&
  a.action.phase === b.action.phase &&
  a.action.step === b.action.step &&
  a.instant === b.instant &&
  a.resources.join() === b.resources.join() &&
  a.releases.join() === b.releases.join();

/** Each lease's next action, kept sorted by due time (then phase rank, then lease id). */
export class DueQueue {
  private readonly entries: DueEntry[] = [];
  private readonly byLease = new Map<string, DueEntry>();
  /** Resource key -> the leases whose entries give it up. */
  private readonly releasers = new Map<string, Set<string>>();

  /** Replaces the lease's entry (null removes it); false when nothing changed. */
  set(leaseId: string, entry: DueEntry | null): boolean {
    const current = this.byLease.get(leaseId);
    if (current !== undefined && entry !== null && sameEntry(current, entry)) return false;
    if (current === undefined && entry === null) return false;
    if (current !== undefined) {
      this.entries.splice(this.indexOf(current), 1);
      this.indexReleases(leaseId, current, -1);
    }
    if (entry === null) {
      this.byLease.delete(leaseId);
    } else {
      this.byLease.set(leaseId, entry);
      this.entries.splice(
        this.lowerBound((other) => compare(other, entry) < 0),
        0,
        entry,
      );
      this.indexReleases(leaseId, entry, 1);
    }
    return true;
  }

  /** True when a lease other than `leaseId` still gives up `resource` (see DueEntry.releases), due or not. */
  releasedByAnother(resource: string, leaseId: string): boolean {
    const leases = this.releasers.get(resource);
    return leases !== undefined && (leases.size > 1 || !leases.has(leaseId));
  }

  get(leaseId: string): DueEntry | undefined {
    return this.byLease.get(leaseId);
  }

  get size(): number {
    return this.entries.length;
  }

  /** Entries due at or before `nowMs`, in execution order. */
  dueBy(nowMs: number): readonly DueEntry[] {
    return this.entries.slice(
      0,
      this.lowerBound((entry) => entry.dueMs <= nowMs),
    );
  }

  /** The earliest due time after `nowMs`, or null. */
  nextAfter(nowMs: number): number | null {
    return this.entries[this.lowerBound((entry) => entry.dueMs <= nowMs)]?.dueMs ?? null;
  }

  private indexReleases(leaseId: string, entry: DueEntry, change: 1 | -1): void {
    for (const resource of entry.releases) {
      const leases = this.releasers.get(resource) ?? new Set<string>();
      if (change === 1) leases.add(leaseId);
      else leases.delete(leaseId);
      if (leases.size === 0) this.releasers.delete(resource);
      else this.releasers.set(resource, leases);
    }
  }

  private indexOf(entry: DueEntry): number {
    const index = this.lowerBound((other) => compare(other, entry) < 0);
    if (this.entries[index] !== entry) throw new Error(`DueQueue out of order for lease ${entry.action.leaseId}`);
    return index;
  }

  /** First index where `before` turns false; `before` must hold for a prefix of the sorted entries. */
  private lowerBound(before: (entry: DueEntry) => boolean): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (before(this.entries[mid] as DueEntry)) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
