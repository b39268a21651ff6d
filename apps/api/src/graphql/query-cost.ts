import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  valueFromASTUntyped,
} from 'graphql';
import { DEFAULT_PAGE, MAX_PAGE } from './lease-cursor.js';

/** Items of a list nothing sizes: every host, every floating IP. */
export const LIST_ESTIMATE = 10;
/**
 * A lease's history: its own stream and the streams of the hosts and addresses it held, as they are
 * while a few leases have booked each (a host booked for years has a longer one: the rows budget bounds
 * that read). Leases of one operation that share a host read its stream once, so a page reads less.
 */
export const HISTORY_ROWS = 40;
/** The bookings of one lease's reservations (read for all the reservations of a level at once). */
export const BOOKINGS_PER_LEASE = 10;
/** A host's bookings not yet ended. */
export const BOOKINGS_PER_HOST = 20;
/** An availability search, a usage report or a capacity table: REST's own reads, counted as this many rows. */
export const REPORT_ROWS = 100;

interface FieldReads {
  /** Rows read each time the field resolves. */
  readonly rows: number;
  /** How many objects below it resolve their own fields (its list's items, or 1). */
  readonly items: number;
}

const each =
  (rows: number, items = rows) =>
  (): FieldReads => ({ rows, items });

/**
 * The fields that read, and what: any other field is in its parent's row (a lease's reservations and
 * events are in the lease's row) and reads nothing; a list of them takes the page size given above it,
 * else LIST_ESTIMATE items.
 */
const READS: Readonly<Record<string, (page: number) => FieldReads>> = {
  // one lease more than the page, to know whether another page follows
  'Query.leases': (page) => ({ rows: page + 1, items: 1 }),
  'Query.lease': each(1),
  'Query.hosts': each(LIST_ESTIMATE),
  'Query.host': each(1),
  'Query.floatingIps': each(LIST_ESTIMATE),
  'Query.availability': each(REPORT_ROWS, 1),
  'Query.usage': each(REPORT_ROWS, 1),
  'Query.capacity': each(REPORT_ROWS, 1),
  'Lease.history': each(HISTORY_ROWS),
  // its reservations' bookings are counted per lease (BOOKINGS_PER_LEASE), not per reservation
  'Lease.reservations': each(0, 1),
  'Reservation.allocations': each(BOOKINGS_PER_LEASE),
  'Host.allocations': each(BOOKINGS_PER_HOST),
};

export interface Estimate {
  /** The most rows the operation is expected to read (an upper bound for data of the usual shape: docs/graphql.md). */
  readonly rows: number;
  /**
   * The values its answer may hold: each field answered, times the objects above it. Reads bound the
   * work below the resolvers; this bounds the answer built from them (9,000 aliases of `id` on a page
   * of 500 leases read 501 rows and answer 4.5 million values).
   */
  readonly values: number;
  /** Page sizes asked for that are not integers from 1 to MAX_PAGE, as given (literal or variable). */
  readonly badPages: readonly unknown[];
}

interface Walk {
  readonly schema: GraphQLSchema;
  readonly operation: OperationDefinitionNode;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly variables: Readonly<Record<string, unknown>>;
  /** Fragments being expanded on this path: a cycle is a validation error, not an endless walk. */
  readonly expanding: ReadonlySet<string>;
  readonly badPages: unknown[];
}

const fieldOf = (type: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined =>
  isObjectType(type) || isInterfaceType(type) ? type.getFields()[name] : undefined;

const readsOf = (parent: GraphQLNamedType, name: string): ((page: number) => FieldReads) | undefined => {
  const own = READS[`${parent.name}.${name}`];
  if (own !== undefined || !isObjectType(parent)) return own;
  return parent
    .getInterfaces()
    .map((face) => READS[`${face.name}.${name}`])
    .find((rule) => rule !== undefined);
};

/** `first` as the resolver will get it: a literal, a variable's value, or the variable's default. */
const givenPage = (walk: Walk, field: FieldNode): unknown => {
  const value = field.arguments?.find((argument) => argument.name.value === 'first')?.value;
  if (value === undefined) return null;
  if (value.kind !== Kind.VARIABLE) return valueFromASTUntyped(value);
  const name = value.name.value;
  if (Object.hasOwn(walk.variables, name)) return walk.variables[name];
  const fallback = walk.operation.variableDefinitions?.find((definition) => definition.variable.name.value === name)?.defaultValue;
  return fallback === undefined ? null : valueFromASTUntyped(fallback);
};

const pageOf = (walk: Walk, field: FieldNode): number => {
  const given = givenPage(walk, field);
  if (given === null || given === undefined) return DEFAULT_PAGE;
  if (typeof given === 'number' && Number.isInteger(given) && given >= 1 && given <= MAX_PAGE) return given;
  walk.badPages.push(given);
  return MAX_PAGE;
};

interface Cost {
  readonly rows: number;
  readonly values: number;
}

const NOTHING: Cost = { rows: 0, values: 0 };

const plus = (a: Cost, b: Cost): Cost => ({ rows: a.rows + b.rows, values: a.values + b.values });

const selectionsCost = (walk: Walk, parent: GraphQLNamedType, selections: SelectionSetNode, page: number | null, times: number): Cost => {
  let cost = NOTHING;
  for (const selection of selections.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!selection.name.value.startsWith('__')) cost = plus(cost, fieldCost(walk, parent, selection, page, times));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const type = selection.typeCondition === undefined ? parent : (walk.schema.getType(selection.typeCondition.name.value) ?? parent);
      cost = plus(cost, selectionsCost(walk, type, selection.selectionSet, page, times));
    } else {
      const name = selection.name.value;
      const fragment = walk.fragments.get(name);
      if (fragment === undefined || walk.expanding.has(name)) continue;
      const type = walk.schema.getType(fragment.typeCondition.name.value) ?? parent;
      const inner = { ...walk, expanding: new Set([...walk.expanding, name]) };
      cost = plus(cost, selectionsCost(inner, type, fragment.selectionSet, page, times));
    }
  }
  return cost;
};

const fieldCost = (walk: Walk, parent: GraphQLNamedType, field: FieldNode, page: number | null, times: number): Cost => {
  const definition = fieldOf(parent, field.name.value);
  if (definition === undefined) return NOTHING;
  const own = definition.args.some((argument) => argument.name === 'first') ? pageOf(walk, field) : page;
  const list = isListType(getNullableType(definition.type));
  const reads = readsOf(parent, field.name.value)?.(own ?? LIST_ESTIMATE) ?? { rows: 0, items: list ? (own ?? LIST_ESTIMATE) : 1 };
  // a leaf answers a value per item; an object answers what is selected of it
  if (field.selectionSet === undefined) return { rows: times * reads.rows, values: times * reads.items };
  const below = selectionsCost(walk, getNamedType(definition.type), field.selectionSet, list ? null : own, times * reads.items);
  return { rows: times * reads.rows + below.rows, values: times + below.values };
};

/**
 * The rows an operation will read and the values it will answer, from its document and its variables,
 * before anything runs: each field that reads counts its rows (READS) times the objects above it, each
 * field answered counts one value per object it is answered for. Aliases and fragments count
 * where they are spread; introspection is not counted (it is switched on or off on its own).
 */
export const estimate = (
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
): Estimate => {
  const root = schema.getRootType(operation.operation);
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [],
    ),
  );
  const walk: Walk = { schema, operation, fragments, variables, expanding: new Set(), badPages: [] };
  const { rows, values } = root === null || root === undefined ? NOTHING : selectionsCost(walk, root, operation.selectionSet, null, 1);
  return { rows, values, badPages: walk.badPages };
};
