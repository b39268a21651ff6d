import { type ASTVisitor, GraphQLError, Kind, OperationTypeNode, type SelectionSetNode, type ValidationContext } from 'graphql';

export interface QueryLimits {
  readonly maxDepth: number;
  readonly maxMutations: number;
}

const refused = (message: string): GraphQLError =>
  new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', error_code: 400, error_message: message } });

/** Levels of nested fields; fragments being expanded on this path are not expanded again (a cycle is another rule's error). */
const depthOf = (context: ValidationContext, selections: SelectionSetNode, expanding: ReadonlySet<string>): number => {
  let depth = 0;
  for (const selection of selections.selections) {
    let inner = 0;
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith('__')) continue;
      inner = 1 + (selection.selectionSet === undefined ? 0 : depthOf(context, selection.selectionSet, expanding));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      inner = depthOf(context, selection.selectionSet, expanding);
    } else {
      const name = selection.name.value;
      const fragment = context.getFragment(name);
      if (fragment === null || fragment === undefined || expanding.has(name)) continue;
      inner = depthOf(context, fragment.selectionSet, new Set([...expanding, name]));
    }
    depth = Math.max(depth, inner);
  }
  return depth;
};

/** Top-level fields of a selection, fragments expanded (each alias is one field: one mutation run). */
const fieldsOf = (context: ValidationContext, selections: SelectionSetNode, expanding: ReadonlySet<string>): number => {
  let fields = 0;
  for (const selection of selections.selections) {
    if (selection.kind === Kind.FIELD) fields += selection.name.value.startsWith('__') ? 0 : 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) fields += fieldsOf(context, selection.selectionSet, expanding);
    else {
      const name = selection.name.value;
      const fragment = context.getFragment(name);
      if (fragment === null || fragment === undefined || expanding.has(name)) continue;
      fields += fieldsOf(context, fragment.selectionSet, new Set([...expanding, name]));
    }
  }
  return fields;
};

/**
 * Refuses, before anything runs, a query nested deeper than `maxDepth`, and a mutation operation of more
 * than `maxMutations` fields: they run one after another, each a write, so aliases would make one request
 * hold the writer for as long as the sender likes. What it would read is measured
 * once its variables are known (query-budget.plugin.ts); introspection is left out (switched on or off on its own).
 */
export const queryLimitsRule =
  (limits: QueryLimits) =>
  (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      const depth = depthOf(context, operation.selectionSet, new Set());
      if (depth > limits.maxDepth) context.reportError(refused(`Query too deep: ${depth} levels of fields, at most ${limits.maxDepth}`));
      if (operation.operation !== OperationTypeNode.MUTATION) return;
      const mutations = fieldsOf(context, operation.selectionSet, new Set());
      if (mutations > limits.maxMutations)
        context.reportError(refused(`Too many mutations: ${mutations} in one operation, at most ${limits.maxMutations}`));
    },
  });
