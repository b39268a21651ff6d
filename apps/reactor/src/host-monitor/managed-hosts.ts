import {
  HOST_REGISTRY_STREAM,
  type HostEvent,
  type HostRegistryEvent,
  type HostRegistryState,
  foldEvents,
  hostRegistryDecider,
  hostStream,
} from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';

export interface ManagedHost {
  readonly hostId: string;
  readonly hypervisorHostname: string;
  /** Nova's compute service host: what os-services, service.update and servers' host name. */
  readonly serviceHost: string;
}

/**
 * The hosts registered in Leasehold, read from the registry stream (incrementally) and each host's
 * Host.Registered; looked up by Nova's service host, falling back to the hypervisor hostname.
 */
export class ManagedHosts {
  private registry: HostRegistryState = hostRegistryDecider.initialState();
  private revision = -1;
  private readonly serviceHosts = new Map<string, string>();
  private refreshing: Promise<void> | null = null;

  constructor(private readonly store: EventStore) {}

  async list(): Promise<readonly ManagedHost[]> {
    await this.refresh();
    return [...this.registry.byName].map(([hypervisorHostname, hostId]) => ({
      hostId,
      hypervisorHostname,
      serviceHost: this.serviceHosts.get(hostId) ?? hypervisorHostname,
    }));
  }

  async byServiceHost(name: string): Promise<ManagedHost | null> {
    const hosts = await this.list();
    return hosts.find((h) => h.serviceHost === name) ?? hosts.find((h) => h.hypervisorHostname === name) ?? null;
  }

  /** One refresh at a time: the consumer and the poller share this view. */
  private async refresh(): Promise<void> {
    this.refreshing ??= this.readNew().finally(() => (this.refreshing = null));
    await this.refreshing;
  }

  private async readNew(): Promise<void> {
    const events = await this.store.readStream(HOST_REGISTRY_STREAM, { fromRevision: this.revision + 1 });
    this.registry = foldEvents(
      hostRegistryDecider,
      events.map((event) => event as unknown as HostRegistryEvent),
      this.registry,
    );
    this.revision = events.at(-1)?.revision ?? this.revision;
    for (const hostId of this.registry.byName.values()) {
      if (!this.serviceHosts.has(hostId)) await this.learnServiceHost(hostId);
    }
  }

  private async learnServiceHost(hostId: string): Promise<void> {
    const [first] = await this.store.readStream(hostStream(hostId));
    const registered = first as unknown as HostEvent | undefined;
    if (registered?.type === 'Host.Registered') this.serviceHosts.set(hostId, registered.data.info.serviceName);
  }
}
