import { HOUR_MS } from '../usage/hours.js';
import { DEFAULT_SHARES } from './fair-share.decide.js';

/** Units (vCPUs) a project held over [startMs, endMs) (endMs null: still held). */
export interface HeldUnits {
  readonly projectId: string;
  readonly startMs: number;
  readonly endMs: number | null;
  readonly units: number;
}

/** One project's standing: Slurm's classic fair-share factor and what it was computed from. */
export interface FairShareFactor {
  readonly projectId: string;
  /** Its own shares, or the default. */
  readonly shares: number;
  /** Its shares over every listed project's (S). */
  readonly normalisedShare: number;
  /** Unit-hours, each instant's weighted by 2^(-age / half-life). */
  readonly decayedUsage: number;
  /** Its decayed usage over every project's (U; 0 when no project used anything). */
  readonly normalisedUsage: number;
  /** U / S: the order of the factor, kept where the factor itself rounds to its floor. */
  readonly usageOverShare: number;
  /** F = 2^(-U/S) in (0, 1]: 1 for a project that used nothing, 0.5 for one that used exactly its share. */
  readonly factor: number;
}

/**
 * Held units decayed to `nowMs`: the integral over [start, min(end, now)) of units x 2^(-(now - t) / halfLife),
 * in unit-hours. Continuous where Slurm decays in steps of its calculation period: the same weights, without the step.
 * Nothing after `nowMs` counts (hours not yet run are not usage).
 */
export const decayedUnitHours = (held: HeldUnits, nowMs: number, halfLifeMs: number): number => {
  const endMs = Math.min(held.endMs ?? nowMs, nowMs);
  if (endMs <= held.startMs || held.units === 0) return 0;
  const weight = (instantMs: number): number => 2 ** (-(nowMs - instantMs) / halfLifeMs);
  return (held.units * (halfLifeMs / Math.LN2) * (weight(endMs) - weight(held.startMs))) / HOUR_MS;
};

/** Each project's decayed usage, summed in the order given (the caller's stable order keeps the sums reproducible). */
export const decayedUsage = (held: readonly HeldUnits[], nowMs: number, halfLifeMs: number): ReadonlyMap<string, number> => {
  const usage = new Map<string, number>();
  for (const piece of held) {
    const value = decayedUnitHours(piece, nowMs, halfLifeMs);
    if (value > 0) usage.set(piece.projectId, (usage.get(piece.projectId) ?? 0) + value);
  }
  return usage;
};

export interface FairShareInputs {
  /** Shares admins set (others hold DEFAULT_SHARES). */
  readonly shares: ReadonlyMap<string, number>;
  readonly usage: ReadonlyMap<string, number>;
  /** Projects to rank besides those with shares or usage (e.g. those with queued requests). */
  readonly projects: Iterable<string>;
}

const sum = (values: Iterable<number>): number => {
  let total = 0;
  for (const value of values) total += value;
  return total;
};

/**
 * The factor of every project with shares set, recent usage or named in `projects`, by project id: shares and usage are
 * each normalised over those projects. The factor never reaches 0 (its floor is the smallest positive double); the
 * ranking compares `usageOverShare`, which keeps the order where the factor underflows.
 */
export const fairShareFactors = ({ shares, usage, projects }: FairShareInputs): FairShareFactor[] => {
  const ids = [...new Set([...shares.keys(), ...usage.keys(), ...projects])].sort();
  const own = (projectId: string): number => shares.get(projectId) ?? DEFAULT_SHARES;
  const totalShares = sum(ids.map(own));
  const totalUsage = sum(ids.map((projectId) => usage.get(projectId) ?? 0));
  return ids.map((projectId) => {
    const decayed = usage.get(projectId) ?? 0;
    const normalisedShare = own(projectId) / totalShares;
    const normalisedUsage = totalUsage === 0 ? 0 : decayed / totalUsage;
    const usageOverShare = normalisedUsage / normalisedShare;
    return {
      projectId,
      shares: own(projectId),
      normalisedShare,
      decayedUsage: decayed,
      normalisedUsage,
      usageOverShare,
      factor: Math.max(2 ** -usageOverShare, Number.MIN_VALUE),
    };
  });
};
