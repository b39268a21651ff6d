import { describe, expect, it } from 'vitest';
import { ExactSum } from './exact-sum.js';

describe('ExactSum: exact whatever the size', () => {
  it('stays a safe number while it can', () => {
    const sum = new ExactSum();
    sum.addProduct(3, 7);
    sum.addProduct(196_608, 3_600_000);
    expect(sum.safe()).toBe(21 + 196_608 * 3_600_000);
  });

  it('a product beyond 2^53 is kept exactly', () => {
    const sum = new ExactSum();
    sum.addProduct(2 ** 40 + 1, 2 ** 20 + 3);
    expect(sum.safe()).toBeNull();
    expect(sum.value()).toBe((2n ** 40n + 1n) * (2n ** 20n + 3n));
  });

  it('a running sum crossing 2^53 is kept exactly, and sums add', () => {
    const sum = new ExactSum();
    const near = Number.MAX_SAFE_INTEGER - 1;
    sum.addProduct(near, 1);
    sum.addProduct(5, 1);
    expect(sum.value()).toBe(BigInt(near) + 5n);
    const other = new ExactSum();
    other.addProduct(2, 3);
    other.add(sum);
    expect(other.value()).toBe(BigInt(near) + 11n);
  });
});
