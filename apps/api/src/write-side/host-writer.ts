import {
  type Capabilities,
  HOST_REGISTRY_STREAM,
  type HostEvent,
  type HostInfo,
  hostDecider,
  hostRegistryDecider,
  hostStream,
  propertyStream,
  resourcePropertyDecider,
} from '../../../../libs/domain/src/index.js';
import type { EventStore } from '../../../../libs/event-store/src/event-store.port.js';
import { hostNotFound } from '../http/not-found.js';
import type { RequestContext } from '../http/request-context.js';
import { AsyncMutex } from '../../../../libs/application/src/write-model/async-mutex.js';
import { appendRequest, envelope, requestMetadata } from './event-envelope.js';
import type { HostInventory } from './host-inventory.js';
import { retryOnConflict } from './retry.js';
import type { WriteIndex } from '../../../../libs/application/src/write-model/write-index.js';

export interface HostWriteResult {
  readonly hostId: string;
  readonly events: readonly HostEvent[];
  readonly position: number;
}

export interface HostChanges {
  readonly capabilities: Capabilities;
  readonly reservable: boolean | null;
}

/** Host inventory commands; the registry stream keeps names unique and ids sequential. */
export class HostWriter {
  private readonly lock = new AsyncMutex();

  constructor(
    private readonly store: EventStore,
    private readonly index: WriteIndex,
    private readonly clock: () => Date,
    private readonly inventory: HostInventory,
  ) {}

  private async hostEvents(hostId: string): Promise<HostEvent[]> {
    const recorded = await this.store.readStream(hostStream(hostId));
    return recorded.map((e) => ({ type: e.type, data: e.data }) as HostEvent);
  }

  register(info: HostInfo, capabilities: Capabilities, context: RequestContext): Promise<HostWriteResult> {
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        await this.index.catchUp();
        const registry = this.index.registryState();
        const added = hostRegistryDecider.decide({ type: 'AddHostToRegistry', data: { hypervisorHostname: info.hypervisorHostname } }, registry.state);
        const hostId = added[0]?.data.hostId ?? '';
        const now = this.clock().toISOString();
        const events = hostDecider.decide({ type: 'RegisterHost', data: { hostId, info, capabilities, now } }, hostDecider.initialState());
        const result = await this.store.appendMultiple([
          appendRequest(HOST_REGISTRY_STREAM, registry.revision, added, metadata),
          appendRequest(hostStream(hostId), 'no_stream', events, metadata),
        ]);
        return { hostId, events, position: result.position };
      }),
    );
  }

  update(hostId: string, changes: HostChanges, context: RequestContext): Promise<HostWriteResult> {
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        await this.index.catchUp();
        const host = this.index.host(hostId);
        if (host.state.status !== 'Registered') throw hostNotFound(hostId);
        const now = this.clock().toISOString();
        const events = [
          ...hostDecider.decide({ type: 'UpdateHostCapabilities', data: { capabilities: changes.capabilities, now } }, host.state),
          ...(changes.reservable === null
            ? []
            : hostDecider.decide({ type: 'SetHostReservable', data: { reservable: changes.reservable, reason: 'operator request', now } }, host.state)),
        ];
        const position = events.length === 0 ? 0 : (await this.store.appendToStream(hostStream(hostId), host.revision, envelope(events, metadata))).position;
        return { hostId, events: await this.hostEvents(hostId), position };
      }),
    );
  }

  unregister(hostId: string, context: RequestContext): Promise<number> {
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        await this.index.catchUp();
        const host = this.index.host(hostId);
        if (host.state.status !== 'Registered') throw hostNotFound(hostId);
        const events = hostDecider.decide({ type: 'UnregisterHost', data: { now: this.clock().toISOString() } }, host.state);
        // asked only of a host no reservation holds: a reserved host's servers are its tenants'
        await this.inventory.checkRemovable(host.state.info);
        const registry = this.index.registryState();
        const removed = hostRegistryDecider.decide(
          { type: 'RemoveHostFromRegistry', data: { hostId, hypervisorHostname: host.state.info.hypervisorHostname } },
          registry.state,
        );
        const result = await this.store.appendMultiple([
          appendRequest(hostStream(hostId), host.revision, events, metadata),
          appendRequest(HOST_REGISTRY_STREAM, registry.revision, removed, metadata),
        ]);
        return result.position;
      }),
    );
  }

  setPropertyPrivacy(propertyName: string, isPrivate: boolean, context: RequestContext): Promise<number> {
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        await this.index.catchUp();
        const property = this.index.property(propertyName);
        const known = this.index.isKnownProperty(propertyName);
        const now = this.clock().toISOString();
        const events = resourcePropertyDecider.decide({ type: 'SetPropertyPrivacy', data: { propertyName, private: isPrivate, known, now } }, property.state);
        if (events.length === 0) return 0;
        const expected = property.revision === -1 ? 'no_stream' : property.revision;
        const result = await this.store.appendToStream(propertyStream(propertyName), expected, envelope(events, metadata));
        return result.position;
      }),
    );
  }
}
