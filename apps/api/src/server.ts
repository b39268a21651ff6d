import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type QueuedOutput, jsonLogger, queuedOutput } from '#observability/logger.js';
import { AppModule } from './app.module.js';
import { createAuthSetup } from './auth/auth-setup.js';
import { type ApiConfig, assertSafeBinding, loadApiConfig } from './config.js';
import { BlazarExceptionFilter } from './http/blazar-exception.filter.js';
import { httpsOptions, listeningUrl } from './http/tls.js';
import { BODY_LIMIT_BYTES, inputBoundary, readBodies } from './http/input-boundary.js';
import { frameworkErrors } from './http/framework-errors.js';
import { ConnectionDrain } from './http/connection-drain.js';
import { openstackHeaders } from './http/openstack-headers.middleware.js';
import { metricsEndpoint, requestMetrics } from './http/request-metrics.middleware.js';
import { processRegistry, registerQuotaMetrics } from '#observability/metrics.js';
import { Quotas } from '#application/quotas/quotas.js';
import { PinoNestLogger } from './http/pino-nest.logger.js';
import { publishOpenApiDocument } from './openapi/openapi.module.js';
import { describeError } from '#domain/index.js';
import { UsageIndex } from '#application/usage/usage-index.js';
import type { OpenedWriteIndex } from '#application/write-model/write-index.snapshots.js';
import { OPENED_WRITE_INDEX } from './tokens.js';

// one writer for every line of the process, the access log's included, off the main thread: lines keep their order
const stdout = queuedOutput();
const log = jsonLogger({ app: 'api' }, stdout.stream);

const bootstrap = async (): Promise<void> => {
  const config = loadApiConfig();
  assertSafeBinding(config);
  const auth = createAuthSetup(config);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, auth), fastifyAdapter(config), {
    logger: new PinoNestLogger(log.child({}, { level: 'warn' })),
    bodyParser: false,
  });
  const server = app.getHttpAdapter().getInstance();
  if (config.metrics.kind !== 'off') {
    const registry = processRegistry();
    server.addHook('onRequest', requestMetrics(registry));
    const quotas = app.get(Quotas);
    registerQuotaMetrics(registry, () => quotas.topUse(new Date().toISOString()));
    // before the request ids and the access log: a scrape every few seconds is not a client's request
    server.addHook('onRequest', metricsEndpoint(registry, config.metrics));
  }
  // authentication first, as keystonemiddleware wraps the whole upstream API; JSON bodies only, held to the input rules
  server.addHook('onRequest', openstackHeaders(config, auth, config.accessLog ? log : null));
  readBodies(server);
  server.addHook('preValidation', inputBoundary);
  app.useGlobalFilters(new BlazarExceptionFilter());
  const drain = new ConnectionDrain(app.getHttpServer());
  server.addHook('preClose', (done) => {
    drain.stop();
    done();
  });
  stopOnSignals(app, stdout);
  publishOpenApiDocument(app);
  await app.listen(config.port, config.host);
  // a request's headers may take as long as the connection may idle, and a little more
  app.getHttpServer().headersTimeout = config.keepAliveTimeoutMs + 1_000;
  log.info({ listening: listeningUrl(config), auth: config.auth, dataDir: config.dataDir });
  const { restored } = app.get<OpenedWriteIndex>(OPENED_WRITE_INDEX);
  log.info({
    event: 'write-index',
    ...('position' in restored ? { snapshot: restored.position } : { snapshot: null, rebuilt: restored.reason }),
  });
  warmUsageIndex(app.get(UsageIndex));
};

/**
 * Fastify as Express served the API before it: paths matched whatever their case and with a trailing slash, no length
 * limit of its own on a path parameter (the routes check theirs), the same body limit, keep-alive connections served
 * to the end at a stop; the router's own refusals (a percent-encoding that is no UTF-8) in Blazar's body; TLS when configured.
 */
const fastifyAdapter = (config: ApiConfig): FastifyAdapter => {
  const options = {
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
    bodyLimit: BODY_LIMIT_BYTES,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    return503OnClosing: false,
    frameworkErrors,
    skipMiddie: true,
  };
  const https = httpsOptions(config);
  return new FastifyAdapter(https === undefined ? options : { ...options, https });
};

const SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];

/**
 * On a signal, the application closes (Nest's shutdown hooks: streams ended, the server closed after its last answer,
 * the stores closed), the log's last lines are written, and the signal, raised again, ends the process.
 */
const stopOnSignals = (app: INestApplication, output: QueuedOutput): void => {
  const stop = (signal: NodeJS.Signals): void => {
    for (const each of SIGNALS) process.removeListener(each, stop);
    app
      .close()
      .catch((error: unknown) => log.error({ shutdown: describeError(error) }))
      .then(() => output.drain())
      .then(
        () => process.kill(process.pid, signal),
        () => process.exit(1),
      );
  };
  for (const signal of SIGNALS) process.once(signal, stop);
};

/** Usage reports reach into the past, so this index folds every lease ever made: after the start, not before it. */
const warmUsageIndex = (index: UsageIndex): void => {
  const started = performance.now();
  index.warmUp().then(
    () => log.info({ event: 'usage-index', ms: Math.round(performance.now() - started) }),
    (error: unknown) => log.warn({ event: 'usage-index', error: describeError(error) }),
  );
};

bootstrap().catch((error: unknown) => {
  log.fatal({ fatal: describeError(error) });
  void stdout.drain().then(() => process.exit(1));
});
