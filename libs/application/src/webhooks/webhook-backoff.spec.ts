import { describe, expect, it } from 'vitest';
import { nextAttemptAt, retryDelayMs } from './webhook-backoff.js';

const schedule = { firstDelayMs: 1_000, maxDelayMs: 60_000, giveUpAfterMs: 3_600_000 };

describe('webhook retry schedule: doubling with equal jitter, capped, given up at the bounded time', () => {
  it('doubles from the first delay and stays at the cap (no jitter drawn: the upper end)', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((failures) => retryDelayMs(schedule, failures, 1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000,
    ]);
  });

  it('jitter keeps each wait between half and all of its ceiling', () => {
    expect(retryDelayMs(schedule, 3, 0)).toBe(2_000);
    expect(retryDelayMs(schedule, 3, 0.5)).toBe(3_000);
  });

  it('gives up when the next attempt would fall after the give-up time, counted from when the delivery was queued', () => {
    expect(nextAttemptAt(schedule, 0, 1_000, 1, 1)).toBe(2_000);
    expect(nextAttemptAt(schedule, 0, 3_540_000, 10, 1)).toBe(3_600_000);
    expect(nextAttemptAt(schedule, 0, 3_540_001, 10, 1)).toBeNull();
  });
});
