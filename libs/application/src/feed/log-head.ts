import { describeError } from '#domain/index.js';
import type { EventStore, Subscription } from '#event-store/event-store.port.js';

interface Waiter {
  readonly after: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Tells live readers that the log has grown past their position. One store subscription per process
 * serves them all (the store notices commits of the other processes cheaply, and this process's own
 * at once); it runs only while someone holds it, so an idle API keeps no timer for the feed.
 */
export class LogHead {
  private head = 0;
  private holders = 0;
  private subscription: Promise<Subscription | null> | null = null;
  /** Why watching stopped, until the next start: waiting would never end. */
  private failure: Error | null = null;
  private readonly waiters = new Set<Waiter>();

  constructor(private readonly store: EventStore) {}

  /** Starts watching (if nobody was); pair each call with `release`. */
  hold(): void {
    this.holders += 1;
    if (this.holders === 1) this.subscription = this.watch();
  }

  /** Stops watching once nobody holds it; resolves when the subscription has stopped. */
  async release(): Promise<void> {
    this.holders -= 1;
    if (this.holders > 0 || this.subscription === null) return;
    const subscription = this.subscription;
    this.subscription = null;
    await (await subscription)?.stop();
  }

  /** Resolves once the log holds an event past `after`; rejects if watching fails. Held callers only. */
  waitPast(after: number, signal: AbortSignal): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.head > after || signal.aborted) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { after, resolve: () => done(resolve), reject: (error) => done(() => reject(error)) };
      const done = (settle: () => void): void => {
        this.waiters.delete(waiter);
        signal.removeEventListener('abort', waiter.resolve);
        settle();
      };
      this.waiters.add(waiter);
      signal.addEventListener('abort', waiter.resolve, { once: true });
    });
  }

  private async watch(): Promise<Subscription | null> {
    this.failure = null;
    try {
      const from = await this.store.headPosition();
      this.advance(from);
      return this.store.subscribeToAll({
        from,
        onEvents: (events) => {
          this.advance(events.at(-1)?.position ?? from);
          return Promise.resolve();
        },
        onError: (error) => this.fail(error),
      });
    } catch (error) {
      this.fail(error);
      return null;
    }
  }

  private advance(position: number): void {
    if (position > this.head) this.head = position;
    for (const waiter of this.waiters) if (this.head > waiter.after) waiter.resolve();
  }

  private fail(error: unknown): void {
    const failure = error instanceof Error ? error : new Error(describeError(error));
    this.failure = failure;
    for (const waiter of this.waiters) waiter.reject(failure);
  }
}
