import { describeError } from '#domain/index.js';
import type { EventStore, RecordedEvent, Subscription } from '#event-store/event-store.port.js';
import type { Caller } from '../caller.js';
import { EVENT_CATALOGUE, type InternalEventType } from '../history/event-catalogue.js';
import { type HistoryEntry, historyEntry, isCatalogued } from '../history/history-entry.js';
import { feedVisibility, historyLeaseOf, ownerOfEvent } from './feed-scope.js';
import type { LeaseOwners } from './lease-owners.js';

/**
 * What a live reader follows: one lease's history as HistoryQueries.lease shows it (to a caller it
 * already authorized), or the feed as EventFeed shows it to a caller.
 */
export type LiveSubject = { readonly kind: 'lease'; readonly leaseId: string } | { readonly kind: 'feed'; readonly caller: Caller };

export interface LiveInterest {
  readonly subject: LiveSubject;
  /** Public types to keep (docs/events.md), or null for every type. */
  readonly types: ReadonlySet<string> | null;
}

/** What a reader that fell too far behind gets instead of entries: it reads what it missed from the log. */
export const BEHIND = Symbol('behind');

type Catalogued = RecordedEvent & { readonly type: InternalEventType };

/**
 * One reader's entries, queued by the LiveLog as events are appended, taken by its consumer. The queue
 * is bounded: a consumer that does not keep up is told it fell behind, rather than holding memory.
 */
export class LiveReader {
  private queued: HistoryEntry[] = [];
  private behind = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private leaving: Promise<void> | null = null;

  constructor(
    private readonly maxQueued: number,
    private readonly onLeave: () => Promise<void>,
  ) {}

  /** The entries queued since the last call (waiting for one), BEHIND after an overflow, or [] once `signal` aborts. */
  async next(signal: AbortSignal): Promise<readonly HistoryEntry[] | typeof BEHIND> {
    while (this.queued.length === 0 && !this.behind && this.failure === null && !signal.aborted) await this.waitForMore(signal);
    if (this.failure !== null) throw this.failure;
    if (this.behind) return BEHIND;
    const entries = this.queued;
    this.queued = [];
    return entries;
  }

  /** Stops listening (once, however often it is called). */
  leave(): Promise<void> {
    return (this.leaving ??= this.onLeave());
  }

  /** The LiveLog's: one more entry for this reader. */
  offer(entry: HistoryEntry): void {
    if (this.behind) return;
    if (this.queued.length < this.maxQueued) this.queued.push(entry);
    else {
      this.behind = true;
      this.queued = [];
    }
    this.wake?.();
  }

  /** The LiveLog's: watching the log failed; waiting would never end. */
  fail(error: Error): void {
    this.failure = error;
    this.wake?.();
  }

