import { type DueAction, HOST_CATEGORY, type HostEvent, LEASE_CATEGORY, leaseStream, nextDueAction } from '#domain/index.js';
import { type LeaseReactionSource, type LeaseReactionView, leaseReactionView } from '#application/reactions/lease-reaction.view.js';
import { type EventStore, type RecordedEvent, streamCategory } from '#event-store/event-store.port.js';
import { reservedResources } from '#plugins/reservation-holdings.js';
import { type DueEntry, DueQueue } from './due-queue.js';

/** A live lease as the reactor sees it: what its reactions are decided on and keyed by. */
export type LeaseRecord = LeaseReactionView;

/** What a snapshot of the timeline holds: live leases only, and the ids of the latest finished ones. */
export interface TimelinePayload {
  readonly leases: readonly (readonly [string, LeaseRecord])[];
  readonly finished: readonly string[];
  readonly hostnames: readonly (readonly [string, string])[];
  /** Finished leases the reactor's reclamation watch still looks at (the timeline itself keeps none of them); absent in older snapshots. */
  readonly reclaiming?: readonly { readonly record: LeaseRecord; readonly leftovers: number }[];
}

/** Due time of a phase in progress: before any timer, so it also runs first on the resources it holds. */
const IN_PROGRESS_DUE_MS = 0;

/**
 * A phase begun (its begin event recorded) is work in progress, not a timer: it is owed now, even when
 * the wall clock has stepped back before the phase's date since. (An update keeps its date: at one
 * instant it must still wait for the ends that free what it takes.)
 */
const begun = (action: DueAction): boolean => action.step === 'complete' && action.phase !== 'update';

const leaseIdOf = (streamId: string): string => streamId.slice(LEASE_CATEGORY.length + 1);

const hostKey = (hostId: string): string => `host:${hostId}`;
const floatingIpKey = (floatingIpId: string): string => `floatingip:${floatingIpId}`;
/** Every resource a reservation holds, whatever its kind: a network segment's end must free it before the next lease's start. */
const resourceKey = ({ kind, id }: { readonly kind: string; readonly id: string }): string => `${kind}:${id}`;

const dueEntry = ({ state, releasing }: LeaseRecord): DueEntry | null => {
  const action = nextDueAction(state);
  if (action === null || state.status === 'Initial') return null;
  const resources = state.lease.reservations.flatMap((reservation) => reservedResources(reservation).map(resourceKey));
  const releases = Object.values(releasing).flatMap(({ hostIds, floatingIpIds }) => [
    ...hostIds.map(hostKey),
    ...floatingIpIds.map(floatingIpKey),
  ]);
  const instant = Date.parse(state.lease.endDate) <= Date.parse(state.lease.startDate);
  return { action, dueMs: begun(action) ? IN_PROGRESS_DUE_MS : Date.parse(action.dueAt), resources, releases, instant };
};

/**
 * How many finished leases the timeline remembers, the latest: a later event of one it forgot (a rename
 * or a delete long after its end) costs a read of its stream, which finds it finished again. Remembering
 * every lease ever finished would grow the reactor's memory with the ledger.
 */
export const FINISHED_REMEMBERED = 2_000;

/** An active lease the reconciler may check: its before-end action not running, no change owed to the cloud. */
export const isSettledActive = (record: LeaseRecord | undefined): record is LeaseRecord =>
  record !== undefined &&
  record.state.status === 'Active' &&
  record.state.lease.beforeEnd !== 'in_progress' &&
  Object.keys(record.state.lease.pendingUpdates).length === 0;

/**
 * The reactor's read model: every live lease folded with the lease decider, hypervisor hostnames from
 * host events, and the due queue derived from each lease's next action. Events are applied once each,
 * in revision order per stream, whether they come from the subscription, a refresh or our own appends.
 */
export class LeaseTimeline {
  readonly queue = new DueQueue();
  private readonly leases = new Map<string, LeaseRecord>();
  /** Leases with nothing left to do, the latest FINISHED_REMEMBERED in the order they finished; their later events are ignored. */
  private readonly finished = new Set<string>();
  private readonly hostnames = new Map<string, string>();

