import { type Channel, type ChannelModel, type ConsumeMessage, connect } from 'amqplib';
import type { ReactorLogEntry } from '../scheduler.js';
import { describeError } from '#domain/index.js';

export interface NovaNotificationsConsumerOptions {
  /** amqp://user:pass@host:port/vhost; oslo.messaging's rabbit:// transport URLs are accepted too. */
  readonly url: string;
  readonly exchange?: string;
  /** Leasehold's own durable queue: oslo.messaging's `versioned_notifications.info` queue belongs to nobody. */
  readonly queue?: string;
  readonly routingKeys?: readonly string[];
  /** Unacknowledged messages held at once. */
  readonly prefetch?: number;
  /** Resolves once the message is in the ledger (or means nothing); rejects on a failure worth retrying. */
  readonly handle: (body: Buffer) => Promise<unknown>;
  readonly log: (entry: ReactorLogEntry) => void;
  /** First reconnect delay, doubled per failure up to reconnectMaxMs (defaults 1 s and 30 s). */
  readonly reconnectBaseMs?: number;
  readonly reconnectMaxMs?: number;
  /** Wait before a message whose handling failed goes back to the queue (default 1 s). */
  readonly requeueDelayMs?: number;
}

export const NOVA_NOTIFICATIONS_QUEUE = 'leasehold-nova-notifications';
const DEFAULT_ROUTING_KEYS = ['versioned_notifications.info', 'versioned_notifications.error'];

/** oslo.messaging's `rabbit://u:p@h:port/` as an AMQP URL (the path is the vhost in both). */
export const amqpUrlOf = (url: string): string => url.replace(/^rabbit:\/\//, 'amqp://');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Consumes Nova's versioned notifications one at a time (in order, so a disable followed by an
 * enable is applied in that order), acknowledging each after it is handled. A failed message is
 * put back after a pause; a lost connection is re-opened with backoff.
 */
export class NovaNotificationsConsumer {
  private connection: ChannelModel | null = null;
  private consumer: { readonly channel: Channel; readonly tag: string } | null = null;
  private connecting: Promise<void> | null = null;
  private chain: Promise<void> = Promise.resolve();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;
  private readonly readyWaiters: (() => void)[] = [];
  private consuming = false;

  private constructor(private readonly options: NovaNotificationsConsumerOptions) {}

  /** Starts connecting at once; `ready()` resolves when the queue is consumed. */
  static start(options: NovaNotificationsConsumerOptions): NovaNotificationsConsumer {
    const consumer = new NovaNotificationsConsumer(options);
    consumer.reconnect();
    return consumer;
  }

  ready(): Promise<void> {
    return this.consuming ? Promise.resolve() : new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    await this.connecting;
    // no new deliveries; the ones in hand are finished and acknowledged before the connection closes
    await this.consumer?.channel.cancel(this.consumer.tag).catch(() => undefined);
    await this.chain;
    await this.connection?.close().catch(() => undefined);
    this.connection = null;
    this.options.log({ event: 'notifications-stop' });
  }

  private async connect(): Promise<void> {
    const { exchange = 'nova', queue = NOVA_NOTIFICATIONS_QUEUE, routingKeys = DEFAULT_ROUTING_KEYS, prefetch = 16 } = this.options;
    try {
      const connection = await connect(amqpUrlOf(this.options.url));
      this.connection = connection;
      connection.on('error', (error: unknown) =>
        this.options.log({ event: 'error', phase: 'notifications-connection', error: describeError(error) }),
      );
      connection.on('close', () => {
        if (this.connection === connection) this.lost('connection closed');
      });
      const channel = await connection.createChannel();
      channel.on('error', (error: unknown) =>
        this.options.log({ event: 'error', phase: 'notifications-channel', error: describeError(error) }),
      );
      // oslo.messaging declares its exchanges non-durable (amqp_durable_queues = False)
      await channel.assertExchange(exchange, 'topic', { durable: false });
      await channel.assertQueue(queue, { durable: true });
      for (const key of routingKeys) await channel.bindQueue(queue, exchange, key);
      await channel.prefetch(prefetch);
      const { consumerTag } = await channel.consume(queue, (message) => this.enqueue(channel, message), { noAck: false });
      this.consumer = { channel, tag: consumerTag };
      this.connected(queue);
    } catch (error) {
      this.options.log({ event: 'error', phase: 'notifications-connect', error: describeError(error) });
      this.drop('connect failed');
    }
  }

  private connected(queue: string): void {
    this.failures = 0;
    this.consuming = true;
    this.options.log({ event: 'notifications-start', queue });
    for (const resolve of this.readyWaiters.splice(0)) resolve();
  }

  /** Gives up the current connection (if any) and reconnects later. */
  private drop(why: string): void {
    const connection = this.connection;
    this.lost(why);
    void connection?.close().catch(() => undefined);
  }

  private reconnect(): void {
    this.connecting = this.connect().finally(() => (this.connecting = null));
  }

  private lost(why: string): void {
    this.connection = null;
    this.consumer = null;
    this.consuming = false;
    if (this.stopped || this.reconnectTimer !== null) return;
    const { reconnectBaseMs = 1_000, reconnectMaxMs = 30_000 } = this.options;
    const delayMs = Math.min(reconnectBaseMs * 2 ** this.failures, reconnectMaxMs);
    this.failures += 1;
    this.options.log({ event: 'notifications-reconnect', why, retryInMs: delayMs });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stopped) this.reconnect();
    }, delayMs);
  }

  /** Handles messages strictly one after another, whatever the prefetch. */
  private enqueue(channel: Channel, message: ConsumeMessage | null): void {
    if (message === null) {
      this.drop('consumer cancelled by the broker');
      return;
    }
    this.chain = this.chain.then(() => this.process(channel, message));
  }

  private async process(channel: Channel, message: ConsumeMessage): Promise<void> {
    let handled = true;
    try {
      await this.options.handle(message.content);
    } catch (error) {
      handled = false;
      this.options.log({
        event: 'error',
        phase: 'notification-handle',
        error: describeError(error),
        requeueInMs: this.options.requeueDelayMs ?? 1_000,
      });
      await sleep(this.options.requeueDelayMs ?? 1_000);
    }
    try {
      if (handled) channel.ack(message);
      else channel.nack(message, false, true);
    } catch (error) {
      // the channel is gone: the broker redelivers what was not acknowledged
      this.options.log({ event: 'error', phase: 'notification-ack', error: describeError(error) });
    }
  }
}