  private waitForMore(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.wake = null;
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

interface Listener {
  readonly reader: LiveReader;
  readonly accepts: (event: Catalogued) => boolean;
}

/**
 * The live log of the process: one store subscription (it runs only while someone listens) whose
 * batches are read once, each event's history entry built once and handed to the readers of its
 * subject only (its lease's, its lease's project's, the admins'). N readers of one busy lease cost
 * the log one read per batch, not one per reader, and none of them reads the lease's history again.
 */
export class LiveLog {
  private holders = 0;
  private subscription: Promise<Subscription | null> | null = null;
  /** Why watching stopped, until the next start: waiting would never end. */
  private failure: Error | null = null;
  private readonly byLease = new Map<string, Set<Listener>>();
  private readonly byProject = new Map<string, Set<Listener>>();
  private readonly everything = new Set<Listener>();

  /** `maxQueued`: the entries a reader may have waiting before it is told it fell behind. */
  constructor(
    private readonly store: EventStore,
    private readonly owners: LeaseOwners,
    private readonly maxQueued: number,
  ) {}

  /**
   * Starts listening for `interest` (and watching the log, if nobody was); the reader's `leave` ends it.
   * It resolves once the log is watched: every event appended after that reaches the reader, so a
   * catch-up read from the log after joining misses nothing.
   */
  async join(interest: LiveInterest): Promise<LiveReader> {
    this.hold();
    await this.subscription;
    if (this.failure !== null) {
      const failure = this.failure;
      await this.release();
      throw failure;
    }
    const listeners = this.listenersOf(interest.subject);
    const listener: Listener = {
      reader: new LiveReader(this.maxQueued, async () => {
        listeners.delete(listener);
        this.forgetEmpty(interest.subject);
        await this.release();
      }),
      accepts: this.acceptance(interest),
    };
    listeners.add(listener);
    return listener.reader;
  }

  private hold(): void {
    this.holders += 1;
    if (this.holders === 1) this.subscription = this.watch();
  }

  private async release(): Promise<void> {
    this.holders -= 1;
    if (this.holders > 0 || this.subscription === null) return;
    const subscription = this.subscription;
    this.subscription = null;
    await (await subscription)?.stop();
  }

  private async watch(): Promise<Subscription | null> {
    this.failure = null;
    try {
      const from = await this.store.headPosition();
      return this.store.subscribeToAll({ from, onEvents: (events) => this.dispatch(events), onError: (error) => this.fail(error) });
    } catch (error) {
      this.fail(error);
      return null;
    }
  }

  private async dispatch(events: readonly RecordedEvent[]): Promise<void> {
    const last = events.at(-1)?.position;
    if (last === undefined) return;
    // the owners of the leases and reservations these events name, read once for every reader
    await this.owners.advanceTo(last);
    for (const event of events) if (isCatalogued(event.type)) this.route({ ...event, type: event.type });
  }

  private route(event: Catalogued): void {
    let entry: HistoryEntry | undefined;
    for (const listeners of [this.everything, this.leaseListeners(event), this.projectListeners(event)]) {
      for (const listener of listeners) if (listener.accepts(event)) listener.reader.offer((entry ??= historyEntry(event)));
    }
  }

  private leaseListeners(event: Catalogued): ReadonlySet<Listener> {
    if (this.byLease.size === 0) return NONE;
    const leaseId = historyLeaseOf(event, this.owners);
    return (leaseId === undefined ? undefined : this.byLease.get(leaseId)) ?? NONE;
  }

  private projectListeners(event: Catalogued): ReadonlySet<Listener> {
    if (this.byProject.size === 0) return NONE;
    const owner = ownerOfEvent(event, this.owners);
    return (owner === undefined ? undefined : this.byProject.get(owner.projectId)) ?? NONE;
  }

  private listenersOf(subject: LiveSubject): Set<Listener> {
    if (subject.kind === 'feed' && subject.caller.isAdmin) return this.everything;
    const [index, key] = subject.kind === 'lease' ? [this.byLease, subject.leaseId] : [this.byProject, subject.caller.projectId];
    let listeners = index.get(key);
    if (listeners === undefined) index.set(key, (listeners = new Set()));
    return listeners;
  }

  private forgetEmpty(subject: LiveSubject): void {
    if (subject.kind === 'lease' && this.byLease.get(subject.leaseId)?.size === 0) this.byLease.delete(subject.leaseId);
    if (subject.kind === 'feed' && this.byProject.get(subject.caller.projectId)?.size === 0)
      this.byProject.delete(subject.caller.projectId);
  }

  /** The reader's types, and for the feed what the caller may see (EventFeed's rule); a lease's reader was authorized as it joined. */
  private acceptance({ subject, types }: LiveInterest): (event: Catalogued) => boolean {
    const visible = subject.kind === 'feed' ? feedVisibility(subject.caller, this.owners) : () => true;
    return (event) => (types === null || types.has(EVENT_CATALOGUE[event.type].publicType)) && visible(event);
  }

  private fail(error: unknown): void {
    const failure = error instanceof Error ? error : new Error(describeError(error));
    this.failure = failure;
    for (const listeners of [this.everything, ...this.byLease.values(), ...this.byProject.values()])
      for (const listener of listeners) listener.reader.fail(failure);
  }
}

const NONE: ReadonlySet<Listener> = new Set();
