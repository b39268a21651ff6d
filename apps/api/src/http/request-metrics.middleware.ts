import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Histogram, type Registry } from 'prom-client';
import { METRICS_CONTENT_TYPE, type MetricsAccess, refuseMetrics } from '#observability/metrics.js';
import { blazarError } from './blazar-error.js';
import { headerOf, pathOf } from './exchange.js';

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const METRICS_PATH = '/metrics';

/** Requests no route answered (404s, and those refused before routing: 401, 406, bad bodies). */
export const UNROUTED = 'unrouted';

/**
 * The matched route's template (`/v1/leases/:id`), never the path the client sent: a label per raw
 * path would let any caller create series without end.
 */
export const routeTemplate = (request: FastifyRequest): string => {
  // Fastify's not-found handler is a route of its own, without a template
  const template = request.is404 ? undefined : request.routeOptions.url;
  if (template !== undefined) return template;
  return pathOf(request) === METRICS_PATH ? METRICS_PATH : UNROUTED;
};

/** `leasehold_http_request_duration_seconds` by method, route template and status, for every request. */
export const requestMetrics = (registry: Registry) => {
  const duration = new Histogram({
    name: 'leasehold_http_request_duration_seconds',
    help: 'API requests by method, route template and status, from arrival to the last byte sent',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction): void => {
    const started = process.hrtime.bigint();
    reply.raw.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const method = METHODS.has(request.method) ? request.method : 'OTHER';
      duration.observe({ method, route: routeTemplate(request), status: String(reply.raw.statusCode) }, seconds);
    });
    next();
  };
};

/** GET /metrics beside the API's routes (no token of the API's own: see MetricsAccess). */
export const metricsEndpoint =
  (registry: Registry, access: MetricsAccess) =>
  (request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction): void => {
    if (pathOf(request) !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      next();
      return;
    }
    const refused = refuseMetrics(access, headerOf(request, 'authorization'));
    if (refused !== null) {
      void reply.code(refused.status).send(blazarError(refused.status, refused.message));
      return;
    }
    registry.metrics().then(
      (text) => void reply.header('Cache-Control', 'no-store').type(METRICS_CONTENT_TYPE).send(text),
      (error: unknown) => next(error as Error),
    );
  };
