import { kafkaConfigFromEnv } from './kafka/kafka.config.js';
import { KafkaChannel } from './kafka/kafka.channel.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { OutboundChannel } from './channel.js';
import { osloNotificationsConfigFromEnv } from './oslo/oslo-notifications.config.js';
import { OsloNotificationsChannel } from './oslo/oslo-notifications.channel.js';

type Env = Readonly<Record<string, string | undefined>>;

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

/**
 * Every channel the configuration switches on (each off unless its own variables are set). The oslo
 * notifications channel reads lease streams from `store` to fold the lease each notification carries.
 */
export const channelsFromEnv = (env: Env, store: Pick<EventStore, 'readStream'>): OutboundChannel[] => {
  const kafka = kafkaConfigFromEnv(env);
  const oslo = osloNotificationsConfigFromEnv(env);
  return [...(kafka === null ? [] : [new KafkaChannel(kafka)]), ...(oslo === null ? [] : [new OsloNotificationsChannel(oslo, store)])];
};
