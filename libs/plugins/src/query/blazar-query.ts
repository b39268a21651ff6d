import { type DomainError, invalid } from '#domain/shared/errors.js';
import type { HostColumns, HostSnapshot } from '../physical-host/host-snapshot.js';
import { type JsonValue, parseJson } from './json-value.js';
import { pythonStr } from './python-repr.js';

export type QueryOperator = '==' | '!=' | '>=' | '<=' | '>' | '<';

/** One `[op, "$field", "value"]` requirement; `field` is stored without its `$`. */
export interface QueryCondition {
  readonly field: string;
  readonly op: QueryOperator;
  readonly value: string;
}

/** Blazar's `hypervisor_properties` / `resource_properties`: conditions that must all hold. */
export interface HostQuery {
  readonly conditions: readonly QueryCondition[];
}

export const EMPTY_QUERY: HostQuery = { conditions: [] };

const OPERATORS: ReadonlyMap<string, QueryOperator> = new Map([
  ['==', '=='],
  ['=', '=='],
  ['!=', '!='],
  ['>=', '>='],
  ['<=', '<='],
  ['>', '>'],
  ['<', '<'],
]);

/** Compile-time exhaustive over HostColumns: a new column can't be silently taken for a capability. */
const COLUMN_NAMES = {
  id: true,
  hypervisor_hostname: true,
  service_name: true,
  vcpus: true,
  memory_mb: true,
  local_gb: true,
  cpu_info: true,
  hypervisor_type: true,
  hypervisor_version: true,
  availability_zone: true,
  status: true,
  trust_id: true,
  reservable: true,
} as const satisfies Record<keyof HostColumns, true>;

type ColumnName = keyof typeof COLUMN_NAMES;

const isColumnName = (field: string): field is ColumnName => Object.hasOwn(COLUMN_NAMES, field);

const JSON_WHITESPACE_ONLY = /^[ \t\n\r]*$/;

/**
 * Parses a requirement string as upstream's `convert_requirements` does. Throws MALFORMED_REQUIREMENTS
 * with the value printed as Python prints it, or the raw text when it is not JSON at all.
 */
export const parseQuery = (text: string): HostQuery => {
  if (JSON_WHITESPACE_ONLY.test(text)) return EMPTY_QUERY;
  const value = parseJson(text);
  if (value === undefined) throw malformed(text);
  const conditions = toConditions(value);
  if (conditions === undefined) throw malformed(pythonStr(value));
  return { conditions };
};

const malformed = (requirements: string): DomainError => invalid('MALFORMED_REQUIREMENTS', `Malformed requirements ${requirements}`);

const toConditions = (value: JsonValue): readonly QueryCondition[] | undefined => {
  if (value.kind !== 'array') return undefined;
  if (value.items.length === 0) return [];
  const single = toCondition(value.items);
  if (single !== undefined) return [single];
  const [head, ...rest] = value.items;
  if (head?.kind !== 'string' || head.value !== 'and' || rest.length === 0) return undefined;
  const conditions = rest.map((item) => (item.kind === 'array' ? toCondition(item.items) : undefined));
  return conditions.every((condition): condition is QueryCondition => condition !== undefined) ? conditions : undefined;
};

const toCondition = (items: readonly JsonValue[]): QueryCondition | undefined => {
  if (items.length !== 3) return undefined;
  const [op, field, value] = items.map((item) => (item.kind === 'string' ? item.value : undefined));
  const operator = op === undefined ? undefined : OPERATORS.get(op);
  if (operator === undefined || field === undefined || value === undefined) return undefined;
  if (field.length < 2 || !field.startsWith('$') || value.length === 0) return undefined;
  return { field: field.slice(1), op: operator, value };
};

/** Upstream concatenates hypervisor_properties and resource_properties: both must hold. */
export const combineQueries = (a: HostQuery, b: HostQuery): HostQuery => ({ conditions: [...a.conditions, ...b.conditions] });

/** The capability (non-column) names a query depends on, each once, in order of appearance. */
export const referencedProperties = (query: HostQuery): string[] => [
  ...new Set(query.conditions.map((condition) => condition.field).filter((field) => !isColumnName(field))),
];

export const matchesHost = (query: HostQuery, host: HostSnapshot): boolean =>
  query.conditions.every((condition) => matchesCondition(condition, host));

const matchesCondition = (condition: QueryCondition, host: HostSnapshot): boolean => {
  if (isColumnName(condition.field)) return matchesColumn(condition, condition.field, host.columns[condition.field]);
  return matchesCapability(condition, host.capabilities);
};

