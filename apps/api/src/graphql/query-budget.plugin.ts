import type { ApolloServerPlugin, GraphQLRequestListener, GraphQLResponse } from '@apollo/server';
import type { GraphQLError } from 'graphql';
import type { GraphqlSettings } from '../config.js';
import type { GraphqlContext } from './graphql-context.js';
import { stoppedError, withBody } from './graphql-errors.js';
import { MAX_PAGE } from './lease-cursor.js';
import { OperationBudget, OperationStopped, giveBudget } from './operation-budget.js';
import { estimate } from './query-cost.js';

/** What an admitted operation holds until its answer is sent. */
interface Admitted {
  readonly estimatedRows: number;
  readonly budget: OperationBudget;
}

const badPage = (): GraphQLError =>
  withBody('BAD_USER_INPUT', 400, `Malformed parameter first (an integer from 1 to ${MAX_PAGE})`, { http: { status: 400 } });

const tooCostly = (rows: number, maxCost: number): GraphQLError =>
  withBody(
    'GRAPHQL_VALIDATION_FAILED',
    400,
    `Query too costly: it may read up to ${rows} rows, at most ${maxCost} (ask for smaller pages or fewer fields)`,
    { http: { status: 400 } },
  );

/** A client may try again once the time budget has passed. */
const retryAfterSeconds = (settings: GraphqlSettings): string => String(Math.ceil(settings.timeoutMs / 1000));

/** The client closing the connection before its answer stops the work it asked for. */
const stopWhenClientLeaves = (context: GraphqlContext, budget: OperationBudget): void => {
  const response = context.res;
  if (response === undefined) return;
  const left = (): void => {
    if (!response.writableFinished) budget.stop(new OperationStopped('gone', 0));
  };
  if (response.destroyed || context.req.socket.destroyed) left();
  else response.once('close', left);
};

/** A stopped operation answers one error (not one per field it left unresolved); every answer says what it read. */
const answer = (response: GraphQLResponse, admitted: Admitted, settings: GraphqlSettings): void => {
  if (response.body.kind !== 'single') return;
  const cost = { estimated_rows: admitted.estimatedRows, rows_read: admitted.budget.rowsRead };
  const stopped = admitted.budget.stopped;
  if (stopped === null) {
    response.body.singleResult.extensions = { ...response.body.singleResult.extensions, cost };
    return;
  }
  const error = stoppedError(stopped);
  // no `data`: an answer without it keeps its status (Nest's Apollo driver sets 200 on any answer with `data`)
  response.body = { kind: 'single', singleResult: { errors: [error.toJSON()], extensions: { cost } } };
  response.http.status = error.extensions.error_code as number;
  if (stopped.why === 'time') response.http.headers.set('retry-after', retryAfterSeconds(settings));
};

/**
 * Holds every operation to what it may read, before and while it runs: its page sizes (literal or
 * variable) and its estimated rows are checked once its variables are known, and its reads run within
 * a budget of time and rows (operation-budget.ts) that the client leaving also stops.
 */
export const queryBudget = (settings: GraphqlSettings): ApolloServerPlugin<GraphqlContext> => ({
  requestDidStart: async (): Promise<GraphQLRequestListener<GraphqlContext>> => {
    let admitted: Admitted | null = null;
    return {
      didResolveOperation: async ({ schema, document, operation, request, contextValue }) => {
        // none resolved: execution answers that, running nothing
        if (operation === undefined) return;
        const { rows, badPages } = estimate(schema, document, operation, request.variables ?? {});
        if (badPages.length > 0) throw badPage();
        if (rows > settings.maxCost) throw tooCostly(rows, settings.maxCost);
        const budget = new OperationBudget(settings);
        giveBudget(contextValue, budget);
        stopWhenClientLeaves(contextValue, budget);
        admitted = { estimatedRows: rows, budget };
      },
      willSendResponse: async ({ response }) => {
        if (admitted === null) return;
        admitted.budget.finish();
        answer(response, admitted, settings);
      },
    };
  },
});
