export const HOUR_MS = 3_600_000;

const MILLIONTHS = 1_000_000n;
/** A millionth of an hour is 3.6 ms: 36 tenths of a millisecond. */
const TENTHS_MS_PER_MILLIONTH = 36;

/**
 * Unit-milliseconds (units held x milliseconds, summed exactly) as hours, rounded half up to
 * millionths of an hour once: the one rule for every hour shown, in usage reports and quotas alike,
 * so that a lease counts the same hours in both. In numbers while the sum stays safe (dividing the
 * millionths by 10^6 is then one correctly rounded operation, the number the decimal reads as), else in BigInt.
 */
export const hoursOf = (unitMs: number | bigint): number => {
  if (typeof unitMs === 'number' && Number.isSafeInteger(unitMs * 10)) {
    const tenths = unitMs * 10;
    const rest = tenths % TENTHS_MS_PER_MILLIONTH;
    const whole = (tenths - rest) / TENTHS_MS_PER_MILLIONTH;
    return (whole + (rest * 2 >= TENTHS_MS_PER_MILLIONTH ? 1 : 0)) / 1_000_000;
  }
  const hour = BigInt(HOUR_MS);
  const millionths = (BigInt(unitMs) * MILLIONTHS + hour / 2n) / hour;
  return Number(`${millionths / MILLIONTHS}.${(millionths % MILLIONTHS).toString().padStart(6, '0')}`);
};
