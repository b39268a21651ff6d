import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kafkaConfigFromEnv } from './kafka.config.js';

const BROKERS = { LEASEHOLD_KAFKA_BROKERS: 'k1:9092, k2:9092' };

describe('kafkaConfigFromEnv', () => {
  it('is off without brokers', () => {
    expect(kafkaConfigFromEnv({})).toBeNull();
    expect(kafkaConfigFromEnv({ LEASEHOLD_KAFKA_BROKERS: ' , ' })).toBeNull();
  });

  it('defaults: client id and prefix leasehold, acks from every in-sync replica, no TLS, no SASL', () => {
    const config = kafkaConfigFromEnv(BROKERS);
    expect(config).toMatchObject({
      topicPrefix: 'leasehold',
      acks: -1,
      idempotent: false,
      source: '/leasehold',
      client: { clientId: 'leasehold', brokers: ['k1:9092', 'k2:9092'] },
    });
    expect(config?.client.ssl).toBeUndefined();
    expect(config?.client.sasl).toBeUndefined();
  });

  it('refuses acks 0: the checkpoint would pass events the cluster never took', () => {
    expect(() => kafkaConfigFromEnv({ ...BROKERS, LEASEHOLD_KAFKA_ACKS: '0' })).toThrow(
      /LEASEHOLD_KAFKA_ACKS must be all \(-1\) or 1, got '0'/,
    );
    expect(kafkaConfigFromEnv({ ...BROKERS, LEASEHOLD_KAFKA_ACKS: '1' })?.acks).toBe(1);
  });

  it('SASL needs a known mechanism and a user name', () => {
    expect(
      kafkaConfigFromEnv({
        ...BROKERS,
        LEASEHOLD_KAFKA_SASL_MECHANISM: 'scram-sha-512',
        LEASEHOLD_KAFKA_SASL_USERNAME: 'lh',
        LEASEHOLD_KAFKA_SASL_PASSWORD: 's3',
      })?.client.sasl,
    ).toEqual({
      mechanism: 'scram-sha-512',
      username: 'lh',
      password: 's3',
    });
    expect(() => kafkaConfigFromEnv({ ...BROKERS, LEASEHOLD_KAFKA_SASL_MECHANISM: 'gssapi', LEASEHOLD_KAFKA_SASL_USERNAME: 'lh' })).toThrow(
      /LEASEHOLD_KAFKA_SASL_MECHANISM must be/,
    );
    expect(() => kafkaConfigFromEnv({ ...BROKERS, LEASEHOLD_KAFKA_SASL_MECHANISM: 'plain' })).toThrow(
      /LEASEHOLD_KAFKA_SASL_USERNAME must be set/,
    );
  });

  it('TLS reads the CA file it is given, and checks the server unless told not to', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-kafka-tls-'));
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, 'CA PEM');
    try {
      expect(kafkaConfigFromEnv({ ...BROKERS, LEASEHOLD_KAFKA_SSL_CA_FILE: ca })?.client.ssl).toMatchObject({
        ca: 'CA PEM',
        rejectUnauthorized: true,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(
      kafkaConfigFromEnv({ ...BROKERS, LEASEHOLD_KAFKA_SSL: 'true', LEASEHOLD_KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' })?.client.ssl,
    ).toMatchObject({ rejectUnauthorized: false });
    expect(() => kafkaConfigFromEnv({ ...BROKERS, LEASEHOLD_KAFKA_SSL: 'maybe' })).toThrow(/LEASEHOLD_KAFKA_SSL must be true or false/);
  });
});
