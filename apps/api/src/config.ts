import type { AllocationRatios } from '#domain/index.js';
import type { Guardrails } from '#application/application-context.js';
import { applicationSettingsFromEnv } from '#application/application-settings.js';
import { type EnforcementConfig, enforcementConfigFromEnv } from '#application/enforcement/enforcement.config.js';
import { type QuotaConfig, quotaConfigFromEnv } from '#application/quotas/quota.config.js';
import { type FairShareConfig, fairShareConfigFromEnv } from '#application/fair-share/fair-share.config.js';
import type { KeystoneSettings } from './auth/keystone-authenticator.js';
import { type MetricsAccess, metricsConfigFromEnv } from '#observability/metrics.js';
import { type TlsFiles, tlsFilesFromEnv } from '#observability/tls.js';
import { type SnapshotConfig, pastKeptMsFromEnv, snapshotConfigFromEnv } from '#application/snapshots/snapshot.config.js';

export type AuthMode = 'none' | 'static' | 'keystone';

export interface ApiConfig {
  readonly host: string;
  readonly port: number;
  /** LEASEHOLD_TLS_CERT_FILE and LEASEHOLD_TLS_KEY_FILE: HTTPS on `port` (and on the health ports), or null for plain HTTP. */
  readonly tls: TlsFiles | null;
  readonly dataDir: string;
  readonly auth: AuthMode;
  /** Auth mode `none`: who every request acts as (with the admin role). */
  readonly defaultUserId: string;
  readonly defaultProjectId: string;
  /** Auth mode `static`: JSON file mapping tokens to {user_id, project_id, roles}. */
  readonly tokensFile: string | null;
  /** Auth mode `keystone`: where and as whom to validate tokens. */
  readonly keystone: KeystoneSettings | null;
  /** `WWW-Authenticate: Keystone uri="..."` on 401 (keystone mode: the Keystone URL unless set). */
  readonly wwwAuthenticateUri: string | null;
  /** Overrides of the default policy rules (JSON or YAML), or null for upstream's defaults. */
  readonly policyFile: string | null;
  /** Blazar [DEFAULT]cleaning_time, minutes between consecutive leases on one host. */
  readonly cleaningTimeMinutes: number;
  /** Blazar [manager]minutes_before_end_lease. */
  readonly minutesBeforeEnd: number;
  /** Nova's cpu/ram/disk allocation ratios: instance slots may take host totals x ratio (default 1.0). */
  readonly allocationRatios: AllocationRatios;
  /** LEASEHOLD_FREEPOOL_HEADROOM and LEASEHOLD_GENERAL_POOL_FLOOR (docs/operations.md, "Freepool guardrails"). */
  readonly guardrails: Guardrails;
  /** Longest a read waits for the projector to catch up with this process's writes. */
  readonly readYourWritesTimeoutMs: number;
  /** One JSON line per request with its request ids (LEASEHOLD_ACCESS_LOG=0 turns it off). */
  readonly accessLog: boolean;
  /** Event streams (`GET /v1/events` as Server-Sent Events) this process serves at once; 503 beyond. */
  readonly feedMaxStreams: number;
  /** One project's share of `feedMaxStreams`: its streams beyond it get the 503, not other projects'. */
  readonly feedMaxStreamsPerTenant: number;
  /** How often an idle event stream sends a comment line, so proxies and clients see it alive. */
  readonly feedHeartbeatMs: number;
  /** LEASEHOLD_SNAPSHOT_SECONDS, LEASEHOLD_SNAPSHOT_EVENTS: the write index's snapshots (libs/application/src/snapshots/). */
  readonly snapshots: SnapshotConfig;
  /** LEASEHOLD_PAST_KEPT_HOURS: how long after their end the write and quota indexes hold bookings and leases. */
  readonly pastKeptMs: number;
  /**
   * How long an idle keep-alive connection stays open. Longer than the idle timeouts of the proxies
   * and clients in front (HAProxy, load balancers: 60 s), so the server never closes a connection
   * a client is just reusing: Node's default of 5 s races clients that keep sockets 4 s.
   */
  readonly keepAliveTimeoutMs: number;
  /** Who may read `/metrics` (LEASEHOLD_METRICS, LEASEHOLD_METRICS_TOKEN). */
  readonly metrics: MetricsAccess;
  /** LEASEHOLD_READ_MODEL_QUERY_LOG=1: every SQL statement the API sends to the read model, on stdout. */
  readonly readModelQueryLog: boolean;
  /** /graphql: introspection and the limits that refuse abusive queries (docs/graphql.md). */
  readonly graphql: GraphqlSettings;
  /** /graphql's WebSocket: the bounds on its connections, messages and subscriptions (docs/graphql.md). */
  readonly webSockets: WebSocketSettings;
  /** Usage enforcement (LEASEHOLD_ENFORCEMENT_FILTERS and the filters' options). */
  readonly enforcement: EnforcementConfig;
  /** Per-project quotas: the default limits (LEASEHOLD_QUOTA_DEFAULT_*) and the metric's top N. */
  readonly quotas: QuotaConfig;
  /** Fair share: the usage half-life (LEASEHOLD_FAIR_SHARE_HALF_LIFE). */
  readonly fairShare: FairShareConfig;
}

