/** The largest value of upstream's (and Nova's) integer columns. */
export const MAX_INT32 = 2 ** 31 - 1;
