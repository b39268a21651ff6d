import { MAX_INT32, invalidField } from '#domain/index.js';

/** Upstream's bound on amount (a 32-bit signed column). */
export const MAX_AMOUNT = MAX_INT32;

/** How many instances or addresses a reservation holds: 1 to MAX_AMOUNT. */
export const checkAmount = (amount: number): number => {
  if (amount < 1 || amount > MAX_AMOUNT)
    throw invalidField('MALFORMED_PARAMETER', `Malformed parameter {field:amount} (must be between 1 and ${MAX_AMOUNT})`);
  return amount;
};
