import type { EventStore, RecordedEvent, Subscription } from '#event-store/event-store.port.js';
import { type PublicEvent, publicEventOf } from '#application/outbound/public-event.js';
import { describeError } from '#domain/index.js';
import type { OutboundChannel } from './channel.js';
import type { ChannelCheckpoints } from './channel-checkpoints.js';

export type ChannelLogEntry = Readonly<{ event: 'start' | 'error' | 'recovered' | 'stop'; channel: string; [detail: string]: unknown }>;

export interface ChannelRunnerOptions {
  readonly store: EventStore;
  readonly channel: OutboundChannel;
  readonly checkpoints: ChannelCheckpoints;
  /** Max events per publish (default 500). */
  readonly batchSize?: number;
  /** A failed publish is tried again after this, doubling up to `maxRetryDelayMs` while it keeps failing. */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  readonly log?: (entry: ChannelLogEntry) => void;
  readonly clock?: () => Date;
}

/** Where a channel stands, as /readyz shows it. */
export interface ChannelStatus {
  readonly channel: string;
  readonly running: boolean;
  /** Every event at or below it was acknowledged by the channel. */
  readonly position: number;
  readonly head: number;
  readonly lag: { readonly positions: number; readonly seconds: number };
  readonly published: number;
  readonly lastPublishedAt: string | null;
  /** The failure the channel is retrying now, or null once a publish went through. */
  readonly failing: Failure | null;
  /** The most recent failure, kept after recovery for the operator. */
  readonly lastFailure: Failure | null;
}

interface Failure {
  readonly error: string;
  readonly since: string;
  readonly at: string;
  readonly attempts: number;
  readonly position: number;
}

class StoppedError extends Error {
  constructor() {
    super('channel runner stopped');
  }
}

/**
 * Sends every public event of the log to one channel, in log order, at least once. It reads from the
 * channel's own checkpoint, publishes a batch, and saves the checkpoint only after the channel
 * acknowledged it: a crash anywhere repeats at most the batch in flight and never skips one. A channel
 * that fails holds the batch and retries it with backoff, reading nothing further meanwhile; nothing
 * else waits for it (it runs in the publisher's own process and only reads the log).
 */
export class ChannelRunner {
  private readonly name: string;
  private readonly clock: () => Date;
  private subscription: Subscription | null = null;
  private resubscribeTimer: NodeJS.Timeout | null = null;
  private wakeRetry: (() => void) | null = null;
  private running = false;
  private position = 0;
  private published = 0;
  private lastPublishedAt: string | null = null;
  private failing: Failure | null = null;
  private lastFailure: Failure | null = null;

  constructor(private readonly options: ChannelRunnerOptions) {
    this.name = options.channel.name;
    this.clock = options.clock ?? (() => new Date());
  }

  start(): void {
    if (this.running) return;
    this.position = this.options.checkpoints.position(this.name);
    this.running = true;
    this.log({ event: 'start', from: this.position });
    this.subscribe();
  }

  /** Stops after the batch in flight (its retry wait cut short); its checkpoint stays where it was acknowledged. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.resubscribeTimer !== null) clearTimeout(this.resubscribeTimer);
    this.resubscribeTimer = null;
    this.wakeRetry?.();
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
    this.log({ event: 'stop', position: this.position });
  }

  async status(): Promise<ChannelStatus> {
    const head = await this.options.store.headPosition();
    const [next] = await this.options.store.readAll({ from: this.position, limit: 1 });
    const seconds = next === undefined ? 0 : Math.max(0, (this.clock().getTime() - Date.parse(next.recordedAt)) / 1000);
    return {
      channel: this.name,
      running: this.running,
      position: this.position,
      head,
      lag: { positions: Math.max(0, head - this.position), seconds: Math.round(seconds * 1000) / 1000 },
      published: this.published,
      lastPublishedAt: this.lastPublishedAt,
      failing: this.failing,
      lastFailure: this.lastFailure,
    };
  }

  private subscribe(): void {
    this.subscription = this.options.store.subscribeToAll({
      from: this.position,
      batchSize: this.options.batchSize ?? 500,
      onEvents: (events) => this.deliver(events),
      onError: (error) => this.onSubscriptionError(error),
    });
  }

  private async deliver(events: readonly RecordedEvent[]): Promise<void> {
    const last = events.at(-1);
    if (last === undefined) return;
    const publics = events.map(publicEventOf).filter((event): event is PublicEvent => event !== null);
    if (publics.length > 0) await this.publishUntilAcknowledged(publics, events[0]?.position ?? last.position);
    this.options.checkpoints.save(this.name, last.position, this.clock().toISOString());
    this.position = last.position;
    this.published += publics.length;
    if (publics.length > 0) this.lastPublishedAt = this.clock().toISOString();
    if (this.failing !== null) this.log({ event: 'recovered', position: this.position, attempts: this.failing.attempts });
    this.failing = null;
  }

  private async publishUntilAcknowledged(events: readonly PublicEvent[], firstPosition: number): Promise<void> {
    let delay = this.options.retryDelayMs ?? 1_000;
    for (;;) {
      if (!this.running) throw new StoppedError();
      try {
        await this.options.channel.publish(events);
        return;
      } catch (error) {
        this.recordFailure(error, firstPosition, delay);
      }
      await this.pause(delay);
      delay = Math.min(delay * 2, this.options.maxRetryDelayMs ?? 30_000);
    }
  }

  private recordFailure(error: unknown, position: number, retryInMs: number, phase = 'publish'): void {
    const at = this.clock().toISOString();
    const attempts = (this.failing?.attempts ?? 0) + 1;
    this.failing = { error: describeError(error), since: this.failing?.since ?? at, at, attempts, position };
    this.lastFailure = this.failing;
    this.log({ event: 'error', phase, position, attempts, retryInMs, error: this.failing.error });
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeRetry = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeRetry = done;
    });
  }

  /**
   * The log could not be read or an event not mapped (the runner stopping mid-batch aside): shown as the
   * channel's failure, and tried again from the checkpoint, since skipping it would lose an event.
   */
  private onSubscriptionError(error: unknown): void {
    this.subscription = null;
    if (!this.running || error instanceof StoppedError) return;
    this.recordFailure(error, this.position + 1, this.options.retryDelayMs ?? 1_000, 'read');
    this.resubscribeTimer = setTimeout(() => {
      this.resubscribeTimer = null;
      if (this.running) this.subscribe();
    }, this.options.retryDelayMs ?? 1_000);
  }

  private log(entry: Omit<ChannelLogEntry, 'channel'>): void {
    this.options.log?.({ channel: this.name, ...entry } as ChannelLogEntry);
  }
}
