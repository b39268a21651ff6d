import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, OperationTypeNode } from 'graphql';

const OVER_WEBSOCKET = 'Subscriptions are served over WebSocket (graphql-ws) at /graphql, not over HTTP';

/** A subscription posted over HTTP would run once and answer nothing: refused, pointing to the WebSocket. */
export const subscriptionsOverWebSocketOnly = (): ApolloServerPlugin => ({
  requestDidStart: async () => ({
    didResolveOperation: async ({ operation }) => {
      if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) return;
      throw new GraphQLError(OVER_WEBSOCKET, {
        extensions: { code: 'BAD_REQUEST', error_code: 400, error_message: OVER_WEBSOCKET, http: { status: 400 } },
      });
    },
  }),
});
