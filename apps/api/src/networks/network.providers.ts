import type { Provider } from '@nestjs/common';
import type { MikroORM } from '@mikro-orm/core';
import type { ApplicationContext } from '#application/application-context.js';
import { HistoryQueries } from '#application/history/history.queries.js';
import { NetworkQueries } from '#application/networks/network.queries.js';
import { NetworkUseCases } from '#application/networks/network.use-cases.js';
import { NetworkReads } from '#read-model/index.js';
import { NeutronNetworkSegments } from '#plugins/network/openstack/neutron-network-segments.js';
import { StandaloneNetworkSegments } from '#plugins/network/standalone/standalone-network-segments.js';
import { NeutronClient } from '#plugins/openstack/neutron.client.js';
import type { OpenStackSession } from '#plugins/openstack/openstack.session.js';
import { APPLICATION_CONTEXT, OPENSTACK_SESSION, READ_MODEL_ORM } from '../tokens.js';

/** The network segments' use cases and reads (LEASEHOLD_CLOUD=openstack: registration asks Neutron first). */
export const NETWORK_PROVIDERS: Provider[] = [
  {
    provide: NetworkUseCases,
    inject: [APPLICATION_CONTEXT, OPENSTACK_SESSION],
    useFactory: (context: ApplicationContext, session: OpenStackSession | null) =>
      new NetworkUseCases(
        context,
        session === null ? new StandaloneNetworkSegments() : new NeutronNetworkSegments(new NeutronClient(session)),
      ),
  },
  {
    provide: NetworkQueries,
    inject: [READ_MODEL_ORM, HistoryQueries],
    useFactory: (orm: MikroORM, history: HistoryQueries) => new NetworkQueries(new NetworkReads(orm), history),
  },
];
