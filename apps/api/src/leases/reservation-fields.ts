import { IsArray, IsDefined, IsIn, IsOptional, IsString, ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';
import type { WireChanges, WireField, WireKind, WireValue, WireValues } from '#plugins/reservation-wire.js';
import { IsFlavorId, toFlavorId } from '../flavors/flavor.validators.js';
import { IsIntLike, toIntLike } from '../http/int-like.js';
import { IsUuid, canonicalUuid } from '../http/text.validators.js';
import type { JsonSchema } from '../openapi/json-schema.js';
import { Documented, DocumentedOptional, DocumentedWhenGiven, FLAVOR_ID, INT_LIKE, UUID } from '../openapi/dto-properties.js';

const malformed = (name: string): ValidationOptions => ({ message: `Malformed parameter ${name}` });

/** python-blazarclient sends a bool-or-none as the strings "True", "False" or "None"; JSON clients send true/false/null. */
const BOOL_OR_NONE_STRINGS: Readonly<Record<string, boolean | null>> = { true: true, false: false, none: null, null: null };

const toBoolOrNone = (value: unknown): { readonly value: boolean | null } | undefined => {
  if (value === null || typeof value === 'boolean') return { value };
  const word = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  return word !== undefined && Object.hasOwn(BOOL_OR_NONE_STRINGS, word)
    ? { value: BOOL_OR_NONE_STRINGS[word] as boolean | null }
    : undefined;
};

const IsBoolOrNone = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy({ name: 'isBoolOrNone', validator: { validate: (value: unknown) => toBoolOrNone(value) !== undefined } }, options);

/** The strings toBoolOrNone accepts, any case, surrounding blanks allowed. */
const BOOL_OR_NONE_PATTERN = `^\\s*(${Object.keys(BOOL_OR_NONE_STRINGS)
  .map((word) => [...word].map((c) => `[${c}${c.toUpperCase()}]`).join(''))
  .join('|')})\\s*$`;

/** What TypeScript records as a property's type. */
export type DesignType = typeof Object | typeof String | typeof Array;

/** The property's `design:type`, as TypeScript records it for a declared property. */
export const DesignedAs =
  (type: DesignType): PropertyDecorator =>
  (target, property) =>
    Reflect.defineMetadata('design:type', type, target, property);

/** How apps/api takes one kind of field: checked by class-validator, documented in OpenAPI, read for the type's module. */
interface KindRules<F extends WireField> {
  /** The checks of a given value, in the order they are made (each refusal in Blazar's words). */
  checks(field: F): PropertyDecorator[];
  /** The schema of a value (OpenAPI), before the field's own description. */
  schema(field: F): JsonSchema;
  /** The value handed to the type, from one the checks passed. */
  readonly read: (value: unknown) => WireValue;
  /** What a null is when the field is not required: the field left out, a value of the kind, or refused by the checks. */
  readonly null: 'absent' | 'value' | 'refused';
  /** The property's type as a declared DTO's would be (`design:type`): @nestjs/swagger reads it where the schema names none. */
  readonly designType: DesignType;
}

const KINDS: { readonly [K in WireKind]: KindRules<WireField & { readonly kind: K }> } = {
  count: {
    checks: ({ name }) => [IsIntLike(malformed(name))],
    schema: () => INT_LIKE,
    read: (value) => toIntLike(value) ?? 0,
    null: 'refused',
    designType: Object,
  },
  text: {
    checks: ({ name }) => [IsString(malformed(name))],
    schema: () => ({ type: 'string' }),
    read: (value) => value as string,
    null: 'absent',
    designType: String,
  },
  choice: {
    checks: ({ name, options }) => [IsIn([...options], malformed(name))],
    schema: ({ options }) => ({ enum: [...options] }),
    read: (value) => value as string,
    null: 'absent',
    designType: String,
  },
  texts: {
    checks: ({ name }) => [IsString({ each: true, ...malformed(name) }), IsArray(malformed(name))],
    schema: () => ({ type: 'array', items: { type: 'string' } }),
    read: (value) => value as readonly string[],
    null: 'absent',
    designType: Array,
  },
  uuid: {
    checks: ({ name, of }) => [IsString(malformed(name)), IsUuid({ message: `Malformed parameter ${name} (must be a ${of} UUID)` })],
    schema: () => UUID,
    read: (value) => canonicalUuid(value) ?? '',
    null: 'absent',
    designType: String,
  },
  'flavor-id': {
    checks: ({ name }) => [IsFlavorId(malformed(name))],
    schema: () => FLAVOR_ID,
    read: (value) => toFlavorId(value) ?? '',
    null: 'absent',
    designType: Object,
  },
  'bool-or-none': {
    checks: ({ name }) => [IsBoolOrNone({ message: `Malformed parameter ${name} (must be a bool value or None)` })],
    schema: () => ({ anyOf: [{ type: ['boolean', 'null'] }, { type: 'string', pattern: BOOL_OR_NONE_PATTERN }] }),
    read: (value) => toBoolOrNone(value)?.value ?? null,
    null: 'value',
    designType: Object,
  },
};

/** The rules of a field's kind. */
const rulesOf = (field: WireField): KindRules<WireField> => KINDS[field.kind];

const described = (schema: JsonSchema, description: string | undefined): JsonSchema =>
  description === undefined ? schema : { ...schema, description };

/** A field a body may leave out: absent (or, for most kinds, null) skips its checks. */
const optional = (field: WireField, schema: JsonSchema): PropertyDecorator[] => {
  const kind = rulesOf(field);
  if (kind.null === 'absent') return [DesignedAs(kind.designType), DocumentedOptional(schema), ...kind.checks(field), IsOptional()];
  return [
    DesignedAs(kind.designType),
    DocumentedWhenGiven(schema),
    ...kind.checks(field),
    ValidateIf((body: Record<string, unknown>) => body[field.name] !== undefined),
  ];
};

/** A field of a new reservation: its decorators (class-validator's and OpenAPI's), in the order they apply. */
export const requestProperty = (field: WireField, required: boolean): PropertyDecorator[] => {
  const schema = described(rulesOf(field).schema(field), field.requestDescription ?? field.description);
  if (!required) return optional(field, schema);
  const kind = rulesOf(field);
  return [
    DesignedAs(kind.designType),
    Documented(schema),
    ...kind.checks(field),
    IsDefined({ message: `Missing parameter ${field.name}` }),
  ];
};

/** A field of a change: never required. */
export const changeProperty = (field: WireField): PropertyDecorator[] =>
  optional(field, described(rulesOf(field).schema(field), field.description));

/** A new reservation's values for its type, from the body its DTO passed: by the domain's names, null for a field left out. */
export const requestValues = (fields: readonly WireField[], body: Readonly<Record<string, unknown>>): WireValues =>
  Object.fromEntries(
    fields.map((field) => {
      const value = body[field.name];
      return [field.field, value === undefined || value === null ? null : rulesOf(field).read(value)];
    }),
  );

/** A change's given fields, from the body its DTO passed: by the domain's names, a kind whose values include null wrapped. */
export const changedValues = (fields: readonly WireField[], body: Readonly<Record<string, unknown>>): WireChanges =>
  Object.fromEntries(
    fields.flatMap((field) => {
      const { null: nullIs, read } = rulesOf(field);
      const value = body[field.name];
      if (value === undefined || (value === null && nullIs === 'absent')) return [];
      return [[field.field, nullIs === 'value' ? { value: read(value) } : read(value)]];
    }),
  );

/** `a`, `a or b`, `a, b or c`. */
export const alternatives = (words: readonly string[]): string =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1) ?? ''}`;

/**
 * GET /v1/availability's parameters for a reservation: the fields types take as query parameters, in the order types list them, each
 * described by what it is to every type that takes it (`amount`: instances or floating IPs).
 */
export const reservationQueryParameters = (
  fields: readonly WireField[],
  declarations: readonly WireField[],
): readonly { readonly name: string; readonly description: string }[] =>
  fields.flatMap(({ name }) => {
    const meanings = [
      ...new Set(declarations.filter((field) => field.name === name).flatMap(({ query }) => (query === undefined ? [] : [query]))),
    ];
    return meanings.length === 0 ? [] : [{ name, description: alternatives(meanings) }];
  });
