import { MAX_QUOTA_LIMIT, QUOTA_NAMES, type QuotaLimits, type QuotaName } from '#domain/index.js';
import { type Environment, integerSetting } from '../application-settings.js';

export interface QuotaConfig {
  /** Every project's limits where it has none of its own; null: unlimited. */
  readonly defaults: QuotaLimits;
  /** Projects the quota-use metric names (the most used first): its cardinality stays bounded. */
  readonly metricTopN: number;
}

/** LEASEHOLD_QUOTA_DEFAULT_HOSTS, ..._VCPUS, ..._MEMORY_MB, ..._FLOATING_IPS, ..._HOST_HOURS_PER_MONTH, ..._VCPU_HOURS_PER_MONTH. */
export const QUOTA_DEFAULT_VARIABLES: Readonly<Record<QuotaName, string>> = {
  hosts: 'LEASEHOLD_QUOTA_DEFAULT_HOSTS',
  vcpus: 'LEASEHOLD_QUOTA_DEFAULT_VCPUS',
  memoryMb: 'LEASEHOLD_QUOTA_DEFAULT_MEMORY_MB',
  floatingIps: 'LEASEHOLD_QUOTA_DEFAULT_FLOATING_IPS',
  networks: 'LEASEHOLD_QUOTA_DEFAULT_NETWORKS',
  hostHoursPerMonth: 'LEASEHOLD_QUOTA_DEFAULT_HOST_HOURS_PER_MONTH',
  vcpuHoursPerMonth: 'LEASEHOLD_QUOTA_DEFAULT_VCPU_HOURS_PER_MONTH',
};

const limit = (env: Environment, variable: string): number | null => {
  if ((env[variable] ?? '') === '') return null;
  const value = integerSetting(env, variable, 0);
  if (value > MAX_QUOTA_LIMIT) throw new Error(`${variable} must be at most ${MAX_QUOTA_LIMIT}, got ${value}`);
  return value;
};

export const quotaConfigFromEnv = (env: Environment): QuotaConfig => ({
  defaults: Object.fromEntries(QUOTA_NAMES.map((name) => [name, limit(env, QUOTA_DEFAULT_VARIABLES[name])])) as QuotaLimits,
  metricTopN: integerSetting(env, 'LEASEHOLD_QUOTA_METRIC_TOP_N', 10),
});
