/**
 * A sum of non-negative integers that stays exact: plain numbers while it is below 2^53 (fast),
 * a BigInt for what goes beyond. Reports add hundreds of thousands of products per request; a
 * BigInt per addition cost more than the rest of the report.
 */
export class ExactSum {
  private small = 0;
  private big = 0n;

  /** Adds rate x ms (both non-negative integers). */
  addProduct(rate: number, ms: number): void {
    const product = rate * ms;
    if (Number.isSafeInteger(product)) this.addSafe(product);
    else this.big += BigInt(rate) * BigInt(ms);
  }

  add(other: ExactSum): void {
    this.addSafe(other.small);
    this.big += other.big;
  }

  private addSafe(value: number): void {
    const next = this.small + value;
    if (Number.isSafeInteger(next)) this.small = next;
    else {
      this.big += BigInt(this.small) + BigInt(value);
      this.small = 0;
    }
  }

  /** The sum, when it fits a safe integer; null otherwise. */
  safe(): number | null {
    return this.big === 0n ? this.small : null;
  }

  value(): bigint {
    return this.big + BigInt(this.small);
  }
}
