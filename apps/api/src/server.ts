import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { jsonLogger } from '#observability/logger.js';
import { AppModule } from './app.module.js';
import { createAuthSetup } from './auth/auth-setup.js';
import { assertSafeBinding, loadApiConfig } from './config.js';
import { BlazarExceptionFilter } from './http/blazar-exception.filter.js';
import { httpsOptions, listeningUrl } from './http/tls.js';
import { bodyParserErrors, inputBoundary } from './http/input-boundary.js';
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

const log = jsonLogger({ app: 'api' });

const bootstrap = async (): Promise<void> => {
  const config = loadApiConfig();
  assertSafeBinding(config);
  // JSON only (no form bodies), parsed after authentication, then held to the input rules before any route
  const auth = createAuthSetup(config);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, auth), {
    logger: new PinoNestLogger(log.child({}, { level: 'warn' })),
    bodyParser: false,
    rawBody: true,
    httpsOptions: httpsOptions(config),
  });
  app.disable('x-powered-by');
  app.set('etag', false);
  if (config.metrics.kind !== 'off') {
    const registry = processRegistry();
    app.use(requestMetrics(registry));
    const quotas = app.get(Quotas);
    registerQuotaMetrics(registry, () => quotas.topUse(new Date().toISOString()));
    // before the request ids and the access log: a scrape every few seconds is not a client's request
    app.use(metricsEndpoint(registry, config.metrics));
  }
  app.use(openstackHeaders(config, auth));
  app.useBodyParser('json');
  app.use(bodyParserErrors());
  app.use(inputBoundary());
  app.useGlobalFilters(new BlazarExceptionFilter());
  app.enableShutdownHooks();
  publishOpenApiDocument(app);
  await app.listen(config.port, config.host);
  const server = app.getHttpServer();
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  // a request's headers may take as long as the connection may idle, and a little more
  server.headersTimeout = config.keepAliveTimeoutMs + 1_000;
  log.info({ listening: listeningUrl(config), auth: config.auth, dataDir: config.dataDir });
  const { restored } = app.get<OpenedWriteIndex>(OPENED_WRITE_INDEX);
  log.info({
    event: 'write-index',
    ...('position' in restored ? { snapshot: restored.position } : { snapshot: null, rebuilt: restored.reason }),
  });
  warmUsageIndex(app.get(UsageIndex));
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
  process.exit(1);
});
