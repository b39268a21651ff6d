import {
  FLOATING_IP_REGISTRY_STREAM,
  type FloatingIpEvent,
  floatingIpDecider,
  floatingIpRegistryDecider,
  floatingIpStream,
} from '#domain/index.js';
import type { FloatingIpNetworks } from '#plugins/ports/floating-ip-networks.port.js';
import type { ApplicationContext } from '../application-context.js';
import { authorize } from '../caller.js';
import { type AppCommand, appendTo, eventMetadata } from '../command.js';
import type { Handled } from '../command-handler.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { floatingIpNotFound } from './floating-ip.errors.js';

export interface NewFloatingIp {
  readonly networkId: string;
  /** Canonical form (the registry compares addresses as strings). */
  readonly address: string;
}

export type RegisterFloatingIp = AppCommand<'RegisterFloatingIp', { readonly floatingIp: NewFloatingIp }>;
export type UnregisterFloatingIp = AppCommand<'UnregisterFloatingIp', { readonly floatingIpId: string }>;

export interface FloatingIpRegistered {
  readonly floatingIpId: string;
  readonly events: readonly FloatingIpEvent[];
  readonly position: number;
}

/** Who may do what to floating IPs: the use cases enforce it; a transport may ask first (upstream answers 403 before 400). */
export const FLOATING_IP_POLICY = { register: ACTIONS.floatingIpPost, unregister: ACTIONS.floatingIpDelete } as const;

/** The floating-IP inventory: the registry stream keeps each (network, address) registered once. */
export class FloatingIpUseCases {
  constructor(
    private readonly context: ApplicationContext,
    private readonly networks: FloatingIpNetworks,
  ) {}

  async register(command: RegisterFloatingIp): Promise<FloatingIpRegistered> {
    authorize(command.metadata.actor, FLOATING_IP_POLICY.register);
    const { networkId, address } = command.data.floatingIp;
    const { subnetId } = await this.networks.locate(networkId, address);
    const { handler, index, newId } = this.context;
    const entry = { floatingIpId: newId(), networkId, address };
    const metadata = eventMetadata(command.metadata);
    const { result, position } = await handler.handle(async () => {
      await index.catchUp();
      const registry = index.floatingIpRegistryState();
      const added = floatingIpRegistryDecider.decide({ type: 'AddFloatingIpToRegistry', data: entry }, registry.state);
      const data = { ...entry, subnetId, now: command.metadata.now };
      const events = floatingIpDecider.decide({ type: 'RegisterFloatingIp', data }, floatingIpDecider.initialState());
      const appends = [
        appendTo(FLOATING_IP_REGISTRY_STREAM, registry.revision, added, metadata, newId),
        appendTo(floatingIpStream(entry.floatingIpId), 'no_stream', events, metadata, newId),
      ];
      return { appends, result: events };
    });
    return { floatingIpId: entry.floatingIpId, events: result, position };
  }

  async unregister(command: UnregisterFloatingIp): Promise<Handled<null>> {
    authorize(command.metadata.actor, FLOATING_IP_POLICY.unregister);
    const { handler, index, newId } = this.context;
    const { floatingIpId } = command.data;
    return handler.handle(async () => {
      await index.catchUp();
      const ip = index.floatingIp(floatingIpId);
      if (ip.state.status !== 'Registered') throw floatingIpNotFound(floatingIpId);
      const events = floatingIpDecider.decide({ type: 'UnregisterFloatingIp', data: { now: command.metadata.now } }, ip.state);
      const registry = index.floatingIpRegistryState();
      const { networkId, address } = ip.state;
      const removed = floatingIpRegistryDecider.decide(
        { type: 'RemoveFloatingIpFromRegistry', data: { floatingIpId, networkId, address } },
        registry.state,
      );
      const metadata = eventMetadata(command.metadata);
      return {
        appends: [
          appendTo(floatingIpStream(floatingIpId), ip.revision, events, metadata, newId),
          appendTo(FLOATING_IP_REGISTRY_STREAM, registry.revision, removed, metadata, newId),
        ],
        result: null,
      };
    });
  }
}
