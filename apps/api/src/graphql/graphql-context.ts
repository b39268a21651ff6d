import type { Request, Response } from 'express';
import { GraphQLError } from 'graphql';
import type { Caller } from '#application/caller.js';
import type { ContextRequest } from '../http/request-context.js';

/** What every resolver of one GraphQL operation shares: the HTTP exchange it came in (or the socket's caller). */
export interface GraphqlContext {
  readonly req: Request;
  readonly res?: Response;
}

/** The answer to an operation without an authenticated caller (a GET without a token): 401's meaning, in GraphQL's form. */
export const unauthenticated = (): GraphQLError =>
  new GraphQLError('The request you have made requires authentication.', {
    extensions: { code: 'UNAUTHENTICATED', error_message: 'The request you have made requires authentication.', http: { status: 401 } },
  });

/** The caller the middleware authenticated, exactly as a REST route sees it. */
export const callerIn = (context: GraphqlContext): Caller => {
  const caller = (context.req as ContextRequest).leasehold?.caller;
  if (caller === undefined) throw unauthenticated();
  return caller;
};
