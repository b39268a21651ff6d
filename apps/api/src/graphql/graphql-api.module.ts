import type { DynamicModule, FactoryProvider } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { GraphQLModule, GraphQLSchemaHost } from '@nestjs/graphql';
import type { AuthSetup } from '../auth/auth-setup.js';
import type { ApiConfig } from '../config.js';
import { localExplorer } from './explorer.plugin.js';
import { printableError } from './graphql-errors.js';
import { subscriptionsOverWebSocketOnly } from './http-subscriptions.plugin.js';
import type { GraphqlContext } from './graphql-context.js';
import type { Request, Response } from '../http/exchange.js';
import { LeaseResolver, ReservationResolver } from './lease.resolver.js';
import { HostResolver } from './host.resolver.js';
import { AvailabilityResolver } from './availability.resolver.js';
import { MutationResolver } from './mutation.resolver.js';
import { queryLimitsRule } from './query-limits.rule.js';
import { queryBudget } from './query-budget.plugin.js';
import { RequestReads } from './request-reads.js';
import { GraphqlSockets } from './graphql-sockets.js';
import { socketAuthentication } from './socket-auth.js';
import { SubscriptionSlots } from './subscription-slots.js';
import { SubscriptionResolver } from './subscription.resolver.js';

/** The resolvers and what they share, registered beside the REST controllers (the same providers serve both). */
export const GRAPHQL_PROVIDERS = [
  RequestReads,
  LeaseResolver,
  ReservationResolver,
  HostResolver,
  AvailabilityResolver,
  MutationResolver,
  SubscriptionSlots,
  SubscriptionResolver,
];

/** An HTTP operation's context: its exchange, as Apollo's Fastify handler gives it (GraphqlSockets makes a socket's). */
const contextOf = (req: Request, res: Response): GraphqlContext => ({ req, res });

/** GraphQL's WebSocket, on the HTTP server once the schema is built; authenticated as the HTTP middleware does. */
export const graphqlSockets = (config: ApiConfig, auth: AuthSetup | undefined): FactoryProvider<GraphqlSockets> => ({
  provide: GraphqlSockets,
  inject: [HttpAdapterHost, GraphQLSchemaHost],
  useFactory: (http: HttpAdapterHost, schema: GraphQLSchemaHost) =>
    new GraphqlSockets(config.webSockets, socketAuthentication(config, auth), http, schema),
});

/**
 * /graphql (Apollo Server through @nestjs/apollo on Fastify): the schema is generated from the
 * resolvers' types, Apollo's own landing page (loaded from a CDN) is replaced by a local page, and
 * every operation is held to the depth and cost limits before it runs. Subscriptions speak graphql-ws
 * on the same path (graphqlSockets), authenticated by the token in the connection's init payload.
 */
export const graphqlModule = (config: ApiConfig): DynamicModule =>
  GraphQLModule.forRoot<ApolloDriverConfig>({
    driver: ApolloDriver,
    path: '/graphql',
    autoSchemaFile: true,
    sortSchema: true,
    // not the generator's own introspection query over the new schema at each start (3-4% of the API's
    // start): Apollo Server asserts the schema valid as it starts, and test/e2e/graphql holds it to docs/schema.graphql
    buildSchemaOptions: { skipCheck: true },
    graphiql: false,
    introspection: config.graphql.introspection,
    plugins: [localExplorer(), subscriptionsOverWebSocketOnly(), queryBudget(config.graphql)],
    validationRules: [queryLimitsRule(config.graphql)],
    context: contextOf,
    includeStacktraceInErrorResponses: false,
    formatError: printableError,
    // a field's error (a reservation's allocations refused by the policy) is mapped as a query's is
    fieldResolverEnhancers: ['filters'],
  });
