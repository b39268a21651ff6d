import { type ValidationOptions, ValidateBy } from 'class-validator';

/** Something other than white space: a name that prints as nothing names nothing. */
export const NOT_BLANK_PATTERN = '\\S';

/** A UUID in its 8-4-4-4-12 form, any case (Neutron's and Nova's ids; python-blazarclient's UUID_PATTERN). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const NOT_BLANK = new RegExp(NOT_BLANK_PATTERN);
const UUID = new RegExp(UUID_PATTERN);

export const isNotBlank = (value: unknown): boolean => typeof value === 'string' && NOT_BLANK.test(value);

/** The lower-case form, so that one network is one id; null when the value is no UUID. */
export const canonicalUuid = (value: unknown): string | null =>
  typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : null;

export const IsNotBlank = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy({ name: 'isNotBlank', validator: { validate: isNotBlank } }, options);

export const IsUuid = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy({ name: 'isUuid', validator: { validate: (value: unknown) => canonicalUuid(value) !== null } }, options);
