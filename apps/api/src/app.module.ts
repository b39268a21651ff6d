import { describeError } from '#domain/index.js';
import { type DynamicModule, Inject, Logger, Module, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { JsonTextInterceptor } from './http/json-text.js';
import type { MikroORM } from '@mikro-orm/core';
import type { EventStore } from '#event-store/event-store.port.js';
import { openEventStore } from '#event-store/open-event-store.js';
import { openReadModel, readModelDatabaseFromEnv } from '#read-model/index.js';
import { RouteParametersPipe } from './http/route-parameters.js';
import { LEASE_TRUSTS, leaseTrustsFor } from './auth/lease-trusts.js';
import type { LeaseTrusts } from '#plugins/ports/lease-trusts.port.js';
import { LeaseUseCases } from '#application/leases/lease.use-cases.js';
import { API_CONFIG, type ApiConfig } from './config.js';
import { HealthController } from './health/health.controller.js';
import { TerminusModule } from '@nestjs/terminus';
import { CqrsModule } from '@nestjs/cqrs';
import { BUS_HANDLERS } from './bus/bus-handlers.js';
import { CalendarController } from './calendar/calendar.controller.js';
import { GraphqlExplorerController } from './graphql/explorer.controller.js';
import { FlavorController } from './flavors/flavor.controller.js';
import { FloatingIpController } from './floatingips/floating-ip.controller.js';
import { NetworkController } from './networks/network.controller.js';
import { NETWORK_PROVIDERS } from './networks/network.providers.js';
import { AuditController } from './audit/audit.controller.js';
import { RefusalAuditInterceptor } from './audit/refusal-audit.interceptor.js';
import { HistoryController } from './history/history.controller.js';
import { FeedController } from './feed/feed.controller.js';
import { FeedStreams } from './feed/feed-streams.js';
import { EventFeed, FEED_LIMIT_MAX } from '#application/feed/event-feed.queries.js';
import { LeaseOwners } from '#application/feed/lease-owners.js';
import { LiveLog } from '#application/feed/live-log.js';
import { HostController } from './hosts/host.controller.js';
import { LeaseRequestController } from './lease-requests/lease-request.controller.js';
import { MAINTENANCE_CONTROLLERS } from './maintenance/maintenance.controller.js';
import { LeaseController } from './leases/lease.controller.js';
import { PluginsController } from './plugins/plugins.controller.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { ReadModelQueries } from '#read-model/read-model.queries.js';
import { ReadQueries } from '#application/queries/read.queries.js';
import { HistoryQueries } from '#application/history/history.queries.js';
import { WriteRefusals } from '#application/audit/write-refusals.js';
import { ReadYourWrites } from './read-side/read-your-writes.js';
import { PointInTime } from './read-side/point-in-time.js';
import { ReadYourWritesInterceptor } from './read-side/read-your-writes.interceptor.js';
import { APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import {
  APPLICATION_CONTEXT,
  AUDIT_STORE,
  USAGE_ENFORCEMENT,
  CLOCK,
  CLOUD_CONFIG,
  EVENT_STORE,
  FLOATING_IP_NETWORKS,
  HOST_INVENTORY,
  OPENSTACK_SESSION,
  READ_MODEL_ORM,
  OPENED_WRITE_INDEX,
  OPENED_QUOTA_INDEX,
  SNAPSHOT_STORE,
} from './tokens.js';
import { VersionsController } from './versions/versions.controller.js';
import { AvailabilityController } from './availability/availability.controller.js';
import { AvailabilityQueries } from '#application/availability/availability.queries.js';
import { CapacityQueries } from '#application/queries/capacity.queries.js';
import { CapacityController } from './capacity/capacity.controller.js';
import { randomUUID } from 'node:crypto';
import type { ApplicationContext } from '#application/application-context.js';
import { CommandHandler } from '#application/command-handler.js';
import { FlavorUseCases } from '#application/flavors/flavor.use-cases.js';
import type { FloatingIpNetworks } from '#plugins/ports/floating-ip-networks.port.js';
import { FloatingIpUseCases } from '#application/floating-ips/floating-ip.use-cases.js';
import type { HostInventory } from '#plugins/ports/host-inventory.port.js';
import { HostUseCases } from '#application/hosts/host.use-cases.js';
import { LeaseRequestUseCases } from '#application/lease-requests/lease-request.use-cases.js';
import { MaintenanceUseCases } from '#application/maintenance/maintenance.use-cases.js';
import { type CloudConfig, parseCloudConfig } from '#plugins/cloud-config.js';
import { floatingIpNetworksFor, hostInventoryFor, openStackSessionFor } from '#plugins/cloud-inventory.js';
import type { OpenStackSession } from '#plugins/openstack/index.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import { type OpenedWriteIndex, openWriteIndex } from '#application/write-model/write-index.snapshots.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import { openSnapshotStore } from '#event-store/snapshots/open-snapshot-store.js';
import { WebhookController } from './webhooks/webhook.controller.js';
import { WebhookUseCases } from '#application/webhooks/webhook.use-cases.js';
import { WebhookSecrets } from '#application/webhooks/webhook-secrets.store.js';
import { WebhookDeliveries } from '#application/webhooks/webhook-deliveries.store.js';
import { webhookConfigFromEnv } from '#application/webhooks/webhook.config.js';
import { checkWebhookTarget } from '#application/webhooks/webhook-targets.js';
import { UsageIndex } from '#application/usage/usage-index.js';
import { UsageQueries } from '#application/usage/usage.queries.js';
import { RateCardUseCases } from '#application/usage/rate-card.use-cases.js';
import { UsageController } from './usage/usage.controller.js';
import { GRAPHQL_PROVIDERS, graphqlModule, graphqlSockets } from './graphql/graphql-api.module.js';
import type { AuthSetup } from './auth/auth-setup.js';
import { type UsageEnforcement, usageEnforcement } from '#application/enforcement/usage-enforcement.js';
import { indexResources } from '#application/enforcement/index-resources.js';
import { HttpExternalEnforcement } from '#plugins/enforcement/external-enforcement.http.js';
import { type OpenedQuotaIndex, openQuotaIndex } from '#application/quotas/quota-index.snapshots.js';
import { Quotas } from '#application/quotas/quotas.js';
import { QuotaUseCases } from '#application/quotas/quota.use-cases.js';
import { QuotaController } from './quotas/quota.controller.js';
import { FairShareController } from './fair-share/fair-share.controller.js';
import { FairShareQueries } from '#application/fair-share/fair-share.queries.js';
import { FairShareUseCases } from '#application/fair-share/fair-share.use-cases.js';

class Lifecycle implements OnModuleDestroy, OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODEL_ORM) private readonly orm: MikroORM,
    @Inject(AUDIT_STORE) private readonly audit: EventStore,
    @Inject(WebhookSecrets) private readonly secrets: WebhookSecrets,
    @Inject(FeedStreams) private readonly streams: FeedStreams,
    @Inject(OPENED_WRITE_INDEX) private readonly writeIndex: OpenedWriteIndex,
    @Inject(OPENED_QUOTA_INDEX) private readonly quotaIndex: OpenedQuotaIndex,
    @Inject(SNAPSHOT_STORE) private readonly snapshots: SnapshotStore,
  ) {}

  /**
   * Before the server closes: it waits for every open connection, and an event stream never ends by itself.
   * Before the GraphQL module stops, too: Apollo's drain (which @nestjs/apollo adds) waits 10 s for open requests.
   */
  async onModuleDestroy(): Promise<void> {
    await this.streams.closeAll();
  }

  async onApplicationShutdown(): Promise<void> {
    // the last snapshot before the store closes, with this process's own last appends: the next start reads only what comes after it
    await this.writeIndex.index.catchUp();
    await this.writeIndex.writer.stop();
    await this.quotaIndex.index.catchUp();
    await this.quotaIndex.writer.stop();
    await this.snapshots.close();
    await this.orm.close();
    await this.store.close();
    await this.audit.close();
    this.secrets.close();
  }
}

