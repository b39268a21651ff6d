import type { Type } from '@nestjs/common';
import { ApiExtension, ApiProperty, type ApiPropertyOptions, ApiSchema } from '@nestjs/swagger';
import {
  BOOLEAN_VALUES,
  EXTRA_SPEC_KEY_PATTERN,
  EXTRA_SPEC_VALUE_MAX_LENGTH,
  FLAVOR_ID_PATTERN,
  NUMBER_LIKE_PATTERN,
} from '../flavors/flavor.validators.js';
import { BLAZAR_DATE_PATTERN } from '../http/blazar-dates.js';
import { INT_LIKE_PATTERN } from '../http/int-like.js';
import { NOT_BLANK_PATTERN, UUID_PATTERN } from '../http/text.validators.js';
import type { JsonSchema } from './json-schema.js';

/**
 * @nestjs/swagger decorators for the class-validator DTOs: the schema of each rule the DTOs use,
 * and one decorator per presence a class-validator condition allows. The e2e suite checks, value
 * by value, that each schema accepts a body exactly when validateBody does.
 */

/** IsIntLike (http/int-like.ts). */
export const INT_LIKE: JsonSchema = {
  anyOf: [
    { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    { type: 'string', pattern: INT_LIKE_PATTERN },
  ],
  description: 'An integer, or a string holding one of at most 15 digits (e.g. "2").',
};

/** IsNumberLike (flavors/flavor.validators.ts). */
export const NUMBER_LIKE: JsonSchema = {
  anyOf: [{ type: 'number' }, { type: 'string', pattern: NUMBER_LIKE_PATTERN }],
  description: 'A number, or a string holding a decimal one (e.g. "1.5").',
};

/** IsFlavorId (flavors/flavor.validators.ts). */
export const FLAVOR_ID: JsonSchema = {
  anyOf: [
    { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    { type: 'string', pattern: FLAVOR_ID_PATTERN },
  ],
  description:
    'A non-negative integer (stored as its decimal string), or 1 to 255 letters, digits, `. _-`, not starting or ending with a space.',
};

/** IsExtraSpecs (flavors/flavor.validators.ts). */
export const EXTRA_SPECS: JsonSchema = {
  type: 'object',
  propertyNames: { pattern: EXTRA_SPEC_KEY_PATTERN },
  additionalProperties: { type: 'string', maxLength: EXTRA_SPEC_VALUE_MAX_LENGTH },
  description: "String values by key (Nova's extra specs).",
};

/** IsIn(BOOLEAN_VALUES): Nova's booleans, as JSON booleans or the strings it reads as one. */
export const NOVA_BOOLEAN: JsonSchema = {
  anyOf: [{ type: 'boolean' }, { type: 'string', enum: BOOLEAN_VALUES.filter((value) => typeof value === 'string') }],
};

/** IsString + IsUuid (http/text.validators.ts). */
export const UUID: JsonSchema = {
  type: 'string',
  pattern: UUID_PATTERN,
  description: 'A UUID (8-4-4-4-12 hexadecimal digits, any case; stored in lower case).',
};

/** IsString + IsNotBlank (+ MaxLength). */
export const notBlank = (maxLength: number): JsonSchema => ({
  type: 'string',
  maxLength,
  pattern: NOT_BLANK_PATTERN,
  description: 'Not empty, not only white space.',
});

/** What parseBlazarDate (http/blazar-dates.ts) reads after the DTO: `YYYY-MM-DD HH:MM` in UTC as upstream's strptime does, or `now`. */
export const REQUEST_DATE: JsonSchema = {
  type: 'string',
  pattern: `^now$|${BLAZAR_DATE_PATTERN}`,
  description:
    'UTC date `YYYY-MM-DD HH:MM` (leading zeros optional, hour 0-23: `24:00` is refused; the date must exist), or `now` (the current minute).',
  examples: ['2030-01-01 12:00'],
};

/** Swagger's option types know OpenAPI 3.0's keywords; 3.1's (`const`, `propertyNames`, type lists) pass through unchanged. */
const apiProperty = (schema: JsonSchema, presence: { readonly required: boolean; readonly nullable?: boolean }): PropertyDecorator =>
  ApiProperty({ ...schema, ...presence } as ApiPropertyOptions);

/** For @IsDefined: the key must be there, and not null. */
export const Documented = (schema: JsonSchema): PropertyDecorator => apiProperty(schema, { required: true });

/** For @IsOptional: absent or null skips the validators. */
export const DocumentedOptional = (schema: JsonSchema): PropertyDecorator => apiProperty(schema, { required: false, nullable: true });

/** For @ValidateIf(value !== undefined): absent skips the validators, null does not. */
export const DocumentedWhenGiven = (schema: JsonSchema): PropertyDecorator => apiProperty(schema, { required: false });

const CHECKED_BY_PARSER = Symbol('leasehold:checked-by-parser');

/** The documented format is the request parser's to check, after the DTO (dates, reservation items). */
export const CheckedByParser = (): PropertyDecorator => (target, property) =>
  Reflect.defineMetadata(CHECKED_BY_PARSER, true, target, property);

export const checkedByParser = (dto: Type, property: string): boolean =>
  Reflect.getMetadata(CHECKED_BY_PARSER, dto.prototype as object, property) === true;

/** The keywords a DTO's object schema may add (ApiSchema spreads them into the schema; its type names only `description`). */
type ObjectKeywords = Pick<JsonSchema, 'description' | 'additionalProperties' | 'propertyNames'>;

/** A request body DTO: its schema is named after the class, and says so in `x-leasehold-dto`. */
export const RequestSchema =
  (keywords: ObjectKeywords = {}): ClassDecorator =>
  (target) => {
    ApiSchema(keywords as { description?: string })(target);
    ApiExtension('x-leasehold-dto', target.name)(target);
  };
