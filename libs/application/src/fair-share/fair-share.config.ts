import type { Environment } from '../application-settings.js';

export interface FairShareConfig {
  /** How long until usage counts half as much (Slurm's PriorityDecayHalfLife; LEASEHOLD_FAIR_SHARE_HALF_LIFE). */
  readonly halfLifeMs: number;
}

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
const HALF_LIFE = /^([1-9]\d{0,5})([mhd])$/;
/** Ten years: beyond it nothing decays within any lease's lifetime. */
const MAX_HALF_LIFE_MS = 3650 * UNIT_MS.d!;

/** A whole number of minutes, hours or days: `30m`, `12h`, `7d` (the default, as Slurm's). */
export const parseHalfLife = (value: string | undefined): number => {
  if (value === undefined || value === '') return 7 * UNIT_MS.d!;
  const match = HALF_LIFE.exec(value);
  const ms = match === null ? Number.NaN : Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  if (!(ms <= MAX_HALF_LIFE_MS))
    throw new Error(
      `LEASEHOLD_FAIR_SHARE_HALF_LIFE must be a whole number of minutes, hours or days (30m, 12h, 7d) up to 3650d, got ${value}`,
    );
  return ms;
};

export const fairShareConfigFromEnv = (env: Environment): FairShareConfig => ({
  halfLifeMs: parseHalfLife(env.LEASEHOLD_FAIR_SHARE_HALF_LIFE),
});
