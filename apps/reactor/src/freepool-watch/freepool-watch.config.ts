import { type Environment, integerSetting } from '#application/application-settings.js';
import { watchWindowMsFromEnv } from '#observability/metrics.js';

export interface FreepoolWatchConfig {
  /** Time between two looks at the freepool; 0: no watch in this process. */
  readonly checkMs: number;
  /** How far ahead a host must be free to count. */
  readonly windowMs: number;
  /** Fewer free hosts than this in a zone is exhaustion. */
  readonly minFreeHosts: number;
}

/**
 *   LEASEHOLD_FREEPOOL_WATCH_SECONDS    how often (default 60; 0: no watch here)
 *   LEASEHOLD_FREEPOOL_WATCH_HOURS      the window (default 24, as the projector's freepool gauges)
 *   LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS   the threshold per zone (default 1: exhausted when no host is free)
 */
export const freepoolWatchConfigFromEnv = (env: Environment): FreepoolWatchConfig => {
  const minFreeHosts = integerSetting(env, 'LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS', 1);
  if (minFreeHosts < 1) throw new Error('LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS must be at least 1');
  return { checkMs: integerSetting(env, 'LEASEHOLD_FREEPOOL_WATCH_SECONDS', 60) * 1000, windowMs: watchWindowMsFromEnv(env), minFreeHosts };
};
