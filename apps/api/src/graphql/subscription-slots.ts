import { Inject, Injectable } from '@nestjs/common';
import { unavailable } from '#domain/index.js';
import { API_CONFIG, type ApiConfig } from '../config.js';
import { HeldCounts } from '../http/held-counts.js';

/**
 * The subscriptions running on each connection and for each project, held to their bounds: one more
 * is refused (503) until one ends. A slot is taken before anything is read, and given back once.
 */
@Injectable()
export class SubscriptionSlots {
  private readonly perConnection = new HeldCounts<object>();
  private readonly perTenant = new HeldCounts<string>();
  private readonly maxPerConnection: number;
  private readonly maxPerTenant: number;

  constructor(@Inject(API_CONFIG) config: ApiConfig) {
    this.maxPerConnection = config.webSockets.maxSubscriptionsPerConnection;
    this.maxPerTenant = config.webSockets.maxSubscriptionsPerTenant;
  }

  /** A slot on `connection` (the socket's upgrade request) and of `tenant`; the function returned gives it back. */
  take(connection: object, tenant: string): () => void {
    if (this.perConnection.of(connection) >= this.maxPerConnection) {
      throw unavailable(
        'CONNECTION_SUBSCRIPTIONS_EXHAUSTED',
        `This connection has ${this.maxPerConnection} subscriptions open, the most it may; complete one first`,
      );
    }
    if (this.perTenant.of(tenant) >= this.maxPerTenant) {
      throw unavailable(
        'TENANT_SUBSCRIPTIONS_EXHAUSTED',
        `Project ${tenant} has ${this.maxPerTenant} subscriptions open on this server, the most it may; complete one first`,
      );
    }
    this.perConnection.add(connection);
    this.perTenant.add(tenant);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.perConnection.remove(connection);
      this.perTenant.remove(tenant);
    };
  }
}
