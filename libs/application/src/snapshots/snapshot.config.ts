export interface SnapshotConfig {
  /** How often a process looks whether to write its snapshots; 0: it writes none (it still starts from one). */
  readonly everyMs: number;
  /** A snapshot is written once the state moved this many log positions past the last one. */
  readonly everyEvents: number;
}

const nonNegativeInteger = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const text = env[name] ?? String(fallback);
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got '${text}'`);
  return value;
};

/** LEASEHOLD_SNAPSHOT_SECONDS (default 60) and LEASEHOLD_SNAPSHOT_EVENTS (default 10000). */
export const snapshotConfigFromEnv = (env: NodeJS.ProcessEnv): SnapshotConfig => ({
  everyMs: nonNegativeInteger(env, 'LEASEHOLD_SNAPSHOT_SECONDS', 60) * 1000,
  everyEvents: Math.max(1, nonNegativeInteger(env, 'LEASEHOLD_SNAPSHOT_EVENTS', 10_000)),
});

/**
 * LEASEHOLD_PAST_KEPT_HOURS (default 24): how long after their end the API's indexes still hold
 * bookings and leases (what ended earlier can change no decision; the capacity table and availability
 * answer from the write index, so a window further back shows free). Never less than two cleaning
 * times and 10 minutes: a new booking keeps the cleaning time from what ends before it, and an ended
 * lease may still be changed in the minute it ended.
 */
export const pastKeptMsFromEnv = (env: NodeJS.ProcessEnv, cleaningTimeMinutes: number): number =>
  Math.max(nonNegativeInteger(env, 'LEASEHOLD_PAST_KEPT_HOURS', 24) * 3_600_000, (2 * cleaningTimeMinutes + 10) * 60_000);

/** What a forgetting index drops at each snapshot look: what ended more than `pastMs` before `now()`. */
export interface Forgetting {
  readonly pastMs: number;
  readonly now: () => number;
}