@Module({})
export class AppModule {
  /** `auth`: the middleware's, shared with GraphQL's WebSocket connections (made from `config` when not given). */
  static forRoot(config: ApiConfig, auth?: AuthSetup): DynamicModule {
    return {
      module: AppModule,
      // the probes' answers say why; terminus' own log line per failed check would repeat it
      imports: [
        OpenApiModule.forRoot({ auth: config.auth }),
        TerminusModule.forRoot({ logger: false }),
        // the command and query buses of the controllers and resolvers (docs/architecture.md); no EventBus handler: the log delivers
        CqrsModule.forRoot(),
        graphqlModule(config),
      ],
      controllers: [
        VersionsController,
        HealthController,
        CalendarController,
        GraphqlExplorerController,
        LeaseController,
        LeaseRequestController,
        ...MAINTENANCE_CONTROLLERS,
        HostController,
        PluginsController,
        FloatingIpController,
        NetworkController,
        FlavorController,
        HistoryController,
        AuditController,
        FeedController,
        UsageController,
        WebhookController,
        AvailabilityController,
        CapacityController,
        QuotaController,
        FairShareController,
      ],
      providers: [
        { provide: API_CONFIG, useValue: config },
        { provide: CLOCK, useValue: () => new Date() },
        { provide: EVENT_STORE, useFactory: () => openEventStore('events', config.dataDir) },
        { provide: AUDIT_STORE, useFactory: () => openEventStore('audit', config.dataDir) },
        { provide: WriteRefusals, inject: [AUDIT_STORE], useFactory: (audit: EventStore) => new WriteRefusals(audit, () => randomUUID()) },
        {
          provide: READ_MODEL_ORM,
          useFactory: () => openReadModel(readModelDatabaseFromEnv(config.dataDir), undefined, { logQueries: config.readModelQueryLog }),
        },
        { provide: SNAPSHOT_STORE, useFactory: () => openSnapshotStore(config.dataDir) },
        {
          provide: OPENED_WRITE_INDEX,
          inject: [EVENT_STORE, SNAPSHOT_STORE, CLOCK],
          useFactory: (store: EventStore, snapshots: SnapshotStore, clock: () => Date) => {
            const logger = new Logger('snapshots');
            const forget = { pastMs: config.pastKeptMs, now: () => clock().getTime() };
            return openWriteIndex(
              store,
              snapshots,
              config.snapshots,
              (error) => logger.warn(`write index snapshot not written: ${describeError(error)}`),
              forget,
            );
          },
        },
        { provide: WriteIndex, inject: [OPENED_WRITE_INDEX], useFactory: (opened: OpenedWriteIndex) => opened.index },
        {
          provide: LEASE_TRUSTS,
          inject: [OPENSTACK_SESSION],
          useFactory: (session: OpenStackSession | null) => leaseTrustsFor(config.auth, session),
        },
        {
          provide: USAGE_ENFORCEMENT,
          inject: [WriteIndex],
          useFactory: (index: WriteIndex) => {
            const { enforcement } = config;
            const service = enforcement.external === null ? null : new HttpExternalEnforcement(enforcement.external);
            const logger = new Logger('enforcement');
            return usageEnforcement({
              config: enforcement,
              service,
              resources: indexResources(index),
              warn: (message) => logger.warn(message),
            });
          },
        },
        {
          provide: OPENED_QUOTA_INDEX,
          inject: [EVENT_STORE, SNAPSHOT_STORE, CLOCK],
          useFactory: (store: EventStore, snapshots: SnapshotStore, clock: () => Date) => {
            const logger = new Logger('snapshots');
            const forget = { pastMs: config.pastKeptMs, now: () => clock().getTime() };
            return openQuotaIndex(
              store,
              snapshots,
              config.snapshots,
              (error) => logger.warn(`quota index snapshot not written: ${describeError(error)}`),
              forget,
            );
          },
        },
        {
          provide: Quotas,
          inject: [OPENED_QUOTA_INDEX],
          useFactory: (opened: OpenedQuotaIndex) => new Quotas(opened.index, config.quotas),
        },
        {
          provide: QuotaUseCases,
          inject: [APPLICATION_CONTEXT, Quotas],
          useFactory: (context: ApplicationContext, quotas: Quotas) => new QuotaUseCases(context, quotas),
        },
        {
          provide: LeaseUseCases,
          inject: [APPLICATION_CONTEXT, LEASE_TRUSTS, USAGE_ENFORCEMENT, Quotas],
          useFactory: (context: ApplicationContext, trusts: LeaseTrusts, enforcement: UsageEnforcement, quotas: Quotas) =>
            new LeaseUseCases(context, trusts, enforcement, quotas),
        },
        {
          provide: LeaseRequestUseCases,
          inject: [APPLICATION_CONTEXT, LeaseUseCases],
          useFactory: (context: ApplicationContext, leases: LeaseUseCases) => new LeaseRequestUseCases(context, leases),
        },
        // LEASEHOLD_CLOUD: standalone takes the body's word; openstack asks Nova and Neutron
        { provide: CLOUD_CONFIG, useFactory: () => parseCloudConfig(process.env) },
        { provide: OPENSTACK_SESSION, inject: [CLOUD_CONFIG], useFactory: (cloud: CloudConfig) => openStackSessionFor(cloud) },
        {
          provide: HOST_INVENTORY,
          inject: [OPENSTACK_SESSION],
          useFactory: (session: OpenStackSession | null) => hostInventoryFor(session, config.guardrails.standaloneZoneHosts),
        },
        {
          provide: FLOATING_IP_NETWORKS,
          inject: [OPENSTACK_SESSION],
          useFactory: (session: OpenStackSession | null) => floatingIpNetworksFor(session),
        },
        { provide: CommandHandler, inject: [EVENT_STORE], useFactory: (store: EventStore) => new CommandHandler(store) },
        {
          provide: APPLICATION_CONTEXT,
          inject: [CommandHandler, WriteIndex],
          useFactory: (handler: CommandHandler, index: WriteIndex): ApplicationContext => ({
            handler,
            index,
            newId: () => randomUUID(),
            settings: {
              cleaningTimeMinutes: config.cleaningTimeMinutes,
              minutesBeforeEnd: config.minutesBeforeEnd,
              allocationRatios: config.allocationRatios,
              guardrails: config.guardrails,
            },
          }),
        },
        {
          provide: AvailabilityQueries,
          inject: [APPLICATION_CONTEXT],
          useFactory: (context: ApplicationContext) => new AvailabilityQueries(context),
        },
        {
          provide: CapacityQueries,
          inject: [APPLICATION_CONTEXT],
          useFactory: (context: ApplicationContext) => new CapacityQueries(context),
        },
        {
          provide: FlavorUseCases,
          inject: [APPLICATION_CONTEXT],
          useFactory: (context: ApplicationContext) => new FlavorUseCases(context),
        },
        {
          provide: HostUseCases,
          inject: [APPLICATION_CONTEXT, HOST_INVENTORY],
          useFactory: (context: ApplicationContext, inventory: HostInventory) => new HostUseCases(context, inventory),
        },
        {
          provide: MaintenanceUseCases,
          inject: [APPLICATION_CONTEXT],
          useFactory: (context: ApplicationContext) => new MaintenanceUseCases(context),
        },
        {
          provide: FloatingIpUseCases,
          inject: [APPLICATION_CONTEXT, FLOATING_IP_NETWORKS],
          useFactory: (context: ApplicationContext, networks: FloatingIpNetworks) => new FloatingIpUseCases(context, networks),
        },
        { provide: ReadModelQueries, inject: [READ_MODEL_ORM], useFactory: (orm: MikroORM) => new ReadModelQueries(orm) },
        { provide: ReadQueries, inject: [ReadModelQueries], useFactory: (read: ReadModelQueries) => new ReadQueries(read) },
        { provide: HistoryQueries, inject: [EVENT_STORE], useFactory: (store: EventStore) => new HistoryQueries(store) },
        ...NETWORK_PROVIDERS,
        { provide: WebhookSecrets, useFactory: () => WebhookSecrets.open(`${config.dataDir}/webhook-secrets.sqlite`) },
        {
          provide: WebhookUseCases,
          inject: [CommandHandler, EVENT_STORE, WebhookSecrets],
          useFactory: (handler: CommandHandler, store: EventStore, secrets: WebhookSecrets) => {
            const webhooks = webhookConfigFromEnv(process.env);
            let deliveries: WebhookDeliveries | null = null;
            return new WebhookUseCases({
              handler,
              store,
              secrets,
              // the publisher makes the file on its first start: opened once it exists
              deliveries: () => (deliveries ??= WebhookDeliveries.openReader(`${config.dataDir}/webhooks.sqlite`)),
              checkTarget: (url) => checkWebhookTarget(webhooks.targets, url),
              newId: () => randomUUID(),
              enabled: webhooks.enabled,
              maxPerProject: webhooks.maxPerProject,
            });
          },
        },
        // one index of lease owners for the feed's pages and its live readers
        { provide: LeaseOwners, inject: [EVENT_STORE], useFactory: (store: EventStore) => new LeaseOwners(store) },
        {
          provide: EventFeed,
          inject: [EVENT_STORE, LeaseOwners],
          useFactory: (store: EventStore, owners: LeaseOwners) => new EventFeed(store, owners),
        },
        // one watcher of the log for every live reader of the process (event streams, subscriptions)
        {
          provide: LiveLog,
          inject: [EVENT_STORE, LeaseOwners],
          useFactory: (store: EventStore, owners: LeaseOwners) => new LiveLog(store, owners, FEED_LIMIT_MAX),
        },
        {
          provide: FeedStreams,
          inject: [EventFeed, LiveLog],
          useFactory: (feed: EventFeed, log: LiveLog) =>
            new FeedStreams(feed, log, {
              maxStreams: config.feedMaxStreams,
              maxStreamsPerTenant: config.feedMaxStreamsPerTenant,
              heartbeatMs: config.feedHeartbeatMs,
            }),
        },
        {
          provide: UsageIndex,
          inject: [EVENT_STORE],
          // folded once the API listens (server.ts), not before: a report waits for it
          useFactory: (store: EventStore) => new UsageIndex(store),
        },
        {
          provide: UsageQueries,
          inject: [EVENT_STORE, UsageIndex],
          useFactory: (store: EventStore, index: UsageIndex) => new UsageQueries(store, index),
        },
        {
          provide: RateCardUseCases,
          inject: [APPLICATION_CONTEXT],
          useFactory: (context: ApplicationContext) => new RateCardUseCases(context),
        },
        {
          provide: FairShareQueries,
          inject: [UsageIndex],
          useFactory: (index: UsageIndex) => new FairShareQueries(index, config.fairShare),
        },
        {
          provide: FairShareUseCases,
          inject: [APPLICATION_CONTEXT],
          useFactory: (context: ApplicationContext) => new FairShareUseCases(context),
        },
        {
          provide: ReadYourWrites,
          inject: [READ_MODEL_ORM, EVENT_STORE, CLOCK],
          useFactory: (orm: MikroORM, store: EventStore, clock: () => Date) =>
            new ReadYourWrites(orm, store, config.readYourWritesTimeoutMs, clock),
        },
        {
          provide: PointInTime,
          inject: [READ_MODEL_ORM, EVENT_STORE, CLOCK],
          useFactory: (orm: MikroORM, store: EventStore, clock: () => Date) => new PointInTime(orm, store, clock),
        },
        // first, so outermost: a pre-serialised body leaves as its text after every other interceptor
        { provide: APP_INTERCEPTOR, useClass: JsonTextInterceptor },
        { provide: APP_INTERCEPTOR, useClass: ReadYourWritesInterceptor },
        { provide: APP_INTERCEPTOR, useClass: RefusalAuditInterceptor },
        { provide: APP_PIPE, useClass: RouteParametersPipe },
        ...BUS_HANDLERS,
        ...GRAPHQL_PROVIDERS,
        graphqlSockets(config, auth),
        Lifecycle,
      ],
    };
  }
}
