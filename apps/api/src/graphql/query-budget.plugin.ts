import { type ApolloServerPlugin, type GraphQLRequestListener, type GraphQLResponse, HeaderMap } from '@apollo/server';
import type { GraphQLError } from 'graphql';
import type { GraphqlSettings } from '../config.js';
import type { GraphqlContext } from './graphql-context.js';
import { stoppedError, withBody } from './graphql-errors.js';
import { MAX_PAGE } from './lease-cursor.js';
import { OperationBudget, OperationStopped, giveBudget } from './operation-budget.js';
import { estimate } from './query-cost.js';
import { TenantSlots } from './tenant-slots.js';

/** What an admitted operation holds until its answer is sent. */
interface Admitted {
  readonly estimatedRows: number;
  readonly budget: OperationBudget;
  readonly release: () => void;
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

const tooLarge = (values: number, maxValues: number): GraphQLError =>
  withBody(
    'GRAPHQL_VALIDATION_FAILED',
    400,
    `Query too large: its answer may hold up to ${values} values, at most ${maxValues} (ask for smaller pages or fewer fields)`,
    { http: { status: 400 } },
  );

/** An operation runs at most the time budget: by then a client may try again, and a slot is free again. */
const retryAfterSeconds = (settings: GraphqlSettings): string => String(Math.ceil(settings.timeoutMs / 1000));

const tooManyExpensive = (settings: GraphqlSettings): GraphQLError =>
  withBody(
    'TOO_MANY_REQUESTS',
    429,
    `Too many expensive queries of this project at once: at most ${settings.tenantExpensive} estimated to read over ` +
      `${settings.expensiveCost} rows or answer over ${settings.expensiveValues} values may run together ` +
      `(try again after ${retryAfterSeconds(settings)} s, or ask for less)`,
    { http: { status: 429, headers: new HeaderMap([['retry-after', retryAfterSeconds(settings)]]) } },
  );

/** The client closing the connection before its answer stops the work it asked for. */
const stopWhenClientLeaves = (context: GraphqlContext, budget: OperationBudget): void => {
  const response = context.res?.raw;
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
 * variable), its estimated rows and answered values are checked once its variables are known, an expensive one needs
 * one of its project's slots, and its reads run within a budget of time and rows (operation-budget.ts)
 * that the client leaving also stops.
 */
export const queryBudget = (settings: GraphqlSettings): ApolloServerPlugin<GraphqlContext> => {
  const slots = new TenantSlots(settings.tenantExpensive);
  const slotOf = (context: GraphqlContext): (() => void) => {
    const caller = context.req.leasehold?.caller;
    // without a caller, the resolvers answer 401 before they read anything
    if (caller === undefined) return () => undefined;
    const release = slots.take(caller.projectId);
    if (release === null) throw tooManyExpensive(settings);
    return release;
  };
  return {
    requestDidStart: async (): Promise<GraphQLRequestListener<GraphqlContext>> => {
      let admitted: Admitted | null = null;
      return {
        didResolveOperation: async ({ schema, document, operation, request, contextValue }) => {
          // none resolved: execution answers that, running nothing
          if (operation === undefined) return;
          const { rows, values, badPages } = estimate(schema, document, operation, request.variables ?? {});
          if (badPages.length > 0) throw badPage();
          if (rows > settings.maxCost) throw tooCostly(rows, settings.maxCost);
          if (values > settings.maxValues) throw tooLarge(values, settings.maxValues);
          const expensive = rows > settings.expensiveCost || values > settings.expensiveValues;
          const release = expensive ? slotOf(contextValue) : () => undefined;
          const budget = new OperationBudget(settings);
          giveBudget(contextValue, budget);
          stopWhenClientLeaves(contextValue, budget);
          admitted = { estimatedRows: rows, budget, release };
        },
        willSendResponse: async ({ response }) => {
          if (admitted === null) return;
          admitted.budget.finish();
          admitted.release();
          answer(response, admitted, settings);
        },
      };
    },
  };
};
