/**
 * Publisher process: sends every public event of the log (docs/events.md) to the outbound channels the
 * configuration switches on, each from its own checkpoint in `${dataDir}/publisher.sqlite`, in log
 * order, at least once (docs/kafka.md). A process of its own so that a channel that is down or slow can
 * hold back nothing but itself: the API and the reactor never wait for it (docs/architecture.md).
 *
 *   LEASEHOLD_DATA_DIR   data folder (default ./data); the log is `${dataDir}/events.sqlite`, or LEASEHOLD_EVENT_STORE_URL (postgres://...)
 *   LEASEHOLD_KAFKA_*    the Kafka channel, on when LEASEHOLD_KAFKA_BROKERS is set (docs/kafka.md)
 *   LEASEHOLD_NOTIFICATIONS_*  upstream Blazar's oslo.messaging notifications on RabbitMQ, on when
 *                        LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL is set (docs/notifications.md)
 *   LEASEHOLD_WEBHOOK*   tenant webhooks, on with LEASEHOLD_WEBHOOKS=on (docs/webhooks.md)
 *   LEASEHOLD_PUBLISHER_BATCH_SIZE         events per publish (default 500)
 *   LEASEHOLD_PUBLISHER_MAX_RETRY_SECONDS  a failed publish is retried after 0.5 s, doubling up to
 *                        this (default 10)
 *   LEASEHOLD_PUBLISHER_HEALTH_PORT  /healthz and /readyz on LEASEHOLD_HOST (default 1237; 0: any free
 *                        port, logged; off: none). Not ready while a channel is failing; /readyz shows
 *                        each channel's position, lag (positions and seconds) and last failure.
 *   LEASEHOLD_METRICS, LEASEHOLD_METRICS_TOKEN  /metrics on the same port (libs/observability/src/metrics.ts):
 *                        each channel's lag and whether it is failing
 *   LEASEHOLD_TLS_CERT_FILE, LEASEHOLD_TLS_KEY_FILE  the API's certificate and key: the health port in HTTPS
 *
 * With no channel configured it logs so and exits 0. SIGTERM/SIGINT stop it after the batch in flight;
 * a SIGKILL at any moment repeats at most the unacknowledged batch when it starts again.
 */
import { healthPortFromEnv, startHealthServer } from '#observability/health-server.js';
import { metricsConfigFromEnv, processRegistry } from '#observability/metrics.js';
import { registerPublisherMetrics } from './publisher.metrics.js';
import { eventLog } from '#observability/logger.js';
import { tlsFromEnv } from '#observability/tls.js';
import { openEventStore } from '#event-store/open-event-store.js';
import { describeError } from '#domain/index.js';
import { ChannelCheckpoints } from './channel-checkpoints.js';
import { ChannelRunner } from './channel-runner.js';
import { anyChannelConfigured, channelsFromEnv, publisherConfigFromEnv } from './publisher-config.js';

const log = eventLog('publisher');

const fail = (phase: string, error: unknown): never => {
  log({ event: 'error', phase, error: describeError(error, { stack: true }) });
  process.exit(1);
};

/** The configuration, the channels it switches on, the log and the checkpoints; exits 1 naming what is wrong. */
const open = async () => {
  try {
    const config = publisherConfigFromEnv(process.env);
    const tls = tlsFromEnv(process.env);
    if (!anyChannelConfigured(process.env)) {
      log({
        event: 'exit',
        reason:
          'no outbound channel configured (LEASEHOLD_KAFKA_BROKERS and LEASEHOLD_NOTIFICATIONS_TRANSPORT_URL unset, LEASEHOLD_WEBHOOKS off)',
        code: 0,
      });
      process.exit(0);
    }
    const store = await openEventStore('events', config.dataDir);
    const channels = channelsFromEnv(process.env, { store, dataDir: config.dataDir, log });
    const checkpoints = ChannelCheckpoints.open(`${config.dataDir}/publisher.sqlite`);
    const healthPort = healthPortFromEnv(process.env.LEASEHOLD_PUBLISHER_HEALTH_PORT, 1237);
    const { access } = metricsConfigFromEnv(process.env, process.env.LEASEHOLD_HOST ?? '127.0.0.1');
    return { config, channels, store, checkpoints, healthPort, access, tls };
  } catch (error) {
    return fail('open', error);
  }
};

const main = async (): Promise<void> => {
  const { config, channels, store, checkpoints, healthPort, access, tls } = await open();
  const runners = channels.map(
    (channel) =>
      new ChannelRunner({
        store,
        channel,
        checkpoints,
        batchSize: config.batchSize,
        retryDelayMs: config.retryDelayMs,
        maxRetryDelayMs: config.maxRetryDelayMs,
        log,
      }),
  );
  const registry = processRegistry();
  registerPublisherMetrics(registry, () => Promise.all(runners.map((runner) => runner.status())));
  const metrics = access.kind === 'off' ? {} : { metrics: { registry, access } };
  const host = process.env.LEASEHOLD_HOST ?? '127.0.0.1';
  const health =
    healthPort === null
      ? null
      : await startHealthServer({
          host,
          port: healthPort,
          service: 'publisher',
          ...metrics,
          tls,
          readiness: async () => {
            const statuses = await Promise.all(runners.map((runner) => runner.status()));
            // a tenant's receiver that is down is shown, never made the publisher's own unreadiness
            const details = await Promise.all(channels.map(async (channel) => ({ ...(await channel.status?.()) })));
            return {
              ready: statuses.every((s) => s.running && s.failing === null),
              channels: statuses.map((status, i) => ({ ...status, ...details[i] })),
            };
          },
        }).catch((error: unknown) => fail('health', error));
  if (health !== null) log({ event: 'health', url: health.url() });

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    let code = 0;
    try {
      await Promise.all(runners.map((runner) => runner.stop()));
      await Promise.all(channels.map((channel) => channel.close()));
      await health?.close();
      checkpoints.close();
      await store.close();
    } catch (error) {
      log({ event: 'error', phase: 'shutdown', error: describeError(error, { stack: true }) });
      code = 1;
    }
    log({ event: 'exit', signal, code });
    process.exit(code);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.on('unhandledRejection', (error) => fail('unhandled', error));
  for (const channel of channels) channel.start?.();
  for (const runner of runners) runner.start();
};

void main();
