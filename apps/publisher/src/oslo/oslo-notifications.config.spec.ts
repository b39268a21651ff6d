import { describe, expect, it } from 'vitest';
import { osloNotificationsConfigFromEnv } from './oslo-notifications.config.js';

describe('oslo notifications configuration', () => {
  it('is off without a transport URL', () => {
    expect(osloNotificationsConfigFromEnv({})).toBeNull();
    expect(osloNotificationsConfigFromEnv({ LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: ' ' })).toBeNull();
  });

  it("takes oslo's rabbit:// URL and upstream's defaults", () => {
    expect(osloNotificationsConfigFromEnv({ LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: 'rabbit://u:p@mq:5672/vh' })).toEqual({
      url: 'amqp://u:p@mq:5672/vh',
      exchange: 'openstack',
      topic: 'notifications',
      publisherId: 'blazar.lease',
      durable: false,
    });
  });

  it('takes every setting', () => {
    const config = osloNotificationsConfigFromEnv({
      LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: 'amqps://mq/',
      LEASEHOLD_NOTIFICATIONS_EXCHANGE: 'blazar',
      LEASEHOLD_NOTIFICATIONS_TOPIC: 'billing',
      LEASEHOLD_NOTIFICATIONS_PUBLISHER_ID: 'blazar.lease.region2',
      LEASEHOLD_NOTIFICATIONS_DURABLE: 'true',
    });
    expect(config).toEqual({
      url: 'amqps://mq/',
      exchange: 'blazar',
      topic: 'billing',
      publisherId: 'blazar.lease.region2',
      durable: true,
    });
  });

  it('refuses what it cannot honour, naming the variable and hiding the password', () => {
    expect(() => osloNotificationsConfigFromEnv({ LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: 'kafka://u:secret@k:9092/' })).toThrow(
      /LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL must be rabbit:\/\/.*\*\*\*@k/,
    );
    expect(() => osloNotificationsConfigFromEnv({ LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: 'kafka://u:secret@k:9092/' })).not.toThrow(
      /secret/,
    );
    expect(() => osloNotificationsConfigFromEnv({ LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: 'rabbit://a:5672,b:5672/' })).toThrow(
      /several hosts/,
    );
    expect(() =>
      osloNotificationsConfigFromEnv({ LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL: 'rabbit://mq/', LEASEHOLD_NOTIFICATIONS_DURABLE: 'maybe' }),
    ).toThrow(/LEASEHOLD_NOTIFICATIONS_DURABLE must be true or false/);
  });
});