  constructor(
    private readonly store: EventStore,
    private readonly onChange: () => void,
    private readonly finishedRemembered = FINISHED_REMEMBERED,
    /** Told of every lease that finishes (the reclamation watch looks at ended ones). */
    private readonly onFinished: (record: LeaseRecord) => void = () => undefined,
  ) {}

  /** What it holds (for tests and diagnostics): live leases, and the finished ones it remembers. */
  sizes(): { readonly leases: number; readonly finished: number } {
    return { leases: this.leases.size, finished: this.finished.size };
  }

  capture(): TimelinePayload {
    return { leases: [...this.leases.entries()], finished: [...this.finished], hostnames: [...this.hostnames.entries()] };
  }

  /** Takes a snapshot's leases before anything is applied; their due actions are derived again. */
  restore(payload: TimelinePayload): void {
    if (this.leases.size > 0 || this.finished.size > 0) throw new Error('a timeline is restored before it applies anything');
    for (const [leaseId, record] of payload.leases) {
      this.leases.set(leaseId, record);
      this.queue.set(leaseId, dueEntry(record));
    }
    for (const leaseId of payload.finished) this.rememberFinished(leaseId);
    for (const [hostId, hostname] of payload.hostnames) this.hostnames.set(hostId, hostname);
  }

  get(leaseId: string): LeaseRecord | undefined {
    return this.leases.get(leaseId);
  }

  /** Active leases with nothing in progress or owed: what a reconciliation may check. */
  settledActiveLeases(): LeaseRecord[] {
    return [...this.leases.values()].filter(isSettledActive);
  }

  hostname(hostId: string): string | undefined {
    return this.hostnames.get(hostId);
  }

  /** Applies a batch from the subscription to the 'lease' and 'host' categories. */
  async ingest(events: readonly RecordedEvent[]): Promise<void> {
    let changed = false;
    for (const event of events) {
      const category = streamCategory(event.streamId);
      if (category === HOST_CATEGORY) this.applyHost(event);
      else if (category === LEASE_CATEGORY) changed = (await this.applyDelivered(leaseIdOf(event.streamId), event)) || changed;
    }
    if (changed) this.onChange();
  }

  /** Reads the lease's stream past the known revision (e.g. what this reactor just recorded); true when it found something new. */
  async refresh(leaseId: string): Promise<boolean> {
    if (this.finished.has(leaseId)) return false;
    const fromRevision = (this.leases.get(leaseId)?.revision ?? -1) + 1;
    const events = await this.store.readStream(leaseStream(leaseId), { fromRevision });
    const applied = events.filter((event) => this.applyNext(leaseId, event)).length;
    if (applied > 0) this.onChange();
    return applied > 0;
  }

  private async applyDelivered(leaseId: string, event: RecordedEvent): Promise<boolean> {
    if (this.finished.has(leaseId)) return false;
    const known = this.leases.get(leaseId)?.revision ?? -1;
    // a gap means events were skipped (a lease first seen mid-stream): read them from the stream
    if (event.revision > known + 1) return this.refresh(leaseId);
    return this.applyNext(leaseId, event);
  }

  private applyNext(leaseId: string, event: LeaseReactionSource): boolean {
    const previous = this.leases.get(leaseId) ?? leaseReactionView.initialState();
    if (this.finished.has(leaseId) || event.revision !== previous.revision + 1) return false;
    const record = leaseReactionView.evolve(previous, event);
    const entry = dueEntry(record);
    this.queue.set(leaseId, entry);
    if (entry === null && record.state.status !== 'Initial') {
      this.leases.delete(leaseId);
      this.rememberFinished(leaseId);
      this.onFinished(record);
      return true;
    }
    this.leases.set(leaseId, record);
    return true;
  }

  private rememberFinished(leaseId: string): void {
    this.finished.add(leaseId);
    if (this.finished.size <= this.finishedRemembered) return;
    const oldest = this.finished.values().next().value;
    if (oldest !== undefined) this.finished.delete(oldest);
  }

  private applyHost(event: RecordedEvent): void {
    const host = { type: event.type, data: event.data } as HostEvent;
    if (host.type === 'Host.Registered') this.hostnames.set(host.data.hostId, host.data.info.hypervisorHostname);
  }
}
