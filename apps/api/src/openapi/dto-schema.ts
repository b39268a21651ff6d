import { AFFINITY_STRINGS } from '../leases/lease.dto.js';
import { type MetadataStorage, ValidationTypes, getMetadataStorage } from 'class-validator';
import { EXTRA_SPEC_KEY_PATTERN, EXTRA_SPEC_VALUE_MAX_LENGTH, FLAVOR_ID_PATTERN, NUMBER_LIKE_PATTERN } from '../flavors/flavor.validators.js';
import { INT_LIKE_PATTERN } from '../http/int-like.js';
import { NOT_BLANK_PATTERN, UUID_PATTERN } from '../http/text.validators.js';
import { type JsonSchema, orNull } from './json-schema.js';

/**
 * JSON Schemas generated from class-validator's metadata: the very decorators `validateBody` runs,
 * read from the same metadata storage, so the document cannot drift from the validation.
 */

/** class-validator keeps this class out of its public exports; its shape is what the storage returns. */
type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/** The strings toAffinity (leases/lease.dto.ts) accepts, any case, surrounding blanks allowed. */
const AFFINITY_PATTERN = `^\\s*(${Object.keys(AFFINITY_STRINGS).map((word) => word.split('').map((c) => `[${c}${c.toUpperCase()}]`).join('')).join('|')})\\s*$`;

type Converter = (meta: ValidationMetadata) => JsonSchema;

