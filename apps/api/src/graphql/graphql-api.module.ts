import type { DynamicModule } from '@nestjs/common';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { GraphQLModule } from '@nestjs/graphql';
import type { Context } from 'graphql-ws';
import type { Request } from 'express';
import type { AuthSetup } from '../auth/auth-setup.js';
import type { ApiConfig } from '../config.js';
import { localExplorer } from './explorer.plugin.js';
import { printableError } from './graphql-errors.js';
import { subscriptionsOverWebSocketOnly } from './http-subscriptions.plugin.js';
import type { GraphqlContext } from './graphql-context.js';
import { LeaseResolver, ReservationResolver } from './lease.resolver.js';
import { HostResolver } from './host.resolver.js';
import { AvailabilityResolver } from './availability.resolver.js';
import { MutationResolver } from './mutation.resolver.js';
import { queryLimitsRule } from './query-limits.rule.js';
import { queryBudget } from './query-budget.plugin.js';
import { RequestReads } from './request-reads.js';
import { type SocketExtra, socketAuthentication, subscriptionsOnly } from './socket-auth.js';
import { SubscriptionResolver } from './subscription.resolver.js';

/** The resolvers and what they share, registered beside the REST controllers (the same providers serve both). */
export const GRAPHQL_PROVIDERS = [
  RequestReads,
  LeaseResolver,
  ReservationResolver,
  HostResolver,
  AvailabilityResolver,
  MutationResolver,
  SubscriptionResolver,
];

/**
 * /graphql (Apollo Server through @nestjs/apollo on Express 5): the schema is generated from the
 * resolvers' types, Apollo's own landing page (loaded from a CDN) is replaced by a local page, and
 * every operation is held to the depth and cost limits before it runs. Subscriptions speak graphql-ws
 * on the same path, authenticated by the token in the connection's init payload.
 */
/** An operation's context: over HTTP its exchange; over a WebSocket the connection's upgrade request, which authentication marked. */
const contextOf = (exchange: GraphqlContext | Context<Record<string, unknown> | undefined, SocketExtra>): GraphqlContext =>
  'extra' in exchange ? { req: exchange.extra.request as unknown as Request } : { req: exchange.req, res: exchange.res };

export const graphqlModule = (config: ApiConfig, auth: AuthSetup | undefined): DynamicModule =>
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
    subscriptions: { 'graphql-ws': { path: '/graphql', onConnect: socketAuthentication(config, auth), onSubscribe: subscriptionsOnly } },
    includeStacktraceInErrorResponses: false,
    formatError: printableError,
    // a field's error (a reservation's allocations refused by the policy) is mapped as a query's is
    fieldResolverEnhancers: ['filters'],
  });
