import { type ValidationOptions, ValidateBy } from 'class-validator';

/** Upstream accepts ints and int-like strings ("2") for counts; python-blazarclient sends ints. */
export const toIntLike = (value: unknown): number | null => {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  return null;
};

export const IsIntLike = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy({ name: 'isIntLike', validator: { validate: (value: unknown) => toIntLike(value) !== null } }, options);
