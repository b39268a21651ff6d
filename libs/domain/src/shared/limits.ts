/** The largest value of upstream's (and Nova's) integer columns. */
export const MAX_INT32 = 2 ** 31 - 1;

/**
 * The last instant any date taken or given may be: Blazar writes dates as `YYYY-MM-DD HH:MM`, and an
 * ISO 8601 string any later gains a sign and two year digits (`+010000-01-01`), which no client reads.
 */
export const LAST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59);

/** LAST_INSTANT_MS as messages write it. */
export const LAST_REQUEST_DATE = '9999-12-31 23:59';
