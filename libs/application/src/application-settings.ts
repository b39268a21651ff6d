import { parseZoneRule } from '#plugins/zone-rule.js';
import type { ApplicationSettings, Guardrails } from './application-context.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/** A non-negative integer setting; unset or empty: `fallback`. */
export const integerSetting = (env: Environment, name: string, fallback: number): number => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`);
  return parsed;
};

const ratioSetting = (env: Environment, name: string): number => {
  const value = env[name];
  if (value === undefined || value.trim() === '') return 1;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name} must be a positive number, got '${value}'`);
  return parsed;
};

export const guardrailsFromEnv = (env: Environment): Guardrails => ({
  freepoolHeadroom: parseZoneRule('LEASEHOLD_FREEPOOL_HEADROOM', env.LEASEHOLD_FREEPOOL_HEADROOM, { percentAllowed: false }),
  generalPoolFloor: parseZoneRule('LEASEHOLD_GENERAL_POOL_FLOOR', env.LEASEHOLD_GENERAL_POOL_FLOOR, { percentAllowed: true }),
  standaloneZoneHosts: parseZoneRule('LEASEHOLD_STANDALONE_ZONE_HOSTS', env.LEASEHOLD_STANDALONE_ZONE_HOSTS, { percentAllowed: false }),
});

/** Blazar's and Nova's settings every process that decides on leases shares (the API, the reactor's healing). */
export const applicationSettingsFromEnv = (env: Environment): ApplicationSettings & { readonly guardrails: Guardrails } => ({
  cleaningTimeMinutes: integerSetting(env, 'LEASEHOLD_CLEANING_TIME_MINUTES', 0),
  minutesBeforeEnd: integerSetting(env, 'LEASEHOLD_MINUTES_BEFORE_END_LEASE', 60),
  allocationRatios: {
    cpu: ratioSetting(env, 'LEASEHOLD_CPU_ALLOCATION_RATIO'),
    ram: ratioSetting(env, 'LEASEHOLD_RAM_ALLOCATION_RATIO'),
    disk: ratioSetting(env, 'LEASEHOLD_DISK_ALLOCATION_RATIO'),
  },
  guardrails: guardrailsFromEnv(env),
});
