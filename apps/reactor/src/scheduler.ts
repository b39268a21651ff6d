import type { DueAction } from '#domain/index.js';
import type { DueEntry, DueQueue } from './due-queue.js';
import { describeError } from '#domain/index.js';

export type ReactorLogEntry = Readonly<{ event: string; [detail: string]: unknown }>;

export interface SchedulerOptions {
  readonly queue: DueQueue;
  readonly clock: () => Date;
  /** Runs one action and resolves with a result to log; rejects on a transient failure, retried with backoff. */
  readonly run: (action: DueAction) => Promise<string>;
  readonly log: (entry: ReactorLogEntry) => void;
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** Milliseconds on a clock that never steps (default performance.now): retry delays are measured on it. */
  readonly monotonic?: () => number;
  /** Most actions in flight at once (catching up after downtime must not flood the cloud). */
  readonly concurrency?: number;
}

interface Backoff {
  readonly phase: DueAction['phase'];
  readonly attempt: number;
  /** On the monotonic clock: a wall-clock step back must not hold a retry back by the size of the step. */
  readonly notBefore: number;
}

/**
 * Longest sleep before the wall clock is looked at again: timers run on the monotonic clock, which
 * stands still while a VM is suspended and ignores clock steps, so a longer sleep would notice a
 * step forward (NTP, a resumed VM) that late, and run the actions it made due that late.
 */
const MAX_SLEEP_MS = 1_000;

/**
 * Sleeps until the earliest due action and runs it; any change of the queue wakes it. Actions of one
 * lease run one at a time; actions touching one resource (a host, a floating IP) run in due order (an
 * ending lease frees a host before the next lease's start takes it, and a lease waiting on a retry
 * keeps its resources), except that what a lease's owed work still gives up is taken by no other lease
 * before that work has run, whatever their order; actions on different resources run concurrently, so
 * one lease's retries never delay another's.
 */
export class Scheduler {
  private readonly inFlight = new Map<string, { readonly resources: readonly string[]; readonly done: Promise<void> }>();
  private readonly backoff = new Map<string, Backoff>();
  private timer: NodeJS.Timeout | null = null;
  private wakeQueued = false;
  private running = false;

  constructor(private readonly options: SchedulerOptions) {}

  start(): void {
    this.running = true;
    this.tick();
  }

  /** Stops dispatching and waits for the actions in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.disarm();
    await Promise.allSettled([...this.inFlight.values()].map((flight) => flight.done));
  }

  /**
   * Runs `work` on a lease the way one of its actions runs: never beside another action of that lease,
   * and holding the lease's resources against other leases' actions meanwhile (e.g. a reconciliation's
   * converge, which must not put back what the lease's end is releasing). Resolves null without running
   * it while the lease has an action in flight or due, or another action holds one of its resources:
   * that action goes first, and the caller tries again later.
   */
  async exclusive<T>(leaseId: string, work: () => Promise<T>): Promise<T | null> {
    const entry = this.options.queue.get(leaseId);
    const resources = entry === undefined ? [] : [...entry.resources, ...entry.releases];
    const held = this.heldInFlight();
    if (
      this.inFlight.has(leaseId) ||
      (entry !== undefined && entry.dueMs <= this.options.clock().getTime()) ||
      resources.some((resource) => held.has(resource))
    )
      return null;
    return this.track(leaseId, resources, work());
  }

  /** What the actions in flight hold. */
  private heldInFlight(): Set<string> {
    return new Set([...this.inFlight.values()].flatMap((flight) => flight.resources));
  }

  /** The lease is in flight, holding `resources`, until `work` settles; then the next pass may run what waited. */
  private track<T>(leaseId: string, resources: readonly string[], work: Promise<T>): Promise<T> {
    const settled = work.finally(() => {
      this.inFlight.delete(leaseId);
      this.wake();
    });
    this.inFlight.set(leaseId, {
      resources,
      done: settled.then(
        () => undefined,
        () => undefined,
      ),
    });
    return settled;
  }

