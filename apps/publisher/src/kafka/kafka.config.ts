import { readFileSync } from 'node:fs';
import type { KafkaConfig, SASLOptions } from 'kafkajs';
import { type Env, flag, text } from '../env-values.js';

/** The Kafka channel's settings (docs/kafka.md); null when LEASEHOLD_KAFKA_BROKERS is unset: no Kafka channel. */
export interface KafkaChannelConfig {
  readonly client: KafkaConfig;
  readonly topicPrefix: string;
  /** -1: every in-sync replica; 1: the partition leader. 0 (no acknowledgement) is refused. */
  readonly acks: -1 | 1;
  /** Needs a real cluster (the mock has no controller, docs/kafka.md). */
  readonly idempotent: boolean;
  readonly source: string;
}

const acksOf = (env: Env): -1 | 1 => {
  const value = text(env, 'LEASEHOLD_KAFKA_ACKS') ?? 'all';
  if (value === 'all' || value === '-1') return -1;
  if (value === '1') return 1;
  throw new Error(
    `LEASEHOLD_KAFKA_ACKS must be all (-1) or 1, got '${value}': without an acknowledgement the checkpoint could pass events the cluster never took`,
  );
};

const sslOf = (env: Env): KafkaConfig['ssl'] => {
  const ca = text(env, 'LEASEHOLD_KAFKA_SSL_CA_FILE');
  const cert = text(env, 'LEASEHOLD_KAFKA_SSL_CERT_FILE');
  const key = text(env, 'LEASEHOLD_KAFKA_SSL_KEY_FILE');
  if (!flag(env, 'LEASEHOLD_KAFKA_SSL', ca !== undefined || cert !== undefined)) return undefined;
  const file = (path: string | undefined): string | undefined => (path === undefined ? undefined : readFileSync(path, 'utf8'));
  return { ca: file(ca), cert: file(cert), key: file(key), rejectUnauthorized: flag(env, 'LEASEHOLD_KAFKA_SSL_REJECT_UNAUTHORIZED', true) };
};

const saslOf = (env: Env): SASLOptions | undefined => {
  const mechanism = text(env, 'LEASEHOLD_KAFKA_SASL_MECHANISM');
  if (mechanism === undefined) return undefined;
  const username = text(env, 'LEASEHOLD_KAFKA_SASL_USERNAME');
  const password = env.LEASEHOLD_KAFKA_SASL_PASSWORD ?? '';
  if (username === undefined) throw new Error('LEASEHOLD_KAFKA_SASL_USERNAME must be set with LEASEHOLD_KAFKA_SASL_MECHANISM');
  switch (mechanism) {
    case 'plain':
      return { mechanism, username, password };
    case 'scram-sha-256':
      return { mechanism, username, password };
    case 'scram-sha-512':
      return { mechanism, username, password };
    default:
      throw new Error(`LEASEHOLD_KAFKA_SASL_MECHANISM must be plain, scram-sha-256 or scram-sha-512, got '${mechanism}'`);
  }
};

/** Reads the LEASEHOLD_KAFKA_* variables; throws a message naming the variable on a bad value. */
export const kafkaConfigFromEnv = (env: Env): KafkaChannelConfig | null => {
  const brokers = text(env, 'LEASEHOLD_KAFKA_BROKERS')
    ?.split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker !== '');
  if (brokers === undefined || brokers.length === 0) return null;
  return {
    client: {
      clientId: text(env, 'LEASEHOLD_KAFKA_CLIENT_ID') ?? 'leasehold',
      brokers,
      ssl: sslOf(env),
      sasl: saslOf(env),
      connectionTimeout: 3_000,
      // the publisher retries a failed batch itself, with its own backoff: kafkajs only bridges a blip
      retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2_000 },
    },
    topicPrefix: text(env, 'LEASEHOLD_KAFKA_TOPIC_PREFIX') ?? 'leasehold',
    acks: acksOf(env),
    idempotent: flag(env, 'LEASEHOLD_KAFKA_IDEMPOTENT', false),
    source: text(env, 'LEASEHOLD_CLOUDEVENTS_SOURCE') ?? '/leasehold',
  };
};
