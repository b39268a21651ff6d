export type AuthMode = 'none' | 'static' | 'keystone';

export interface ApiConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly auth: AuthMode;
  readonly defaultUserId: string;
  readonly defaultProjectId: string;
  /** Blazar [DEFAULT]cleaning_time, minutes between consecutive leases on one host. */
  readonly cleaningTimeMinutes: number;
  /** Blazar [manager]minutes_before_end_lease. */
  readonly minutesBeforeEnd: number;
  /** Longest a read waits for the projector to catch up with this process's writes. */
  readonly readYourWritesTimeoutMs: number;
  /** One JSON line per request with its request ids (LEASEHOLD_ACCESS_LOG=0 turns it off). */
  readonly accessLog: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export const isLoopback = (host: string): boolean => LOOPBACK.has(host) || host.startsWith('127.');

const integer = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`);
  return parsed;
};

const authMode = (value: string | undefined): AuthMode => {
  const mode = value ?? 'none';
  if (mode === 'none') return mode;
  // never fall back to the unauthenticated identity when an operator asked for authentication
  if (mode === 'static' || mode === 'keystone') throw new Error(`LEASEHOLD_AUTH=${mode} is not available in this version; only none (loopback) is`);
  throw new Error(`LEASEHOLD_AUTH must be none, static or keystone, got ${mode}`);
};

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig => ({
  host: env.LEASEHOLD_HOST ?? '127.0.0.1',
  port: integer(env.LEASEHOLD_PORT, 1234, 'LEASEHOLD_PORT'),
  dataDir: env.LEASEHOLD_DATA_DIR ?? './data',
  auth: authMode(env.LEASEHOLD_AUTH),
  defaultUserId: env.LEASEHOLD_DEFAULT_USER_ID ?? 'leasehold-admin',
  defaultProjectId: env.LEASEHOLD_DEFAULT_PROJECT_ID ?? 'leasehold-admin-project',
  cleaningTimeMinutes: integer(env.LEASEHOLD_CLEANING_TIME_MINUTES, 0, 'LEASEHOLD_CLEANING_TIME_MINUTES'),
  minutesBeforeEnd: integer(env.LEASEHOLD_MINUTES_BEFORE_END_LEASE, 60, 'LEASEHOLD_MINUTES_BEFORE_END_LEASE'),
  readYourWritesTimeoutMs: integer(env.LEASEHOLD_READ_YOUR_WRITES_TIMEOUT_MS, 3000, 'LEASEHOLD_READ_YOUR_WRITES_TIMEOUT_MS'),
  accessLog: env.LEASEHOLD_ACCESS_LOG !== '0',
});

/** Refuses to expose an unauthenticated API beyond this machine. */
export const assertSafeBinding = (config: ApiConfig): void => {
  if (config.auth === 'none' && !isLoopback(config.host)) {
    throw new Error(
      `Refusing to listen on ${config.host} without authentication: set LEASEHOLD_AUTH=keystone or static, or bind to 127.0.0.1`,
    );
  }
};

export const API_CONFIG = Symbol('API_CONFIG');
