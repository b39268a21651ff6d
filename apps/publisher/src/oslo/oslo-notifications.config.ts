import { type Env, flag, text } from '../env-values.js';

/** The oslo.messaging notifications channel's settings (docs/notifications.md); null when it is off. */
export interface OsloNotificationsConfig {
  /** AMQP URL; oslo's `rabbit://user:pass@host:port/vhost` is taken as is. */
  readonly url: string;
  /** oslo's control_exchange. */
  readonly exchange: string;
  /** oslo's [oslo_messaging_notifications] topics entry: the routing key is `<topic>.info`. */
  readonly topic: string;
  readonly publisherId: string;
  /** oslo's [oslo_messaging_rabbit] amqp_durable_queues: a durable exchange and queue. */
  readonly durable: boolean;
}

/** oslo's `rabbit://` transport URL as an AMQP URL (the path is the vhost in both); one host only. */
export const amqpUrlOfTransport = (url: string): string => {
  const amqp = url.replace(/^rabbit:\/\//, 'amqp://');
  if (!/^amqps?:\/\//.test(amqp))
    throw new Error(
      `LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL must be rabbit://, amqp:// or amqps://, got '${url.replace(/\/\/[^@/]*@/, '//***@')}'`,
    );
  if (/^amqps?:\/\/[^/]*,/.test(amqp))
    throw new Error('LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL names several hosts: give one (a cluster behind one address)');
  return amqp;
};

/** Reads LEASEHOLD_NOTIFICATIONS_*; throws a message naming the variable on a bad value. */
export const osloNotificationsConfigFromEnv = (env: Env): OsloNotificationsConfig | null => {
  const transport = text(env, 'LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL');
  if (transport === undefined) return null;
  return {
    url: amqpUrlOfTransport(transport),
    exchange: text(env, 'LEASEHOLD_NOTIFICATIONS_EXCHANGE') ?? 'openstack',
    topic: text(env, 'LEASEHOLD_NOTIFICATIONS_TOPIC') ?? 'notifications',
    publisherId: text(env, 'LEASEHOLD_NOTIFICATIONS_PUBLISHER_ID') ?? 'blazar.lease',
    durable: flag(env, 'LEASEHOLD_NOTIFICATIONS_DURABLE', false),
  };
};