export interface GraphqlSettings {
  /** LEASEHOLD_GRAPHQL_INTROSPECTION (default on): whether `__schema` and `__type` are answered. */
  readonly introspection: boolean;
  /** LEASEHOLD_GRAPHQL_MAX_DEPTH: the deepest selection a query may nest. */
  readonly maxDepth: number;
  /** LEASEHOLD_GRAPHQL_MAX_MUTATIONS: the most mutation fields (aliases included) one operation may run. */
  readonly maxMutations: number;
  /** LEASEHOLD_GRAPHQL_MAX_COST: the most rows an operation may be estimated to read (query-cost.ts). */
  readonly maxCost: number;
  /** LEASEHOLD_GRAPHQL_TIMEOUT_MS, LEASEHOLD_GRAPHQL_MAX_ROWS: one operation's execution budget; past it, its reads stop. */
  readonly timeoutMs: number;
  readonly maxRows: number;
  /** LEASEHOLD_GRAPHQL_MAX_VALUES: the most values an operation's answer may be estimated to hold (query-cost.ts). */
  readonly maxValues: number;
  /** LEASEHOLD_GRAPHQL_EXPENSIVE_COST, LEASEHOLD_GRAPHQL_EXPENSIVE_VALUES: an operation estimated above either is expensive. */
  readonly expensiveCost: number;
  readonly expensiveValues: number;
  /** LEASEHOLD_GRAPHQL_TENANT_EXPENSIVE: expensive operations one project may run at once (429 beyond). */
  readonly tenantExpensive: number;
}

