import { describe, expect, it } from 'vitest';
import { HOUR_MS, hoursOf } from './hours.js';

describe('hours: one rounding rule for usage and quotas', () => {
  it('rounds unit-milliseconds half up to millionths of an hour, once', () => {
    expect(hoursOf(2 * 60_000)).toBe(0.033333);
    expect(hoursOf(119_995)).toBe(0.033332);
    expect(hoursOf(HOUR_MS)).toBe(1);
    expect(hoursOf(1)).toBe(0);
    // a millionth of an hour is 3.6 ms: 1.8 ms is the half that rounds up
    expect(hoursOf(1.8 * 10)).toBe(0.000005);
    expect(hoursOf(17)).toBe(0.000005);
    expect(hoursOf(1799)).toBe(0.0005);
  });

  it('gives the same number for a sum beyond a safe integer, computed in BigInt', () => {
    const big = 2n ** 60n + 1_800n;
    const expected = Number(
      `${(big * 1_000_000n + 1_800_000n) / 3_600_000n / 1_000_000n}.${(((big * 1_000_000n + 1_800_000n) / 3_600_000n) % 1_000_000n).toString().padStart(6, '0')}`,
    );
    expect(hoursOf(big)).toBe(expected);
    expect(hoursOf(BigInt(7 * HOUR_MS + 1_800))).toBe(hoursOf(7 * HOUR_MS + 1_800));
  });
});
