import {
  type ASTVisitor,
  type FieldNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLSchema,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isInterfaceType,
  type GraphQLNamedType,
} from 'graphql';
import { MAX_PAGE } from './lease-cursor.js';

export interface QueryLimits {
  readonly maxDepth: number;
  readonly maxCost: number;
}

/** How many items a list without a page size is counted as. */
export const LIST_ESTIMATE = 10;

interface Walk {
  readonly context: ValidationContext;
  readonly schema: GraphQLSchema;
  /** Fragments being expanded on this path: a cycle is another rule's error, not an endless walk. */
  readonly expanding: ReadonlySet<string>;
}

interface Measure {
  readonly depth: number;
  readonly cost: number;
}

const refused = (message: string): GraphQLError =>
  new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', error_code: 400, error_message: message } });

/** A `first` argument's page size: a literal as given, a variable at its most. */
const pageOf = (field: FieldNode): number | null => {
  const first = field.arguments?.find((argument) => argument.name.value === 'first');
  if (first === undefined) return null;
  return first.value.kind === Kind.INT ? Number(first.value.value) : MAX_PAGE;
};

const fieldOf = (type: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined =>
  isObjectType(type) || isInterfaceType(type) ? type.getFields()[name] : undefined;

/**
 * Depth counts nested fields; cost counts the objects a query may return: each object field is 1,
 * times the items of every list above it (a list is `first` items when a field above gives a page
 * size, else LIST_ESTIMATE). Introspection is left out (it is switched on or off on its own).
 */
const measure = (walk: Walk, parent: GraphQLNamedType, selections: SelectionSetNode, page: number | null): Measure => {
  let depth = 0;
  let cost = 0;
  for (const selection of selections.selections) {
    let inner: Measure = { depth: 0, cost: 0 };
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith('__')) continue;
      inner = measureField(walk, parent, selection, page);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const type = selection.typeCondition === undefined ? parent : (walk.schema.getType(selection.typeCondition.name.value) ?? parent);
      inner = measure(walk, type, selection.selectionSet, page);
    } else {
      const name = selection.name.value;
      const fragment = walk.context.getFragment(name);
      if (fragment === null || fragment === undefined || walk.expanding.has(name)) continue;
      const type = walk.schema.getType(fragment.typeCondition.name.value) ?? parent;
      inner = measure({ ...walk, expanding: new Set([...walk.expanding, name]) }, type, fragment.selectionSet, page);
    }
    depth = Math.max(depth, inner.depth);
    cost += inner.cost;
  }
  return { depth, cost };
};

const measureField = (walk: Walk, parent: GraphQLNamedType, field: FieldNode, page: number | null): Measure => {
  const type: GraphQLOutputType | undefined = fieldOf(parent, field.name.value)?.type;
  if (field.selectionSet === undefined || type === undefined) return { depth: 1, cost: 0 };
  const own = pageOf(field) ?? page;
  const list = isListType(getNullableType(type));
  const items = list ? (own ?? LIST_ESTIMATE) : 1;
  const below = measure(walk, getNamedType(type), field.selectionSet, list ? null : own);
  return { depth: below.depth + 1, cost: items * (1 + below.cost) };
};

/** Refuses, before anything runs, a query nested deeper than `maxDepth` or costing more than `maxCost`. */
export const queryLimitsRule =
  (limits: QueryLimits) =>
  (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      const schema = context.getSchema();
      const root = schema.getRootType(operation.operation);
      if (root === null || root === undefined) return;
      const { depth, cost } = measure({ context, schema, expanding: new Set() }, root, operation.selectionSet, null);
      if (depth > limits.maxDepth) context.reportError(refused(`Query too deep: ${depth} levels of fields, at most ${limits.maxDepth}`));
      if (cost > limits.maxCost)
        context.reportError(refused(`Query too costly: up to ${cost} objects, at most ${limits.maxCost} (ask for smaller pages)`));
    },
  });