  /** The queue changed: re-evaluate soon (coalesced, so a batch of events costs one pass). */
  wake(): void {
    if (!this.running || this.wakeQueued) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.tick();
    });
  }

  private tick(): void {
    if (!this.running) return;
    const now = this.options.clock().getTime();
    const steady = this.steadyNow();
    this.forgetStaleBackoff();
    const held = this.heldInFlight();
    let nextRetryIn = Number.POSITIVE_INFINITY;
    for (const entry of this.options.queue.dueBy(now)) {
      // nothing more can start before an action ends, and its end wakes the next pass
      if (this.inFlight.size >= this.concurrency) break;
      const notBefore = this.notBefore(entry);
      if (notBefore > steady) nextRetryIn = Math.min(nextRetryIn, notBefore - steady);
      else if (this.canRun(entry, held)) this.dispatch(entry, now);
      for (const resource of this.holds(entry)) held.add(resource);
    }
    const nextDue = this.options.queue.nextAfter(now);
    this.arm(Math.min(nextRetryIn, nextDue === null ? Number.POSITIVE_INFINITY : nextDue - now));
  }

  /** A lease whose failed phase is no longer due (done by another reactor, deleted, rescheduled) starts its next one afresh. */
  private forgetStaleBackoff(): void {
    for (const [leaseId, { phase }] of this.backoff)
      if (this.options.queue.get(leaseId)?.action.phase !== phase) this.backoff.delete(leaseId);
  }

  private steadyNow(): number {
    return (this.options.monotonic ?? (() => performance.now()))();
  }

  private get concurrency(): number {
    return this.options.concurrency ?? 16;
  }

  private canRun(entry: DueEntry, held: ReadonlySet<string>): boolean {
    return !this.inFlight.has(entry.action.leaseId) && this.mayRelease(entry, held) && this.mayTake(entry, held);
  }

  /** What the entry gives up is held by no earlier action. */
  private mayRelease(entry: DueEntry, held: ReadonlySet<string>): boolean {
    return !entry.releases.some((resource) => held.has(resource));
  }

  /** What the entry holds is held by no earlier action, and no other lease still owes giving it up. */
  private mayTake(entry: DueEntry, held: ReadonlySet<string>): boolean {
    return !entry.resources.some((resource) => held.has(resource) || this.releasedByAnother(entry, resource));
  }

  /**
   * What an entry holds against the entries after it: what it gives up, and what it holds unless
   * another lease still gives that up (that lease's work goes first, even when it is due later).
   */
  private holds(entry: DueEntry): string[] {
    return [...entry.releases, ...entry.resources.filter((resource) => !this.releasedByAnother(entry, resource))];
  }

  private releasedByAnother(entry: DueEntry, resource: string): boolean {
    return this.options.queue.releasedByAnother(resource, entry.action.leaseId);
  }

  private notBefore(entry: DueEntry): number {
    const backoff = this.backoff.get(entry.action.leaseId);
    return backoff !== undefined && backoff.phase === entry.action.phase ? backoff.notBefore : 0;
  }

  private dispatch(entry: DueEntry, now: number): void {
    const { action } = entry;
    const attempt = (this.backoff.get(action.leaseId)?.attempt ?? 0) + 1;
    const { leaseId, phase, step, dueAt } = action;
    this.options.log({ event: 'action', leaseId, phase, step, due: dueAt, latenessMs: now - Date.parse(dueAt), attempt });
    const started = this.options.clock().getTime();
    const outcome = this.options.run(action).then(
      (result) => {
        this.backoff.delete(leaseId);
        this.options.log({ event: 'done', leaseId, phase, step, result, durationMs: this.options.clock().getTime() - started });
      },
      (error: unknown) => this.failed(action, error),
    );
    void this.track(leaseId, [...entry.resources, ...entry.releases], outcome);
  }

  private failed(action: DueAction, error: unknown): void {
    const previous = this.backoff.get(action.leaseId);
    const attempt = previous?.phase === action.phase ? previous.attempt + 1 : 1;
    const delay = Math.min((this.options.retryBaseMs ?? 1_000) * 2 ** (attempt - 1), this.options.retryMaxMs ?? 30_000);
    this.backoff.set(action.leaseId, { phase: action.phase, attempt, notBefore: this.steadyNow() + delay });
    const { leaseId, phase, step } = action;
    this.options.log({ event: 'retry', leaseId, phase, step, attempt, inMs: delay, error: describeError(error) });
  }

  private arm(inMs: number): void {
    this.disarm();
    if (!Number.isFinite(inMs)) return;
    const delay = Math.min(Math.max(0, inMs), MAX_SLEEP_MS);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.tick();
    }, delay);
  }

  private disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
