import type { RetrySchedule } from './webhook-backoff.js';
import { type TargetPolicy, parseTargetPolicy } from './webhook-targets.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The webhook settings the API and the publisher share (docs/webhooks.md, docs/configuration.md). */
export interface WebhookConfig {
  /** LEASEHOLD_WEBHOOKS=on; off by default: sending requests to tenants' URLs is the operator's decision. */
  readonly enabled: boolean;
  readonly targets: TargetPolicy;
  readonly schedule: RetrySchedule;
  readonly timeoutMs: number;
  /** Webhooks sent to at once (each one's deliveries still go one at a time, in order). */
  readonly concurrency: number;
  /** Of those, the most one project's webhooks hold at once (never more than `concurrency`). */
  readonly projectConcurrency: number;
  /** Webhooks one project may have registered. */
  readonly maxPerProject: number;
}

const number = (env: Env, name: string, fallback: number): number => {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got '${raw}'`);
  return value;
};

const count = (env: Env, name: string, fallback: number): number => {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number, got '${raw}'`);
  return value;
};

const enabledOf = (env: Env): boolean => {
  const raw = (env.LEASEHOLD_WEBHOOKS ?? '').trim().toLowerCase();
  if (['', 'off', 'false', '0', 'no'].includes(raw)) return false;
  if (['on', 'true', '1', 'yes'].includes(raw)) return true;
  throw new Error(`LEASEHOLD_WEBHOOKS must be on or off, got '${raw}'`);
};

export const webhookConfigFromEnv = (env: Env): WebhookConfig => {
  const concurrency = count(env, 'LEASEHOLD_WEBHOOK_CONCURRENCY', 16);
  return {
    enabled: enabledOf(env),
    targets: parseTargetPolicy(env.LEASEHOLD_WEBHOOK_ALLOWED_TARGETS),
    schedule: {
      firstDelayMs: number(env, 'LEASEHOLD_WEBHOOK_RETRY_SECONDS', 5) * 1000,
      maxDelayMs: number(env, 'LEASEHOLD_WEBHOOK_MAX_RETRY_SECONDS', 3600) * 1000,
      giveUpAfterMs: number(env, 'LEASEHOLD_WEBHOOK_GIVE_UP_SECONDS', 86_400) * 1000,
    },
    timeoutMs: number(env, 'LEASEHOLD_WEBHOOK_TIMEOUT_SECONDS', 10) * 1000,
    concurrency,
    projectConcurrency: Math.min(concurrency, count(env, 'LEASEHOLD_WEBHOOK_PROJECT_CONCURRENCY', 4)),
    maxPerProject: count(env, 'LEASEHOLD_WEBHOOK_MAX_PER_PROJECT', 25),
  };
};