/** One entry per decorator name the DTOs use; any other decorator is reported as a problem, never guessed. */
const CONVERTERS: Readonly<Record<string, Converter>> = {
  [ValidationTypes.IS_DEFINED]: () => ({}),
  isString: () => ({ type: 'string' }),
  isBoolean: () => ({ type: 'boolean' }),
  isArray: () => ({ type: 'array' }),
  isInt: () => ({ type: 'integer' }),
  maxLength: (meta) => ({ maxLength: Number(meta.constraints[0]) }),
  minLength: (meta) => ({ minLength: Number(meta.constraints[0]) }),
  isIn: (meta) => ({ enum: [...(meta.constraints[0] as unknown[])] }),
  isIntLike: () => ({
    anyOf: [
      { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      { type: 'string', pattern: INT_LIKE_PATTERN },
    ],
    description: 'An integer, or a string holding one of at most 15 digits (e.g. "2").',
  }),
  isNotBlank: () => ({ pattern: NOT_BLANK_PATTERN, description: 'Not empty, not only white space.' }),
  isUuid: () => ({ pattern: UUID_PATTERN, description: 'A UUID (8-4-4-4-12 hexadecimal digits, any case; stored in lower case).' }),
  isNumberLike: () => ({
    anyOf: [{ type: 'number' }, { type: 'string', pattern: NUMBER_LIKE_PATTERN }],
    description: 'A number, or a string holding a decimal one (e.g. "1.5").',
  }),
  isFlavorId: () => ({
    anyOf: [{ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, { type: 'string', pattern: FLAVOR_ID_PATTERN }],
    description: 'A non-negative integer (stored as its decimal string), or 1 to 255 letters, digits, `. _-`, not starting or ending with a space.',
  }),
  isAffinity: () => ({
    anyOf: [{ type: ['boolean', 'null'] }, { type: 'string', pattern: AFFINITY_PATTERN }],
    description: 'true (one host), false (one host each) or null (anywhere); also the strings "True", "False", "None" the clients send.',
  }),
  isExtraSpecs: () => ({
    type: 'object',
    propertyNames: { pattern: EXTRA_SPEC_KEY_PATTERN },
    additionalProperties: { type: 'string', maxLength: EXTRA_SPEC_VALUE_MAX_LENGTH },
    description: 'String values by key (Nova\'s extra specs).',
  }),
};

export interface DtoSchemaOptions {
  /** Documentation layered over a generated property (e.g. the date format the request parser checks); may not contradict it. */
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  /** Keywords added to the object schema itself (description, additionalProperties...). */
  readonly object?: JsonSchema;
}

export interface DtoSchemaResult {
  readonly schema: JsonSchema;
  /** Decorators that could not be expressed; the document lists them, and the tests require none. */
  readonly problems: readonly string[];
}

/** Exactly the metadata `validateSync(instance, {})` reads: no groups, no `always`, no schema name. */
export const validationMetadataOf = (dto: Function): ValidationMetadata[] => getMetadataStorage().getTargetValidationMetadatas(dto, '', false, false);

/** The properties class-validator validates on a DTO, in declaration order. */
export const validatedProperties = (dto: Function): string[] => [...new Set(validationMetadataOf(dto).map((meta) => meta.propertyName))];

/** Shallow merge; a keyword set twice with different values is kept apart in `allOf`. */
const merge = (fragments: readonly JsonSchema[]): JsonSchema => {
  const merged: Record<string, unknown> = {};
  const apart: JsonSchema[] = [];
  for (const fragment of fragments) {
    const clash = Object.entries(fragment).some(([key, value]) => key in merged && JSON.stringify(merged[key]) !== JSON.stringify(value));
    if (clash) apart.push(fragment);
    else Object.assign(merged, fragment);
  }
  return apart.length === 0 ? (merged as JsonSchema) : { ...(merged as JsonSchema), allOf: apart };
};

/**
 * Whether the property's validators run for this value. class-validator skips every validator of
 * a property when one of its conditions (`@IsOptional`, `@ValidateIf`) is false, so asking those
 * same conditions tells whether a missing or null value is accepted.
 */
const validatedWhen = (dto: Function, property: string, conditions: readonly ValidationMetadata[], value: undefined | null): boolean =>
  conditions.every((meta) => {
    const probe = Object.create(dto.prototype as object) as Record<string, unknown>;
    if (value !== undefined) probe[property] = value;
    try {
      return Boolean((meta.constraints[0] as (object: unknown, value: unknown) => unknown)(probe, value));
    } catch {
      return false;
    }
  });

const describe = (meta: ValidationMetadata): string => `${meta.name ?? meta.type}${meta.each ? ' (each)' : ''}`;

export const dtoSchema = (dto: Function, options: DtoSchemaOptions = {}): DtoSchemaResult => {
  const problems: string[] = [];
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const meta of validationMetadataOf(dto)) byProperty.set(meta.propertyName, [...(byProperty.get(meta.propertyName) ?? []), meta]);

  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [property, metas] of byProperty) {
    const conditions = metas.filter((meta) => meta.type === ValidationTypes.CONDITIONAL_VALIDATION);
    const validators = metas.filter((meta) => meta.type !== ValidationTypes.CONDITIONAL_VALIDATION && meta.type !== ValidationTypes.WHITELIST);
    const fragments: JsonSchema[] = [];
    // decorators apply bottom-up; list them as written
    for (const meta of [...validators].reverse()) {
      const converter = meta.name === undefined ? undefined : CONVERTERS[meta.name];
      if (converter === undefined || meta.validateIf !== undefined) {
        problems.push(`${dto.name}.${property}: @${describe(meta)} is not expressed in the schema`);
        continue;
      }
      fragments.push(meta.each ? { items: converter(meta) } : converter(meta));
    }
    const refinement = options.properties?.[property] ?? {};
    for (const [key, value] of Object.entries(refinement)) {
      const generated = fragments.find((fragment) => key in fragment);
      if (generated !== undefined && key !== 'description' && JSON.stringify(generated[key as keyof JsonSchema]) !== JSON.stringify(value)) {
        problems.push(`${dto.name}.${property}: documentation overrides the validated "${key}"`);
      }
    }
    const schema = { ...merge(fragments), ...refinement };
    // validators reject a missing value unless a condition skips them (IsDefined always does; the others reject undefined)
    if (validators.length > 0 && validatedWhen(dto, property, conditions, undefined)) required.push(property);
    properties[property] = validatedWhen(dto, property, conditions, null) ? schema : orNull(schema);
  }
  for (const property of Object.keys(options.properties ?? {})) {
    if (!byProperty.has(property)) problems.push(`${dto.name}.${property}: documented but not validated by the DTO`);
  }
  const schema: JsonSchema = {
    type: 'object',
    ...options.object,
    properties,
    ...(required.length === 0 ? {} : { required }),
    'x-leasehold-dto': dto.name,
  };
  return { schema, problems };
};
