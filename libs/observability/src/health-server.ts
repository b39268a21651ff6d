import { type IncomingMessage, type RequestListener, type Server, type ServerResponse, createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Registry } from 'prom-client';
import { describeError } from '#domain/index.js';
import { METRICS_CONTENT_TYPE, type MetricsAccess, refuseMetrics } from './metrics.js';
import type { TlsCredentials } from './tls.js';

/** What /readyz answers: ready or not, and the details an operator needs to see why. */
export interface Readiness {
  readonly ready: boolean;
  readonly [detail: string]: unknown;
}

export interface HealthServerOptions {
  readonly host: string;
  /** 0 picks a free port (see `port()`). */
  readonly port: number;
  readonly service: string;
  readonly readiness: () => Promise<Readiness> | Readiness;
  /** `/metrics` in Prometheus' text format; absent: 404. */
  readonly metrics?: { readonly registry: Registry; readonly access: MetricsAccess };
  /** The API's certificate and key (LEASEHOLD_TLS_*): the probes and `/metrics` in HTTPS only. */
  readonly tls?: TlsCredentials;
}

export interface HealthServer {
  port(): number;
  /** `http(s)://host:port`, for the start-up log line. */
  url(): string;
  close(): Promise<void>;
}

const send = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  response.end(JSON.stringify(body));
};

const serveMetrics = (metrics: NonNullable<HealthServerOptions['metrics']>, request: IncomingMessage, response: ServerResponse): void => {
  const refused = refuseMetrics(metrics.access, request.headers.authorization);
  if (refused !== null) return send(response, refused.status, { error: refused.message });
  metrics.registry.metrics().then(
    (text) => {
      response.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' });
      response.end(text);
    },
    (error: unknown) => send(response, 500, { error: describeError(error) }),
  );
};

/**
 * `/healthz` (live: the process answers), `/readyz` (ready: 200, or 503 with the reason) and, when
 * given, `/metrics` for a process without an HTTP API of its own, as orchestrators and Prometheus expect.
 */
export const startHealthServer = async (options: HealthServerOptions): Promise<HealthServer> => {
  const handle: RequestListener = (request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, { error: 'method not allowed' });
    if (path === '/healthz') return send(response, 200, { status: 'ok', service: options.service });
    if (path === '/metrics' && options.metrics !== undefined) return serveMetrics(options.metrics, request, response);
    if (path !== '/readyz') return send(response, 404, { error: 'not found' });
    Promise.resolve()
      .then(() => options.readiness())
      .then(
        (readiness) => send(response, readiness.ready ? 200 : 503, { service: options.service, ...readiness }),
        (error: unknown) => send(response, 503, { service: options.service, ready: false, error: describeError(error) }),
      );
  };
  const server: Server = options.tls === undefined ? createServer(handle) : createHttpsServer(options.tls, handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (): number => {
    const address = server.address();
    return typeof address === 'object' && address !== null ? address.port : options.port;
  };
  return {
    port,
    url: () => `${options.tls === undefined ? 'http' : 'https'}://${options.host}:${port()}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** LEASEHOLD_<APP>_HEALTH_PORT: a port, 0 for any free one, or `off`. */
export const healthPortFromEnv = (value: string | undefined, fallback: number): number | null => {
  if (value === undefined || value.trim() === '') return fallback;
  if (value.trim() === 'off') return null;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`a health port must be 0-65535 or off, got '${value}'`);
  return port;
};
