import type { NextFunction, Request, Response } from 'express';
import { Histogram, type Registry } from 'prom-client';
import { METRICS_CONTENT_TYPE, type MetricsAccess, refuseMetrics } from '#observability/metrics.js';
import { blazarError } from './blazar-error.js';

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const METRICS_PATH = '/metrics';

/** Requests no route answered (404s, and those refused before routing: 401, 406, bad bodies). */
export const UNROUTED = 'unrouted';

/**
 * The matched route's template (`/v1/leases/:id`), never the path the client sent: a label per raw
 * path would let any caller create series without end.
 */
export const routeTemplate = (request: Request): string => {
  const route = request.route as unknown;
  const path = typeof route === 'object' && route !== null && 'path' in route ? route.path : undefined;
  if (typeof path === 'string') return `${request.baseUrl}${path}`;
  return request.path === METRICS_PATH ? METRICS_PATH : UNROUTED;
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
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    response.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const method = METHODS.has(request.method) ? request.method : 'OTHER';
      duration.observe({ method, route: routeTemplate(request), status: String(response.statusCode) }, seconds);
    });
    next();
  };
};

/** GET /metrics beside the API's routes (no token of the API's own: see MetricsAccess). */
export const metricsEndpoint =
  (registry: Registry, access: MetricsAccess) =>
  (request: Request, response: Response, next: NextFunction): void => {
    if (request.path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      next();
      return;
    }
    const refused = refuseMetrics(access, request.header('authorization'));
    if (refused !== null) {
      response.status(refused.status).json(blazarError(refused.status, refused.message));
      return;
    }
    registry.metrics().then(
      (text) => {
        response.setHeader('Cache-Control', 'no-store');
        response.type(METRICS_CONTENT_TYPE).send(text);
      },
      (error: unknown) => next(error),
    );
  };
