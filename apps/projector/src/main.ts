/**
 * Projector process (plain TypeScript, no Nest: it has no HTTP surface and a single long-lived
 * component). Keeps the read model up to date from the event log.
 *
 *   LEASEHOLD_DATA_DIR        data folder (default ./data); the log is `${dataDir}/events.sqlite`, or LEASEHOLD_EVENT_STORE_URL (postgres://...)
 *   LEASEHOLD_READ_MODEL_URL  postgres://... read model (default SQLite `${dataDir}/read-model.sqlite`)
 *   LEASEHOLD_PROJECTOR_MAX_RETRY_SECONDS  a projection stopped on an event retries after 1 s, doubling
 *                             up to this (default 30)
 *   LEASEHOLD_PROJECTOR_BATCH_SIZE  most events per transaction once caught up (default 500); fewer when live
 *   LEASEHOLD_PROJECTOR_CATCH_UP_BATCH_SIZE  most events per transaction while catching up a backlog at
 *                             start or after the log could not be read (default 50000, never below the batch size)
 *   LEASEHOLD_PROJECTOR_WRITER_THREAD  on (default) or off: a catch-up of a batch or more on a SQLite read
 *                             model in a file folds on the main thread and writes on a second thread (SqlitePipeline)
 *   LEASEHOLD_PROJECTOR_HEALTH_PORT  /healthz and /readyz on LEASEHOLD_HOST (default 1235; 0: any free
 *                             port, logged; off: none). Not ready while a projection is stopped on an event.
 *   LEASEHOLD_METRICS, LEASEHOLD_METRICS_TOKEN  /metrics on the same port (libs/observability/src/metrics.ts):
 *                             the projector's lag and the read models' counts (leases, reservations, freepool)
 *   LEASEHOLD_TLS_CERT_FILE, LEASEHOLD_TLS_KEY_FILE  the API's certificate and key: the health port in HTTPS
 *   LEASEHOLD_FREEPOOL_WATCH_HOURS  how far ahead the freepool gauges look for free hosts (default 24)
 *
 * Logs one JSON line per start, stop and error on stdout. SIGTERM/SIGINT stop it gracefully: the
 * batch in flight commits or rolls back, then the read model and the store are closed and it exits 0.
 */
import type { MikroORM } from '@mikro-orm/core';
import { healthPortFromEnv, startHealthServer } from '#observability/health-server.js';
import { metricsConfigFromEnv, processRegistry, watchWindowMsFromEnv } from '#observability/metrics.js';
import { registerProjectorMetrics } from './projector.metrics.js';
import { eventLog } from '#observability/logger.js';
import { healthTlsOrExit } from '#observability/tls.js';
import { openEventStore } from '#event-store/open-event-store.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { openReadModel, readModelDatabaseFromEnv } from '#read-model/index.js';
import {
  DEFAULT_BATCH_SIZE,
  DEFAULT_CATCH_UP_BATCH_SIZE,
  PROJECTOR_CACHE_MIB,
  ProjectionRunner,
  writerThreadFromEnv,
} from './projection-runner.js';
import { describeError } from '#domain/index.js';
import { upgradeReadModel } from './read-model-schema.js';

const log = eventLog('projector');

/** `/metrics` beside the probes, unless LEASEHOLD_METRICS=off; a wrong setting exits 1 naming it. */
const projectorMetrics = (host: string, store: EventStore, orm: MikroORM, runner: ProjectionRunner) => {
  try {
    const { access } = metricsConfigFromEnv(process.env, host);
    if (access.kind === 'off') return {};
    const registry = processRegistry();
    const windowMs = watchWindowMsFromEnv(process.env);
    registerProjectorMetrics({ registry, store, orm, status: () => runner.status(), clock: () => new Date(), windowMs });
    return { metrics: { registry, access } };
  } catch (error) {
    log({ event: 'error', phase: 'config', error: describeError(error) });
    process.exit(1);
  }
};

const positiveInteger = (value: string | undefined, fallback: number): number => {
  const parsed = Number(value ?? fallback);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
};

const main = async (): Promise<void> => {
  const dataDir = process.env.LEASEHOLD_DATA_DIR ?? './data';
  const tls = healthTlsOrExit(process.env, (error) => log({ event: 'error', phase: 'config', error: describeError(error) }));
  let store: EventStore | null = null;
  let orm: MikroORM | null = null;
  try {
    store = await openEventStore('events', dataDir);
    orm = await openReadModel(readModelDatabaseFromEnv(dataDir), undefined, { cacheMiB: PROJECTOR_CACHE_MIB });
  } catch (error) {
    log({ event: 'error', phase: 'open', error: describeError(error, { stack: true }) });
    await orm?.close();
    await store?.close();
    process.exit(1);
  }
  const maxRetrySeconds = Number(process.env.LEASEHOLD_PROJECTOR_MAX_RETRY_SECONDS ?? '30');
  const runner = new ProjectionRunner({
    store,
    orm,
    batchSize: positiveInteger(process.env.LEASEHOLD_PROJECTOR_BATCH_SIZE, DEFAULT_BATCH_SIZE),
    catchUpBatchSize: positiveInteger(process.env.LEASEHOLD_PROJECTOR_CATCH_UP_BATCH_SIZE, DEFAULT_CATCH_UP_BATCH_SIZE),
    writerThread: writerThreadFromEnv(process.env.LEASEHOLD_PROJECTOR_WRITER_THREAD),
    retryDelayMs: Math.min(1_000, maxRetrySeconds * 1000),
    maxRetryDelayMs: maxRetrySeconds * 1000,
    log,
  });
  const healthPort = healthPortFromEnv(process.env.LEASEHOLD_PROJECTOR_HEALTH_PORT, 1235);
  const host = process.env.LEASEHOLD_HOST ?? '127.0.0.1';
  const metrics = projectorMetrics(host, store, orm, runner);
  const health =
    healthPort === null
      ? null
      : await startHealthServer({
          host,
          port: healthPort,
          service: 'projector',
          ...metrics,
          tls,
          readiness: () => {
            const projections = runner.status();
            return { ready: runner.isRunning() && projections.every((p) => p.failure === null), projections };
          },
        }).catch(async (error: unknown) => {
          log({ event: 'error', phase: 'health', error: describeError(error, { stack: true }) });
          await orm.close();
          await store.close();
          process.exit(1);
        });
  if (health !== null) log({ event: 'health', url: health.url() });

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    let code = 0;
    try {
      await runner.stop();
      await health?.close();
      await orm.close();
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
  process.on('unhandledRejection', (error) => {
    log({ event: 'error', phase: 'unhandled', error: describeError(error, { stack: true }) });
    process.exit(1);
  });

  try {
    await upgradeReadModel({ store, orm, writerThread: writerThreadFromEnv(process.env.LEASEHOLD_PROJECTOR_WRITER_THREAD), log });
    await runner.start();
  } catch (error) {
    log({ event: 'error', phase: 'start', error: describeError(error, { stack: true }) });
    await orm.close();
    await store.close();
    process.exit(1);
  }
};

void main();
