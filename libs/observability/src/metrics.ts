import { timingSafeEqual } from 'node:crypto';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Who may read `/metrics`. `open`: anyone who reaches the port (the default where the process listens
 * on loopback only, so only the host's own scraper does); `token`: `Authorization: Bearer <token>`
 * (the default off loopback, as the metrics name projects, zones and hosts); `off`: no `/metrics`.
 */
export type MetricsAccess =
  { readonly kind: 'off' } | { readonly kind: 'open' } | { readonly kind: 'token'; readonly token: string | null };

export interface MetricsConfig {
  readonly access: MetricsAccess;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * LEASEHOLD_METRICS: `on` (default: open on loopback, a bearer token elsewhere), `off`, or `public`
 * (open wherever the process listens: for a scraper behind a network boundary of the operator's own).
 * LEASEHOLD_METRICS_TOKEN: the bearer token; when set, it is asked on loopback too.
 */
export const metricsConfigFromEnv = (env: NodeJS.ProcessEnv, listenHost: string): MetricsConfig => {
  const mode = (env.LEASEHOLD_METRICS ?? '').trim() || 'on';
  const token = (env.LEASEHOLD_METRICS_TOKEN ?? '').trim() || null;
  if (mode === 'off') return { access: { kind: 'off' } };
  if (mode === 'public') return { access: { kind: 'open' } };
  if (mode !== 'on') throw new Error(`LEASEHOLD_METRICS must be on, off or public, got '${mode}'`);
  if (token !== null) return { access: { kind: 'token', token } };
  return LOOPBACK.test(listenHost) ? { access: { kind: 'open' } } : { access: { kind: 'token', token: null } };
};

/** LEASEHOLD_FREEPOOL_WATCH_HOURS: how far ahead free capacity is counted (default 24 hours). */
export const watchWindowMsFromEnv = (env: NodeJS.ProcessEnv): number => {
  const text = (env.LEASEHOLD_FREEPOOL_WATCH_HOURS ?? '').trim() || '24';
  const hours = Number(text);
  if (!(Number.isFinite(hours) && hours > 0 && hours <= 24 * 366))
    throw new Error(`LEASEHOLD_FREEPOOL_WATCH_HOURS must be a number of hours above 0 (at most a year), got '${text}'`);
  return hours * 3_600_000;
};

export type MetricsRefusal = { readonly status: 401 | 403 | 404; readonly message: string };

const sameText = (a: string, b: string): boolean => {
  const [left, right] = [Buffer.from(a), Buffer.from(b)];
  return left.length === right.length && timingSafeEqual(left, right);
};

/** Null when the request may read the metrics, else why not (a 404 when they are switched off). */
export const refuseMetrics = (access: MetricsAccess, authorization: string | undefined): MetricsRefusal | null => {
  switch (access.kind) {
    case 'off':
      return { status: 404, message: 'metrics are switched off (LEASEHOLD_METRICS=off)' };
    case 'open':
      return null;
    case 'token': {
      if (access.token === null)
        return { status: 403, message: 'metrics off loopback need LEASEHOLD_METRICS_TOKEN (or LEASEHOLD_METRICS=public)' };
      const given = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
      return given !== undefined && sameText(given, access.token)
        ? null
        : { status: 401, message: 'metrics need Authorization: Bearer <LEASEHOLD_METRICS_TOKEN>' };
    }
    default: {
      const _never: never = access;
      return _never;
    }
  }
};

/** One registry per process, with Node's own process metrics (memory, CPU, event loop lag). */
export const processRegistry = (): Registry => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
};

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * One reading shared by the gauges of one scrape: the registry asks every metric at once, so gauges
 * filled from one query each await the same pending reading instead of showing the previous scrape's.
 */
export const sharedReading = <T>(read: () => Promise<T>): (() => Promise<T>) => {
  let pending: Promise<T> | null = null;
  return () =>
    (pending ??= read().finally(() => {
      pending = null;
    }));
};

/** One project's use of one quota as the quota metric shows it (limit null: none in effect). */
export interface QuotaUseSample {
  readonly projectId: string;
  readonly quota: string;
  readonly use: number;
  readonly limit: number | null;
}

/**
 * `leasehold_quota_use` and `leasehold_quota_limit` by project and quota, for the projects `read`
 * names (the top N by use, so the series stay bounded): read afresh at each scrape, a project that
 * left the top N loses its series.
 */
export const registerQuotaMetrics = (registry: Registry, read: () => Promise<readonly QuotaUseSample[]>): void => {
  const reading = sharedReading(read);
  new Gauge({
    name: 'leasehold_quota_use',
    help: 'What a project holds now of a quota held at once, or has spent this UTC month of a monthly one (hours); the LEASEHOLD_QUOTA_METRIC_TOP_N projects nearest their limits',
    labelNames: ['project_id', 'quota'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const sample of await reading()) this.set({ project_id: sample.projectId, quota: sample.quota }, sample.use);
    },
  });
  new Gauge({
    name: 'leasehold_quota_limit',
    help: 'The limit in effect for a project and quota (no series: none), for the projects leasehold_quota_use names',
    labelNames: ['project_id', 'quota'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const sample of await reading())
        if (sample.limit !== null) this.set({ project_id: sample.projectId, quota: sample.quota }, sample.limit);
    },
  });
};
