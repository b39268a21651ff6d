import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EventFilter, RecordedEvent, SubscribeOptions, Subscription } from './event-store.port.js';

export const DEFAULT_BATCH_SIZE = 500;

/** What a subscription needs from the store. */
export interface SubscriptionSource {
  headPosition(): Promise<number>;
  /** Changes whenever anything may have been committed, by this process or another (polled when idle). */
  changeToken(): Promise<number>;
  /** Events with from < position <= to matching the filter, ascending, at most `limit`. */
  readRange(from: number, to: number, limit: number, filter: EventFilter | undefined): Promise<RecordedEvent[]>;
}

/** A sleep that can be cut short. */
class Waker {
  private pending: (() => void) | null = null;

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(), ms);
      this.pending = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  wake(): void {
    const pending = this.pending;
    this.pending = null;
    pending?.();
  }
}

/** Lets stop() know it was called from inside onEvents, where awaiting the loop would deadlock. */
const delivering = new AsyncLocalStorage<PollingSubscription>();

/**
 * Catch-up-then-live subscription. Reads in batches from a cursor; when idle it polls the source's
 * change token (SQLite's PRAGMA data_version, PostgreSQL's head position) and is woken directly after
 * appends made through the same store, or announced by another process (PostgreSQL's NOTIFY).
 * Adapters hand out positions in commit order, so reading up to a head never skips an event.
 */
export class PollingSubscription implements Subscription {
  readonly caughtUp: Promise<void>;
  private readonly done: Promise<void>;
  private readonly waker = new Waker();
  private readonly batchSize: number;
  /** Everything at or below the cursor has been scanned (and delivered if it matched). */
  private cursor: number;
  private delivered = 0;
  private seenChangeToken = 0;
  private changed = true;
  private stopped = false;
  private isCaughtUp = false;
  private resolveCaughtUp: () => void = () => undefined;
  private rejectCaughtUp: (error: unknown) => void = () => undefined;

  constructor(
    private readonly source: SubscriptionSource,
    private readonly options: SubscribeOptions,
    private readonly pollIntervalMs: number,
    private readonly onFinished: (subscription: PollingSubscription) => void,
  ) {
    this.cursor = options.from;
    this.batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
    this.caughtUp = new Promise<void>((resolve, reject) => {
      this.resolveCaughtUp = resolve;
      this.rejectCaughtUp = reject;
    });
    // Callers that never await caughtUp must not see an unhandled rejection when it fails.
    this.caughtUp.catch(() => undefined);
    this.done = this.run();
  }

  lastPosition(): number {
    return this.delivered;
  }

  /** Signals that something new may have been committed. */
  notify(): void {
    this.changed = true;
    this.waker.wake();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.waker.wake();
    if (delivering.getStore() === this) return Promise.resolve();
    return this.done;
  }

  private async run(): Promise<void> {
    try {
      await yieldToEventLoop();
      const catchUpTarget = await this.source.headPosition();
      while (!this.stopped) {
        const full = await this.pollOnce();
        if (this.cursor >= catchUpTarget) this.markCaughtUp();
        if (full) await yieldToEventLoop();
        else await this.waitForChange();
      }
      this.rejectCaughtUp(new Error('Subscription stopped before catching up'));
    } catch (error) {
      this.fail(error);
    } finally {
      this.onFinished(this);
    }
  }

  /** Reads and delivers one batch; true when the batch was full (more may be waiting). */
  private async pollOnce(): Promise<boolean> {
    const { head, events } = await this.readBatch();
    const last = events.at(-1);
    const full = events.length === this.batchSize;
    if (last) await this.deliver(events, last.position);
    this.cursor = full && last ? last.position : head;
    return full;
  }

  /** Reads up to the head seen first, so a commit landing mid-read is picked up by the next poll rather than skipped. */
  private async readBatch(): Promise<{ readonly head: number; readonly events: RecordedEvent[] }> {
    this.changed = false;
    this.seenChangeToken = await this.source.changeToken();
    const head = await this.source.headPosition();
    return { head, events: await this.source.readRange(this.cursor, head, this.batchSize, this.options.filter) };
  }

  private async deliver(events: readonly RecordedEvent[], lastPosition: number): Promise<void> {
    await delivering.run(this, () => this.options.onEvents(events));
    this.delivered = lastPosition;
  }

  private async waitForChange(): Promise<void> {
    while (!this.stopped && !this.changed) {
      await this.waker.sleep(this.pollIntervalMs);
      if (!this.stopped && (await this.source.changeToken()) !== this.seenChangeToken) return;
    }
  }

  private markCaughtUp(): void {
    if (this.isCaughtUp) return;
    this.isCaughtUp = true;
    this.resolveCaughtUp();
  }

  private fail(error: unknown): void {
    this.stopped = true;
    this.rejectCaughtUp(error);
    try {
      this.options.onError?.(error);
    } catch {
      // An error handler that throws has nowhere left to report to; swallowing keeps run() from rejecting.
    }
  }
}

/** A store's live subscriptions: opened, woken after its own appends, and all stopped when it closes. */
export class Subscriptions {
  private readonly open = new Set<PollingSubscription>();
  private closed = false;

  constructor(
    private readonly source: SubscriptionSource,
    private readonly pollIntervalMs: number,
  ) {}

  subscribe(options: SubscribeOptions): Subscription {
    if (this.closed) throw new Error('Event store is closed');
    const subscription = new PollingSubscription(this.source, options, this.pollIntervalMs, (finished) => this.open.delete(finished));
    this.open.add(subscription);
    return subscription;
  }

  notify(): void {
    for (const subscription of this.open) subscription.notify();
  }

  /** False when already closed: the store then has nothing more to release. */
  async close(): Promise<boolean> {
    if (this.closed) return false;
    this.closed = true;
    await Promise.all([...this.open].map((subscription) => subscription.stop()));
    return true;
  }
}
