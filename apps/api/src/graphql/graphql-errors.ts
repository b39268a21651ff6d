import { HttpException, Logger } from '@nestjs/common';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { type DomainErrorKind, describeError, isDomainError } from '#domain/index.js';
import { CapacityRefused, requestDate } from '#application/availability/counter-offer.js';
import { STATUS_BY_KIND, blazarError } from '../http/blazar-error.js';
import { printable } from '../http/input-rules.js';
import { wireMessage } from '../http/wire-names.js';
import { STORAGE_UNAVAILABLE_MESSAGE, isStorageUnavailable } from '../http/storage-unavailable.js';
import { OperationStopped } from './operation-budget.js';

/** GraphQL's names for the statuses REST answers with. */
export const CODE_BY_KIND: Readonly<Record<DomainErrorKind, string>> = {
  invalid: 'BAD_REQUEST',
  unauthenticated: 'UNAUTHENTICATED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  unavailable: 'SERVICE_UNAVAILABLE',
};

const logger = new Logger('graphql');

/** An error with REST's words: `extensions.error_message` is the `error_message` the same refusal has in REST's body. */
export const withBody = (code: string, status: number, message: string, extra: Record<string, unknown> = {}): GraphQLError => {
  const body = blazarError(status, message);
  return new GraphQLError(body.error_message, { extensions: { code, error_code: status, error_message: body.error_message, ...extra } });
};

const ASK_FOR_LESS = 'ask for smaller pages or fewer fields';

/** An operation whose work was stopped: over its rows, a client error; over its time, the service's state as much as the query's. */
export const stoppedError = (stopped: OperationStopped): GraphQLError => {
  switch (stopped.why) {
    case 'rows':
      return withBody(
        'BAD_REQUEST',
        400,
        `Query stopped: it read more than ${stopped.limit} rows, the most one query may read (${ASK_FOR_LESS})`,
      );
    case 'time':
      return withBody(
        'SERVICE_UNAVAILABLE',
        503,
        `Query stopped: it ran longer than ${stopped.limit} ms, the longest one query may run (${ASK_FOR_LESS})`,
      );
    case 'gone':
      return withBody('BAD_REQUEST', 400, 'Query stopped: the client closed the connection');
    default: {
      const _never: never = stopped.why;
      return _never;
    }
  }
};

/** The one place where a resolver's error becomes a GraphQL error (BlazarExceptionFilter's counterpart). */
export const graphqlError = (exception: unknown): GraphQLError => {
  if (exception instanceof GraphQLError) return exception;
  if (exception instanceof OperationStopped) return stoppedError(exception);
  if (exception instanceof CapacityRefused) {
    const alternatives = exception.alternatives.map((w) => ({ start_date: requestDate(w.startDate), end_date: requestDate(w.endDate) }));
    return withBody(CODE_BY_KIND[exception.kind], STATUS_BY_KIND[exception.kind], wireMessage(exception), { alternatives });
  }
  if (isDomainError(exception)) return withBody(CODE_BY_KIND[exception.kind], STATUS_BY_KIND[exception.kind], wireMessage(exception));
  if (exception instanceof HttpException && exception.getStatus() < 500)
    return withBody('BAD_REQUEST', exception.getStatus(), exception.message);
  if (isStorageUnavailable(exception)) {
    logger.warn(`storage unavailable: ${describeError(exception)}`);
    return withBody('SERVICE_UNAVAILABLE', 503, STORAGE_UNAVAILABLE_MESSAGE);
  }
  logger.error(describeError(exception, { stack: true }));
  return withBody('INTERNAL_SERVER_ERROR', 500, 'Internal Server Error');
};

/**
 * Every error's last step before it leaves, GraphQL's own included: its validation quotes the operation's values as they are (a
 * variable's `"x\u202ey"` arrives with the override in it), so the message is made printable as REST's are.
 */
export const printableError = (formatted: GraphQLFormattedError): GraphQLFormattedError => ({
  ...formatted,
  message: printable(formatted.message),
});
