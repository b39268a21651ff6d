import { kafkaConfigFromEnv } from './kafka/kafka.config.js';
import { KafkaChannel } from './kafka/kafka.channel.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { OutboundChannel } from './channel.js';
import { osloNotificationsConfigFromEnv } from './oslo/oslo-notifications.config.js';
import { OsloNotificationsChannel } from './oslo/oslo-notifications.channel.js';
import { webhookConfigFromEnv } from '#application/webhooks/webhook.config.js';
import { WebhookDeliveries } from '#application/webhooks/webhook-deliveries.store.js';
import { WebhookSecrets } from '#application/webhooks/webhook-secrets.store.js';
import { WebhookChannel } from './webhooks/webhook.channel.js';
import { type WorkerLogEntry, WebhookWorker } from './webhooks/webhook-worker.js';
import { httpSender } from './webhooks/webhook-sender.js';
import type { Env } from './env-values.js';

export interface PublisherConfig {
  readonly dataDir: string;
  readonly batchSize: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
}

const positive = (env: Env, name: string, fallback: number): number => {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got '${raw}'`);
  return value;
};

export const publisherConfigFromEnv = (env: Env): PublisherConfig => {
  const maxRetrySeconds = positive(env, 'LEASEHOLD_PUBLISHER_MAX_RETRY_SECONDS', 10);
  return {
    dataDir: env.LEASEHOLD_DATA_DIR ?? './data',
    batchSize: Math.floor(positive(env, 'LEASEHOLD_PUBLISHER_BATCH_SIZE', 500)),
    retryDelayMs: Math.min(500, maxRetrySeconds * 1000),
    maxRetryDelayMs: maxRetrySeconds * 1000,
  };
};

/** Whether any channel is switched on (checked before anything is opened). */
export const anyChannelConfigured = (env: Env): boolean =>
  kafkaConfigFromEnv(env) !== null || osloNotificationsConfigFromEnv(env) !== null || webhookConfigFromEnv(env).enabled;

export interface ChannelResources {
  /** The oslo notifications channel reads lease streams to fold the lease each notification carries; webhooks read the log too. */
  readonly store: EventStore;
  readonly dataDir: string;
  readonly log: (entry: WorkerLogEntry) => void;
}

/** Every channel the configuration switches on (each off unless its own variables are set). */
export const channelsFromEnv = (env: Env, { store, dataDir, log }: ChannelResources): OutboundChannel[] => {
  const kafka = kafkaConfigFromEnv(env);
  const oslo = osloNotificationsConfigFromEnv(env);
  const webhooks = webhookConfigFromEnv(env);
  const channels: OutboundChannel[] = [
    ...(kafka === null ? [] : [new KafkaChannel(kafka)]),
    ...(oslo === null ? [] : [new OsloNotificationsChannel(oslo, store)]),
  ];
  if (webhooks.enabled) {
    const deliveries = WebhookDeliveries.open(`${dataDir}/webhooks.sqlite`);
    const secrets = WebhookSecrets.open(`${dataDir}/webhook-secrets.sqlite`);
    const worker = new WebhookWorker({ deliveries, secrets, config: webhooks, send: httpSender(webhooks.targets), log });
    channels.push(new WebhookChannel(store, deliveries, worker, env.LEASEHOLD_CLOUDEVENTS_SOURCE?.trim() || '/leasehold'));
  }
  return channels;
};
