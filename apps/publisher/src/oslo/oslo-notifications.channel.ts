import { type ChannelModel, type ConfirmChannel, connect } from 'amqplib';
import type { EventStore } from '#event-store/event-store.port.js';
import type { PublicEvent } from '#application/outbound/public-event.js';
import { leaseStream } from '#domain/index.js';
import type { OutboundChannel } from '../channel.js';
import { type OsloEnvelope, osloEnvelopeOf } from './oslo-envelope.js';
import { LeaseStreamFold, leaseNotifications } from './lease-notifications.js';
import type { OsloNotificationsConfig } from './oslo-notifications.config.js';

interface Open {
  readonly connection: ChannelModel;
  readonly channel: ConfirmChannel;
  /** Rejects when the connection or channel goes: a confirm that will never come. */
  readonly lost: Promise<never>;
}

/**
 * A broker that blocks publishers (a memory or disk alarm) confirms nothing and closes nothing: past this
 * the batch counts as failed, shows on /readyz, and is sent again (its receivers may see it twice).
 */
const CONFIRM_TIMEOUT_MS = 30_000;

const confirmedWithin = async (confirms: Promise<void>, lost: Promise<never>, ms: number): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`RabbitMQ confirmed nothing within ${ms / 1000} s (blocked by an alarm?)`)), ms);
  });
  try {
    await Promise.race([confirms, lost, deadline]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Sends upstream Blazar's lease notifications (docs/notifications.md) as an oslo.messaging notifier
 * on the rabbit driver would: a topic exchange, routing key `<topic>.info`, and the queue of that name
 * declared and bound first so nothing is lost before a consumer exists. `publish` resolves once the
 * broker confirmed every message of the batch (a confirm channel). The lease each notification
 * carries is folded from the lease's stream in the log, read once per lease per batch.
 */
export class OsloNotificationsChannel implements OutboundChannel {
  readonly name = 'oslo-notifications';
  private open: Open | null = null;

  constructor(
    private readonly config: OsloNotificationsConfig,
    private readonly store: Pick<EventStore, 'readStream'>,
  ) {}

  async publish(events: readonly PublicEvent[]): Promise<void> {
    const envelopes = await this.envelopesOf(events);
    if (envelopes.length === 0) return;
    const { channel, lost } = await this.opened();
    const routingKey = `${this.config.topic}.info`;
    for (const envelope of envelopes) {
      channel.publish(this.config.exchange, routingKey, Buffer.from(JSON.stringify(envelope)), {
        // as kombu sends them: persistent, so a durable queue keeps them over a broker restart
        contentType: 'application/json',
        contentEncoding: 'utf-8',
        persistent: true,
        priority: 0,
        headers: {},
      });
    }
    await confirmedWithin(channel.waitForConfirms(), lost, CONFIRM_TIMEOUT_MS);
  }

  async close(): Promise<void> {
    const open = this.open;
    this.open = null;
    await open?.connection.close().catch(() => undefined);
  }

  private async envelopesOf(events: readonly PublicEvent[]): Promise<OsloEnvelope[]> {
    const folds = new Map<string, LeaseStreamFold>();
    const envelopes: OsloEnvelope[] = [];
    for (const event of events) {
      if (event.subject.kind !== 'lease') continue;
      let fold = folds.get(event.subject.id);
      if (fold === undefined) {
        fold = new LeaseStreamFold(await this.store.readStream(leaseStream(event.subject.id)));
        folds.set(event.subject.id, fold);
      }
      for (const notification of leaseNotifications(fold, event.id))
        envelopes.push(osloEnvelopeOf(event, notification, this.config.publisherId));
    }
    return envelopes;
  }

  private async opened(): Promise<Open> {
    if (this.open !== null) return this.open;
    const connection = await connect(this.config.url, { timeout: 5_000 });
    try {
      const channel = await connection.createConfirmChannel();
      const lost = new Promise<never>((_, reject) => {
        const gone =
          (why: string) =>
          (error?: unknown): void => {
            if (this.open?.connection === connection) this.open = null;
            reject(error instanceof Error ? error : new Error(why));
          };
        connection.on('error', gone('AMQP connection failed'));
        connection.on('close', gone('AMQP connection closed'));
        channel.on('error', gone('AMQP channel failed'));
        channel.on('close', gone('AMQP channel closed'));
      });
      lost.catch(() => undefined);
      const { exchange, topic, durable } = this.config;
      await channel.assertExchange(exchange, 'topic', { durable, autoDelete: false });
      await channel.assertQueue(`${topic}.info`, { durable, autoDelete: false });
      await channel.bindQueue(`${topic}.info`, exchange, `${topic}.info`);
      this.open = { connection, channel, lost };
      return this.open;
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
  }
}
