import { type ValidationOptions, ValidateBy } from 'class-validator';

/**
 * An integer held in a string ("2"), as upstream accepts for counts (python-blazarclient sends ints).
 * At most 15 digits: every such number is exact in a double, so no string can smuggle in 1e20.
 */
export const INT_LIKE_PATTERN = '^\\s*[+-]?\\d{1,15}\\s*$';

const INT_LIKE = new RegExp(INT_LIKE_PATTERN);

/** Upstream accepts ints and int-like strings; a number must be a safe integer (1e308 is "integral" but no count). */
export const toIntLike = (value: unknown): number | null => {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && INT_LIKE.test(value)) return Number.parseInt(value, 10);
  return null;
};

export const IsIntLike = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy({ name: 'isIntLike', validator: { validate: (value: unknown) => toIntLike(value) !== null } }, options);

export { MAX_INT32 } from '#domain/index.js';
