import type { Socket } from 'node:net';
import type { Response } from '../http/exchange.js';
import { GraphQLError } from 'graphql';
import type { Caller } from '#application/caller.js';
import type { ContextCarrier } from '../http/request-context.js';

/** What every resolver of one GraphQL operation shares: the HTTP exchange it came in, or the socket's upgrade request. */
export interface GraphqlContext {
  readonly req: ContextCarrier & { readonly socket: Socket };
  readonly res?: Response;
}

/** The answer to an operation without an authenticated caller (a GET without a token): 401's meaning, in GraphQL's form. */
export const unauthenticated = (): GraphQLError =>
  new GraphQLError('The request you have made requires authentication.', {
    extensions: { code: 'UNAUTHENTICATED', error_message: 'The request you have made requires authentication.', http: { status: 401 } },
  });

/** The caller the middleware authenticated, exactly as a REST route sees it. */
export const callerIn = (context: GraphqlContext): Caller => {
  const caller = context.req.leasehold?.caller;
  if (caller === undefined) throw unauthenticated();
  return caller;
};
