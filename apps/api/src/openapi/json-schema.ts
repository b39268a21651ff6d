/** The JSON Schema 2020-12 subset this document uses (OpenAPI 3.1 schemas are JSON Schema 2020-12). */
export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';

export interface JsonSchema {
  $ref?: string;
  title?: string;
  description?: string;
  examples?: unknown[];
  type?: JsonType | JsonType[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  minProperties?: number;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  not?: JsonSchema;
  [extension: `x-${string}`]: unknown;
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const ANNOTATIONS = new Set(['title', 'description', 'examples']);

/** True when the schema asserts nothing (any JSON value, null included, is valid). */
export const acceptsAnything = (schema: JsonSchema): boolean => Object.keys(schema).every((key) => ANNOTATIONS.has(key) || key.startsWith('x-'));

/** The same schema, also accepting `null`. */
export const orNull = (schema: JsonSchema): JsonSchema => {
  if (acceptsAnything(schema)) return schema;
  const { title, description, examples, ...assertions } = schema;
  const annotations: JsonSchema = {
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(examples === undefined ? {} : { examples }),
  };
  const keys = Object.keys(assertions);
  if (typeof assertions.type === 'string' && !keys.some((key) => ['enum', 'const', 'anyOf', 'allOf', '$ref'].includes(key))) {
    return { ...annotations, ...assertions, type: [assertions.type, 'null'] };
  }
  if (assertions.enum !== undefined && keys.every((key) => key === 'enum')) return { ...annotations, enum: [...assertions.enum, null] };
  if (assertions.anyOf !== undefined && keys.every((key) => key === 'anyOf')) return { ...annotations, anyOf: [...assertions.anyOf, { type: 'null' }] };
  return { ...annotations, anyOf: [assertions, { type: 'null' }] };
};