const matchesCapability = (condition: QueryCondition, capabilities: Readonly<Record<string, string>>): boolean => {
  const capability = Object.hasOwn(capabilities, condition.field) ? capabilities[condition.field] : undefined;
  return capability !== undefined && holds(condition.op, compareLoosely(capability, condition.value));
};

/** A resource of another kind (a network segment): its own fields by `columns`' names, as a host's columns; the others capabilities. */
export interface QueriedResource {
  readonly columns: Readonly<Record<string, string | number | null>>;
  readonly capabilities: Readonly<Record<string, string>>;
}

/** Whether a query holds for a resource of another kind, with a host's semantics for its columns and capabilities. */
export const matchesResource = (query: HostQuery, resource: QueriedResource): boolean =>
  query.conditions.every((condition) =>
    Object.hasOwn(resource.columns, condition.field)
      ? matchesColumn(condition, condition.field, resource.columns[condition.field] ?? null)
      : matchesCapability(condition, resource.capabilities),
  );

/** The capability names a query over such a resource depends on: its fields that are not columns, each once. */
export const resourceProperties = (query: HostQuery, columns: readonly string[]): string[] => [
  ...new Set(query.conditions.map((condition) => condition.field).filter((field) => !columns.includes(field))),
];

/** SQL semantics, as upstream filters columns in the database: "null" means NULL, NULL compares with nothing. */
const matchesColumn = (condition: QueryCondition, name: string, actual: string | number | boolean | null): boolean => {
  if (condition.value === 'null') return matchesNull(condition.op, actual === null);
  if (actual === null) return false;
  return holds(condition.op, compareColumn(name, actual, condition.value));
};

/** `col == NULL` / `col != NULL` become IS NULL / IS NOT NULL; any other comparison with NULL is unknown. */
const matchesNull = (op: QueryOperator, isNull: boolean): boolean => (op === '==' ? isNull : op === '!=' && !isNull);

const compareColumn = (name: string, actual: string | number | boolean, value: string): number | undefined => {
  switch (typeof actual) {
    case 'number': {
      const expected = parseNumber(value);
      return expected === undefined ? undefined : compareValues(actual, expected);
    }
    case 'boolean': {
      const expected = parseBoolean(value);
      return expected === undefined ? undefined : compareValues(Number(actual), Number(expected));
    }
    case 'string':
      // Upstream's id is an integer column; ours is its decimal string.
      return name === 'id' ? compareLoosely(actual, value) : compareValues(actual, value);
    default: {
      const _never: never = actual;
      return _never;
    }
  }
};

/**
 * What a capability's value is equal to under `==` (compareLoosely): two values are equal exactly when their keys are,
 * so a capability index can be keyed by it.
 */
export const equalityKey = (value: string): string => {
  const number = parseNumber(value);
  return number === undefined ? `s:${value}` : `n:${number}`;
};

/** The `==` conditions on capabilities (not columns): the ones an index of capability values can answer. */
export const capabilityEqualities = (query: HostQuery): readonly QueryCondition[] =>
  query.conditions.filter((condition) => condition.op === '==' && !isColumnName(condition.field));

/**
 * Capabilities compare as numbers when both sides are numbers, as strings otherwise.
 * Deliberate difference from upstream, which always compares them as strings ("10" < "9").
 */
const compareLoosely = (actual: string, expected: string): number => {
  const actualNumber = parseNumber(actual);
  const expectedNumber = parseNumber(expected);
  if (actualNumber !== undefined && expectedNumber !== undefined) return compareValues(actualNumber, expectedNumber);
  return compareValues(actual, expected);
};

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const parseNumber = (text: string): number | undefined => {
  const trimmed = text.trim();
  const value = NUMBER.test(trimmed) ? Number(trimmed) : Number.NaN;
  return Number.isFinite(value) ? value : undefined;
};

const BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['True', true],
  ['1', true],
  ['false', false],
  ['False', false],
  ['0', false],
]);

const parseBoolean = (text: string): boolean | undefined => BOOLEANS.get(text);

/** Strings compare by UTF-16 code unit, which orders like Python for everything in the BMP. */
const compareValues = <T extends string | number>(a: T, b: T): number => (a < b ? -1 : a > b ? 1 : 0);

const holds = (op: QueryOperator, comparison: number | undefined): boolean => {
  if (comparison === undefined) return false;
  switch (op) {
    case '==':
      return comparison === 0;
    case '!=':
      return comparison !== 0;
    case '>=':
      return comparison >= 0;
    case '<=':
      return comparison <= 0;
    case '>':
      return comparison > 0;
    case '<':
      return comparison < 0;
    default: {
      const _never: never = op;
      return _never;
    }
  }
};
