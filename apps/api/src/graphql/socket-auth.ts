import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { GraphQLError, OperationTypeNode, getOperationAST, parse } from 'graphql';
import type { Context, SubscribePayload } from 'graphql-ws';
import type { Caller } from '#application/caller.js';
import { CallerToken } from '#application/caller-token.js';
import { type AuthSetup, createAuthSetup } from '../auth/auth-setup.js';
import type { ApiConfig } from '../config.js';
import { contextOf } from '../http/openstack-headers.middleware.js';
import type { ContextCarrier } from '../http/request-context.js';

/** `X-Auth-Token` in the connection's init payload (any case), as the header is for HTTP. */
const tokenOf = (params: Readonly<Record<string, unknown>> | undefined): string | undefined => {
  const entry = Object.entries(params ?? {}).find(([key]) => key.toLowerCase() === 'x-auth-token');
  return typeof entry?.[1] === 'string' ? entry[1] : undefined;
};

/**
 * Authenticates a WebSocket connection once, at `connection_init`, as the middleware authenticates
 * an HTTP request: a refused token gets null (the socket is closed 4403 Forbidden); an accepted one
 * makes the caller of every operation on it, with a request id of its own for the connection.
 */
export const socketAuthentication = (config: ApiConfig, given: AuthSetup | undefined) => {
  let setup = given;
  return async (request: IncomingMessage, params: Readonly<Record<string, unknown>> | undefined): Promise<Caller | null> => {
    setup ??= createAuthSetup(config);
    const token = tokenOf(params);
    const identity = setup.authenticator === null ? setup.localIdentity : await setup.authenticator.authenticate(token);
    if (identity === null) return null;
    const callerToken = setup.authenticator === null || token === undefined ? null : new CallerToken(token);
    const context = contextOf(`req-${randomUUID()}`, null, identity, setup.policy, callerToken);
    (request as ContextCarrier).leasehold = context;
    return context.caller;
  };
};

const OVER_HTTP = 'Queries and mutations are served over HTTP (POST /graphql), where the depth, cost and introspection settings apply';

/**
 * A socket carries subscriptions only: a query or a mutation sent over it would skip the limits Apollo
 * applies over HTTP. A subscription has one root field (GraphQL's own rule) and its events are flat.
 */
export const subscriptionsOnly = (_context: Context, _id: string, payload: SubscribePayload): readonly GraphQLError[] | undefined => {
  let operation: OperationTypeNode | undefined;
  try {
    operation = getOperationAST(parse(payload.query), payload.operationName)?.operation;
  } catch {
    // not GraphQL: graphql-ws answers the syntax error itself
    return undefined;
  }
  if (operation === undefined || operation === OperationTypeNode.SUBSCRIPTION) return undefined;
  return [new GraphQLError(OVER_HTTP, { extensions: { code: 'BAD_REQUEST', error_code: 400, error_message: OVER_HTTP } })];
};
