import type { ApplicationSettings } from '#application/application-context.js';
import { type Environment, applicationSettingsFromEnv, integerSetting } from '#application/application-settings.js';

export interface HealingConfig {
  /** Time between two periodic passes (reservations entering the healing window); 0: no healing in this process. */
  readonly checkMs: number;
  /** Upstream's [physical:host]healing_interval, minutes (0: every future reservation). */
  readonly intervalMinutes: number;
  /** Cleaning time and allocation ratios, as the API decides with them. */
  readonly settings: ApplicationSettings;
}

/**
 *   LEASEHOLD_HEALING_CHECK_SECONDS     periodic pass (default 10; 0: no healing here)
 *   LEASEHOLD_HEALING_INTERVAL_MINUTES  healing window (default 60; 0: every future reservation)
 * and the API's LEASEHOLD_CLEANING_TIME_MINUTES and LEASEHOLD_*_ALLOCATION_RATIO.
 */
export const healingConfigFromEnv = (env: Environment): HealingConfig => ({
  checkMs: integerSetting(env, 'LEASEHOLD_HEALING_CHECK_SECONDS', 10) * 1000,
  intervalMinutes: integerSetting(env, 'LEASEHOLD_HEALING_INTERVAL_MINUTES', 60),
  settings: applicationSettingsFromEnv(env),
});
