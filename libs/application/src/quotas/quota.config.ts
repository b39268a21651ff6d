import { MAX_QUOTA_LIMIT, type QuotaLimits } from '#domain/index.js';
import { QUOTAS } from '#plugins/reservation-holdings.js';
import { type Environment, integerSetting } from '../application-settings.js';

export interface QuotaConfig {
  /** Every project's limits where it has none of its own; null: unlimited. */
  readonly defaults: QuotaLimits;
  /** Projects the quota-use metric names (the most used first): its cardinality stays bounded. */
  readonly metricTopN: number;
}

const limit = (env: Environment, variable: string): number | null => {
  if ((env[variable] ?? '') === '') return null;
  const value = integerSetting(env, variable, 0);
  if (value > MAX_QUOTA_LIMIT) throw new Error(`${variable} must be at most ${MAX_QUOTA_LIMIT}, got ${value}`);
  return value;
};

export const quotaConfigFromEnv = (env: Environment): QuotaConfig => ({
  // each quota's own variable, as the type declaring it names it (LEASEHOLD_QUOTA_DEFAULT_HOSTS, ...)
  defaults: Object.fromEntries(QUOTAS.dimensions.map(({ name, defaultVariable }) => [name, limit(env, defaultVariable)])) as QuotaLimits,
  metricTopN: integerSetting(env, 'LEASEHOLD_QUOTA_METRIC_TOP_N', 10),
});
