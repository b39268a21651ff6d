import type { DynamicModule } from '@nestjs/common';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { GraphQLModule } from '@nestjs/graphql';
import type { ApiConfig } from '../config.js';
import { localExplorer } from './explorer.plugin.js';
import type { GraphqlContext } from './graphql-context.js';
import { LeaseResolver, ReservationResolver } from './lease.resolver.js';
import { HostResolver } from './host.resolver.js';
import { AvailabilityResolver } from './availability.resolver.js';
import { MutationResolver } from './mutation.resolver.js';
import { queryLimitsRule } from './query-limits.rule.js';
import { RequestReads } from './request-reads.js';

/** The resolvers and what they share, registered beside the REST controllers (the same providers serve both). */
export const GRAPHQL_PROVIDERS = [RequestReads, LeaseResolver, ReservationResolver, HostResolver, AvailabilityResolver, MutationResolver];

/**
 * /graphql (Apollo Server through @nestjs/apollo on Express 5): the schema is generated from the
 * resolvers' types, Apollo's own landing page (loaded from a CDN) is replaced by a local page, and
 * every operation is held to the depth and cost limits before it runs.
 */
export const graphqlModule = (config: ApiConfig): DynamicModule =>
  GraphQLModule.forRoot<ApolloDriverConfig>({
    driver: ApolloDriver,
    path: '/graphql',
    autoSchemaFile: true,
    sortSchema: true,
    graphiql: false,
    introspection: config.graphql.introspection,
    plugins: [localExplorer()],
    validationRules: [queryLimitsRule(config.graphql)],
    context: ({ req, res }: GraphqlContext): GraphqlContext => ({ req, res }),
    includeStacktraceInErrorResponses: false,
    // a field's error (a reservation's allocations refused by the policy) is mapped as a query's is
    fieldResolverEnhancers: ['filters'],
  });