export interface WebSocketSettings {
  /** A socket that sends no accepted `connection_init` within this is closed (4408). */
  readonly initTimeoutMs: number;
  /** The largest message read before `connection_init` is accepted; a larger one closes the socket (1009). */
  readonly maxInitBytes: number;
  /** The largest message read at all: ws stops reading a larger one at its header and closes the socket (1009). */
  readonly maxMessageBytes: number;
  readonly maxConnectionsPerTenant: number;
  /** Counted from the handshake, before authentication: what one client address may hold open. */
  readonly maxConnectionsPerAddress: number;
  readonly maxSubscriptionsPerConnection: number;
  readonly maxSubscriptionsPerTenant: number;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export const isLoopback = (host: string): boolean => LOOPBACK.has(host) || host.startsWith('127.');

const integer = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`);
  return parsed;
};

const positive = (value: string | undefined, fallback: number, name: string): number => {
  const parsed = integer(value, fallback, name);
  if (parsed === 0) throw new Error(`${name} must be a positive integer, got ${String(value)}`);
  return parsed;
};

const authMode = (value: string | undefined): AuthMode => {
  const mode = value === undefined || value === '' ? 'none' : value;
  if (mode === 'none' || mode === 'static' || mode === 'keystone') return mode;
  throw new Error(`LEASEHOLD_AUTH must be none, static or keystone, got ${mode}`);
};

const optional = (value: string | undefined): string | null => (value === undefined || value.trim() === '' ? null : value.trim());

const required = (env: NodeJS.ProcessEnv, name: string, why: string): string => {
  const value = optional(env[name]);
  if (value === null) throw new Error(`${name} must be set ${why}`);
  return value;
};

/** A setting bounded by another: unset, `fallback` or the bound, whichever is smaller; set above the bound, refused. */
const within = (
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  bound: { readonly name: string; readonly value: number },
): number => {
  const value = positive(env[name], Math.min(fallback, bound.value), name);
  if (value > bound.value) throw new Error(`${name} (${value}) must not exceed ${bound.name} (${bound.value})`);
  return value;
};

const webSocketSettings = (env: NodeJS.ProcessEnv): WebSocketSettings => {
  const setting = (name: string, fallback: number): number => positive(env[name], fallback, name);
  const maxMessageBytes = setting('LEASEHOLD_GRAPHQL_WS_MAX_MESSAGE_BYTES', 102_400);
  return {
    initTimeoutMs: setting('LEASEHOLD_GRAPHQL_WS_INIT_TIMEOUT_MS', 10_000),
    maxInitBytes: within(env, 'LEASEHOLD_GRAPHQL_WS_MAX_INIT_BYTES', 16_384, {
      name: 'LEASEHOLD_GRAPHQL_WS_MAX_MESSAGE_BYTES',
      value: maxMessageBytes,
    }),
    maxMessageBytes,
    maxConnectionsPerTenant: setting('LEASEHOLD_GRAPHQL_WS_MAX_CONNECTIONS_PER_TENANT', 10),
    maxConnectionsPerAddress: setting('LEASEHOLD_GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS', 20),
    maxSubscriptionsPerConnection: setting('LEASEHOLD_GRAPHQL_WS_MAX_SUBSCRIPTIONS_PER_CONNECTION', 20),
    maxSubscriptionsPerTenant: setting('LEASEHOLD_GRAPHQL_WS_MAX_SUBSCRIPTIONS_PER_TENANT', 50),
  };
};

/** LEASEHOLD_FEED_MAX_STREAMS, and one project's share of them. */
const feedStreams = (env: NodeJS.ProcessEnv): { readonly feedMaxStreams: number; readonly feedMaxStreamsPerTenant: number } => {
  const feedMaxStreams = positive(env.LEASEHOLD_FEED_MAX_STREAMS, 100, 'LEASEHOLD_FEED_MAX_STREAMS');
  const bound = { name: 'LEASEHOLD_FEED_MAX_STREAMS', value: feedMaxStreams };
  return { feedMaxStreams, feedMaxStreamsPerTenant: within(env, 'LEASEHOLD_FEED_MAX_STREAMS_PER_TENANT', 10, bound) };
};

/** The Identity v3 root: `http://host:5000` and `http://host/identity` get `/v3` appended. */
export const keystoneV3Url = (value: string): string => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`LEASEHOLD_KEYSTONE_URL must be an http(s) URL, got ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`LEASEHOLD_KEYSTONE_URL must be an http(s) URL, got ${value}`);
  const trimmed = value.replace(/\/+$/, '');
  return /\/v3$/.test(trimmed) ? trimmed : `${trimmed}/v3`;
};

/**
 * How long a validated token is trusted without asking Keystone again: the bound on how long a revoked
 * token keeps working (keystonemiddleware's token_cache_time, 300 s there).
 */
export const KEYSTONE_CACHE_SECONDS = 60;

const keystoneSettings = (env: NodeJS.ProcessEnv): KeystoneSettings => {
  const why = 'when LEASEHOLD_AUTH=keystone';
  const url = keystoneV3Url(required(env, 'LEASEHOLD_KEYSTONE_URL', `${why} (the Identity v3 URL, e.g. http://127.0.0.1:5000/v3)`));
  const cacheSeconds = integer(env.LEASEHOLD_KEYSTONE_CACHE_SECONDS, KEYSTONE_CACHE_SECONDS, 'LEASEHOLD_KEYSTONE_CACHE_SECONDS');
  return {
    url,
    username: required(env, 'LEASEHOLD_KEYSTONE_USERNAME', `${why} (Leasehold's service user)`),
    password: required(env, 'LEASEHOLD_KEYSTONE_PASSWORD', `${why} (the service user's password)`),
    projectName: optional(env.LEASEHOLD_KEYSTONE_PROJECT_NAME) ?? 'service',
    userDomainName: optional(env.LEASEHOLD_KEYSTONE_USER_DOMAIN_NAME) ?? 'Default',
    projectDomainName: optional(env.LEASEHOLD_KEYSTONE_PROJECT_DOMAIN_NAME) ?? 'Default',
    cacheSeconds,
    timeoutMs: integer(env.LEASEHOLD_KEYSTONE_TIMEOUT_MS, 5000, 'LEASEHOLD_KEYSTONE_TIMEOUT_MS'),
  };
};

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig => {
  const auth = authMode(env.LEASEHOLD_AUTH);
  const keystone = auth === 'keystone' ? keystoneSettings(env) : null;
  return {
    host: env.LEASEHOLD_HOST ?? '127.0.0.1',
    port: integer(env.LEASEHOLD_PORT, 1234, 'LEASEHOLD_PORT'),
    tls: tlsFilesFromEnv(env),
    dataDir: env.LEASEHOLD_DATA_DIR ?? './data',
    auth,
    defaultUserId: env.LEASEHOLD_DEFAULT_USER_ID ?? 'leasehold-admin',
    defaultProjectId: env.LEASEHOLD_DEFAULT_PROJECT_ID ?? 'leasehold-admin-project',
    tokensFile:
      auth === 'static'
        ? required(env, 'LEASEHOLD_TOKENS_FILE', 'when LEASEHOLD_AUTH=static (a JSON file mapping tokens to {user_id, project_id, roles})')
        : null,
    keystone,
    wwwAuthenticateUri: optional(env.LEASEHOLD_WWW_AUTHENTICATE_URI) ?? keystone?.url ?? null,
    policyFile: optional(env.LEASEHOLD_POLICY_FILE),
    ...applicationSettingsFromEnv(env),
    readYourWritesTimeoutMs: integer(env.LEASEHOLD_READ_YOUR_WRITES_TIMEOUT_MS, 3000, 'LEASEHOLD_READ_YOUR_WRITES_TIMEOUT_MS'),
    accessLog: env.LEASEHOLD_ACCESS_LOG !== '0',
    ...feedStreams(env),
    feedHeartbeatMs: positive(env.LEASEHOLD_FEED_HEARTBEAT_MS, 15_000, 'LEASEHOLD_FEED_HEARTBEAT_MS'),
    snapshots: snapshotConfigFromEnv(env),
    pastKeptMs: pastKeptMsFromEnv(env, applicationSettingsFromEnv(env).cleaningTimeMinutes),
    keepAliveTimeoutMs: positive(env.LEASEHOLD_HTTP_KEEPALIVE_MS, 65_000, 'LEASEHOLD_HTTP_KEEPALIVE_MS'),
    metrics: metricsConfigFromEnv(env, env.LEASEHOLD_HOST ?? '127.0.0.1').access,
    readModelQueryLog: env.LEASEHOLD_READ_MODEL_QUERY_LOG === '1',
    graphql: {
      introspection: env.LEASEHOLD_GRAPHQL_INTROSPECTION !== '0' && env.LEASEHOLD_GRAPHQL_INTROSPECTION?.toLowerCase() !== 'off',
      maxDepth: positive(env.LEASEHOLD_GRAPHQL_MAX_DEPTH, 10, 'LEASEHOLD_GRAPHQL_MAX_DEPTH'),
      maxMutations: positive(env.LEASEHOLD_GRAPHQL_MAX_MUTATIONS, 10, 'LEASEHOLD_GRAPHQL_MAX_MUTATIONS'),
      maxCost: positive(env.LEASEHOLD_GRAPHQL_MAX_COST, 200_000, 'LEASEHOLD_GRAPHQL_MAX_COST'),
      timeoutMs: positive(env.LEASEHOLD_GRAPHQL_TIMEOUT_MS, 3000, 'LEASEHOLD_GRAPHQL_TIMEOUT_MS'),
      maxRows: positive(env.LEASEHOLD_GRAPHQL_MAX_ROWS, 20_000, 'LEASEHOLD_GRAPHQL_MAX_ROWS'),
      maxValues: positive(env.LEASEHOLD_GRAPHQL_MAX_VALUES, 500_000, 'LEASEHOLD_GRAPHQL_MAX_VALUES'),
      expensiveCost: positive(env.LEASEHOLD_GRAPHQL_EXPENSIVE_COST, 1000, 'LEASEHOLD_GRAPHQL_EXPENSIVE_COST'),
      expensiveValues: positive(env.LEASEHOLD_GRAPHQL_EXPENSIVE_VALUES, 100_000, 'LEASEHOLD_GRAPHQL_EXPENSIVE_VALUES'),
      tenantExpensive: positive(env.LEASEHOLD_GRAPHQL_TENANT_EXPENSIVE, 2, 'LEASEHOLD_GRAPHQL_TENANT_EXPENSIVE'),
    },
    webSockets: webSocketSettings(env),
    enforcement: enforcementConfigFromEnv(env),
    quotas: quotaConfigFromEnv(env),
    fairShare: fairShareConfigFromEnv(env),
  };
};

/** Refuses to expose an unauthenticated API beyond this machine. */
export const assertSafeBinding = (config: ApiConfig): void => {
  if (config.auth === 'none' && !isLoopback(config.host)) {
    throw new Error(
      `Refusing to listen on ${config.host} without authentication: set LEASEHOLD_AUTH=keystone or static, or bind to 127.0.0.1`,
    );
  }
};

export const API_CONFIG = Symbol('API_CONFIG');
