export interface RetrySchedule {
  /** Wait before the second attempt. */
  readonly firstDelayMs: number;
  /** Waits double up to this. */
  readonly maxDelayMs: number;
  /** A delivery not acknowledged this long after it was queued is given up (recorded). */
  readonly giveUpAfterMs: number;
}

/**
 * Wait after the `failures`-th failed attempt: doubling from the first delay up to the cap, with
 * "equal jitter" (half fixed, half random) so that receivers coming back are not hit by every
 * webhook's retries at the same instant. `random` in [0, 1).
 */
export const retryDelayMs = (schedule: RetrySchedule, failures: number, random: number): number => {
  const ceiling = Math.min(schedule.maxDelayMs, schedule.firstDelayMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
};

/** The next attempt's time, or null when it would fall after the give-up time: give up now. */
export const nextAttemptAt = (
  schedule: RetrySchedule,
  queuedAtMs: number,
  nowMs: number,
  failures: number,
  random: number,
): number | null => {
  const next = nowMs + retryDelayMs(schedule, failures, random);
  return next - queuedAtMs > schedule.giveUpAfterMs ? null : next;
};
