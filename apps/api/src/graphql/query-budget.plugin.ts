import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import type { GraphQLError } from 'graphql';
import type { GraphqlSettings } from '../config.js';
import type { GraphqlContext } from './graphql-context.js';
import { withBody } from './graphql-errors.js';
import { MAX_PAGE } from './lease-cursor.js';
import { estimate } from './query-cost.js';

const badPage = (): GraphQLError =>
  withBody('BAD_USER_INPUT', 400, `Malformed parameter first (an integer from 1 to ${MAX_PAGE})`, { http: { status: 400 } });

const tooCostly = (rows: number, maxCost: number): GraphQLError =>
  withBody(
    'GRAPHQL_VALIDATION_FAILED',
    400,
    `Query too costly: it may read up to ${rows} rows, at most ${maxCost} (ask for smaller pages or fewer fields)`,
    { http: { status: 400 } },
  );

/**
 * Holds every operation to what it may read before it runs: its page sizes (literal or variable) and
 * its estimated rows are checked once its variables are known.
 */
export const queryBudget = (settings: GraphqlSettings): ApolloServerPlugin<GraphqlContext> => ({
  requestDidStart: async (): Promise<GraphQLRequestListener<GraphqlContext>> => ({
    didResolveOperation: async ({ schema, document, operation, request }) => {
      // none resolved: execution answers that, running nothing
      if (operation === undefined) return;
      const { rows, badPages } = estimate(schema, document, operation, request.variables ?? {});
      if (badPages.length > 0) throw badPage();
      if (rows > settings.maxCost) throw tooCostly(rows, settings.maxCost);
    },
  }),
});
