import { type ValidationOptions, ValidateBy } from 'class-validator';

/** Nova's flavor id: 1 to 255 letters, digits, `. _-`, not starting or ending with a space. */
export const FLAVOR_ID_PATTERN = '^(?! )[a-zA-Z0-9. _-]{1,255}(?<! )$';
/** Nova's extra spec keys. */
export const EXTRA_SPEC_KEY_PATTERN = '^[a-zA-Z0-9-_:. ]{1,255}$';
export const EXTRA_SPEC_VALUE_MAX_LENGTH = 255;
/** A decimal number held in a string, as Nova accepts for `rxtx_factor`. */
export const NUMBER_LIKE_PATTERN = '^[0-9]+(\\.[0-9]+)?$';

/** Nova's boolean parameter values. */
export const BOOLEAN_VALUES: readonly (boolean | string)[] = [
  true,
  'True',
  'TRUE',
  'true',
  '1',
  'ON',
  'On',
  'on',
  'YES',
  'Yes',
  'yes',
  false,
  'False',
  'FALSE',
  'false',
  '0',
  'OFF',
  'Off',
  'off',
  'NO',
  'No',
  'no',
];

export const toBoolean = (value: boolean | string): boolean =>
  value === true || ['true', '1', 'on', 'yes'].includes(String(value).toLowerCase());

export const toNumberLike = (value: unknown): number | null => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && new RegExp(NUMBER_LIKE_PATTERN).test(value)) return Number(value);
  return null;
};

/** A flavor id as Nova takes it: a string of its id pattern, or a non-negative integer (stored as its decimal string). */
export const toFlavorId = (value: unknown): string | null => {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : null;
  if (typeof value === 'string' && new RegExp(FLAVOR_ID_PATTERN).test(value)) return value;
  return null;
};

const isExtraSpecs = (value: unknown): boolean => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const key = new RegExp(EXTRA_SPEC_KEY_PATTERN);
  return Object.entries(value).every(
    ([name, spec]) => key.test(name) && typeof spec === 'string' && spec.length <= EXTRA_SPEC_VALUE_MAX_LENGTH,
  );
};

export const IsNumberLike = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy({ name: 'isNumberLike', validator: { validate: (value: unknown) => toNumberLike(value) !== null } }, options);

export const IsFlavorId = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy({ name: 'isFlavorId', validator: { validate: (value: unknown) => toFlavorId(value) !== null } }, options);

export const IsExtraSpecs = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy({ name: 'isExtraSpecs', validator: { validate: isExtraSpecs } }, options);
