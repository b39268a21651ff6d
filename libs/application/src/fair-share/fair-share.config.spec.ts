import { describe, expect, it } from 'vitest';
import { fairShareConfigFromEnv } from './fair-share.config.js';

const halfLife = (value?: string): number => fairShareConfigFromEnv({ LEASEHOLD_FAIR_SHARE_HALF_LIFE: value }).halfLifeMs;

describe('LEASEHOLD_FAIR_SHARE_HALF_LIFE', () => {
  it('is seven days unless set, as Slurm', () => {
    expect(halfLife()).toBe(7 * 86_400_000);
    expect(halfLife('')).toBe(7 * 86_400_000);
  });

  it.each([
    ['30m', 30 * 60_000],
    ['12h', 12 * 3_600_000],
    ['1d', 86_400_000],
    ['3650d', 3650 * 86_400_000],
  ])('%s is %i ms', (value, ms) => {
    expect(halfLife(value)).toBe(ms);
  });

  it.each(['0d', '7', '7w', '1.5h', '-1h', ' 7d', 'P7D', '3651d'])('%j is refused at start', (value) => {
    expect(() => halfLife(value)).toThrow(
      `LEASEHOLD_FAIR_SHARE_HALF_LIFE must be a whole number of minutes, hours or days (30m, 12h, 7d) up to 3650d, got ${value}`,
    );
  });
});
