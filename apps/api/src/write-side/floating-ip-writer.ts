import { randomUUID } from 'node:crypto';
import {
  FLOATING_IP_REGISTRY_STREAM,
  type FloatingIpEvent,
  floatingIpDecider,
  floatingIpRegistryDecider,
  floatingIpStream,
} from '../../../../libs/domain/src/index.js';
import type { EventStore } from '../../../../libs/event-store/src/event-store.port.js';
import { floatingIpNotFound } from '../http/not-found.js';
import type { RequestContext } from '../http/request-context.js';
import { AsyncMutex } from '../../../../libs/application/src/write-model/async-mutex.js';
import { appendRequest, requestMetadata } from './event-envelope.js';
import type { FloatingIpNetworks } from './floating-ip-networks.js';
import { retryOnConflict } from './retry.js';
import type { WriteIndex } from '../../../../libs/application/src/write-model/write-index.js';

export interface NewFloatingIp {
  readonly networkId: string;
  /** Canonical form (the registry compares addresses as strings). */
  readonly address: string;
}

export interface FloatingIpWriteResult {
  readonly floatingIpId: string;
  readonly events: readonly FloatingIpEvent[];
  readonly position: number;
}

/** Floating-IP inventory commands; the registry stream keeps each (network, address) registered once. */
export class FloatingIpWriter {
  private readonly lock = new AsyncMutex();

  constructor(
    private readonly store: EventStore,
    private readonly index: WriteIndex,
    private readonly networks: FloatingIpNetworks,
    private readonly clock: () => Date,
    private readonly newId: () => string = randomUUID,
  ) {}

  async register(request: NewFloatingIp, context: RequestContext): Promise<FloatingIpWriteResult> {
    const metadata = requestMetadata(context);
    // asked before deciding: an outside call must not hold the lock
    const { subnetId } = await this.networks.locate(request.networkId, request.address);
    const floatingIpId = this.newId();
    const entry = { floatingIpId, networkId: request.networkId, address: request.address };
    return this.lock.run(() =>
      retryOnConflict(async () => {
        await this.index.catchUp();
        const registry = this.index.floatingIpRegistryState();
        const added = floatingIpRegistryDecider.decide({ type: 'AddFloatingIpToRegistry', data: entry }, registry.state);
        const now = this.clock().toISOString();
        const events = floatingIpDecider.decide({ type: 'RegisterFloatingIp', data: { ...entry, subnetId, now } }, floatingIpDecider.initialState());
        const result = await this.store.appendMultiple([
          appendRequest(FLOATING_IP_REGISTRY_STREAM, registry.revision, added, metadata),
          appendRequest(floatingIpStream(floatingIpId), 'no_stream', events, metadata),
        ]);
        return { floatingIpId, events, position: result.position };
      }),
    );
  }

  unregister(floatingIpId: string, context: RequestContext): Promise<number> {
    const metadata = requestMetadata(context);
    return this.lock.run(() =>
      retryOnConflict(async () => {
        await this.index.catchUp();
        const ip = this.index.floatingIp(floatingIpId);
        if (ip.state.status !== 'Registered') throw floatingIpNotFound(floatingIpId);
        const events = floatingIpDecider.decide({ type: 'UnregisterFloatingIp', data: { now: this.clock().toISOString() } }, ip.state);
        const registry = this.index.floatingIpRegistryState();
        const { networkId, address } = ip.state;
        const removed = floatingIpRegistryDecider.decide(
          { type: 'RemoveFloatingIpFromRegistry', data: { floatingIpId, networkId, address } },
          registry.state,
        );
        const result = await this.store.appendMultiple([
          appendRequest(floatingIpStream(floatingIpId), ip.revision, events, metadata),
          appendRequest(FLOATING_IP_REGISTRY_STREAM, registry.revision, removed, metadata),
        ]);
        return result.position;
      }),
    );
  }
}
