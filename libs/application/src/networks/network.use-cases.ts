import type { NetworkPropertyState } from '#plugins/network/network-property.js';
import { networkPropertyDecider, networkPropertyStream } from '#plugins/network/network-property.js';
import { NETWORK_REGISTRY_STREAM, type NetworkRegistryState, networkRegistryDecider } from '#plugins/network/network-registry.js';
import { networkSegmentDecider } from '#plugins/network/network-segment.decide.js';
import type { NetworkSegmentEvent } from '#plugins/network/network-segment.events.js';
import { networkNotFound } from '#plugins/network/network-segment.rules.js';
import type { NetworkSegmentState } from '#plugins/network/network-segment.state.js';
import type { NetworkCapabilities, NetworkSegment } from '#plugins/network/network-segment.types.js';
import { networkStream } from '#plugins/network/network-segment.types.js';
import type { NetworkSegments } from '#plugins/network/network-segments.port.js';
import { networkSegments } from '#plugins/network/network.kind.js';
import type { ApplicationContext } from '../application-context.js';
import { authorize } from '../caller.js';
import { type AppCommand, appendTo, eventMetadata } from '../command.js';
import type { Handled } from '../command-handler.js';
import { ACTIONS } from '../policy/policy-defaults.js';

const KIND = networkSegments.kind;

export interface NewNetworkSegment extends NetworkSegment {
  readonly capabilities: NetworkCapabilities;
}

export type RegisterNetwork = AppCommand<'RegisterNetwork', { readonly network: NewNetworkSegment }>;
export type UpdateNetwork = AppCommand<
  'UpdateNetwork',
  { readonly networkId: string; readonly set: NetworkCapabilities; readonly unset: readonly string[] }
>;
export type UnregisterNetwork = AppCommand<'UnregisterNetwork', { readonly networkId: string }>;
export type SetNetworkPropertyPrivacy = AppCommand<
  'SetNetworkPropertyPrivacy',
  { readonly propertyName: string; readonly private: boolean }
>;

export interface NetworkChanged {
  readonly networkId: string;
  /** The segment's events so far that the answer folds (all of them for a registration). */
  readonly events: readonly NetworkSegmentEvent[];
  readonly position: number;
}

/** Who may do what to network segments: the use cases enforce it; a transport may ask first (upstream answers 403 before 400). */
export const NETWORK_POLICY = {
  register: ACTIONS.networkPost,
  update: ACTIONS.networkPut,
  unregister: ACTIONS.networkDelete,
  setPropertyPrivacy: ACTIONS.networkPropertiesUpdate,
} as const;

/**
 * The network-segment inventory: the registry stream keeps each (network_type, physical_network, segment_id)
 * registered once, appended atomically with the segment's own stream.
 */
export class NetworkUseCases {
  constructor(
    private readonly context: ApplicationContext,
    private readonly segments: NetworkSegments,
  ) {}

  async register(command: RegisterNetwork): Promise<NetworkChanged> {
    authorize(command.metadata.actor, NETWORK_POLICY.register);
    const { capabilities, ...segment } = command.data.network;
    await this.segments.checkUnused(segment);
    const { handler, index, newId } = this.context;
    const info = { networkId: newId(), ...segment };
    const metadata = eventMetadata(command.metadata);
    const { result, position } = await handler.handle(async () => {
      await index.catchUp();
      const registry = index.kindRegistry<NetworkRegistryState>(KIND);
      const added = networkRegistryDecider.decide({ type: 'AddSegmentToRegistry', data: info }, registry.state);
      const data = { ...info, capabilities, now: command.metadata.now };
      const events = networkSegmentDecider.decide({ type: 'RegisterNetworkSegment', data }, networkSegmentDecider.initialState());
      const appends = [
        appendTo(NETWORK_REGISTRY_STREAM, registry.revision, added, metadata, newId),
        appendTo(networkStream(info.networkId), 'no_stream', events, metadata, newId),
      ];
      return { appends, result: events };
    });
    return { networkId: info.networkId, events: result, position };
  }

  /** Sets and unsets extra capabilities; answers with every event of the segment, for its view. */
  async update(command: UpdateNetwork): Promise<NetworkChanged> {
    authorize(command.metadata.actor, NETWORK_POLICY.update);
    const { handler, index, newId } = this.context;
    const { networkId, set, unset } = command.data;
    const { position } = await handler.handle(async () => {
      await index.catchUp();
      const segment = index.kindResource<NetworkSegmentState>(KIND, networkId);
      if (segment.state.status !== 'Registered') throw networkNotFound(networkId);
      const data = { set, unset, now: command.metadata.now };
      const events = networkSegmentDecider.decide({ type: 'UpdateNetworkSegment', data }, segment.state);
      return {
        appends: [appendTo(networkStream(networkId), segment.revision, events, eventMetadata(command.metadata), newId)],
        result: null,
      };
    });
    const { events } = await handler.load(networkSegmentDecider, networkStream(networkId));
    return { networkId, events, position };
  }

  async unregister(command: UnregisterNetwork): Promise<Handled<null>> {
    authorize(command.metadata.actor, NETWORK_POLICY.unregister);
    const { handler, index, newId } = this.context;
    const { networkId } = command.data;
    return handler.handle(async () => {
      await index.catchUp();
      const segment = index.kindResource<NetworkSegmentState>(KIND, networkId);
      if (segment.state.status !== 'Registered') throw networkNotFound(networkId);
      const events = networkSegmentDecider.decide({ type: 'UnregisterNetworkSegment', data: { now: command.metadata.now } }, segment.state);
      const { networkType, physicalNetwork, segmentId } = segment.state;
      const registry = index.kindRegistry<NetworkRegistryState>(KIND);
      const entry = { networkId, networkType, physicalNetwork, segmentId };
      const removed = networkRegistryDecider.decide({ type: 'RemoveSegmentFromRegistry', data: entry }, registry.state);
      const metadata = eventMetadata(command.metadata);
      return {
        appends: [
          appendTo(networkStream(networkId), segment.revision, events, metadata, newId),
          appendTo(NETWORK_REGISTRY_STREAM, registry.revision, removed, metadata, newId),
        ],
        result: null,
      };
    });
  }

  /** Privacy of an extra capability name some segment has or had (Chameleon's network resource property). */
  async setPropertyPrivacy(command: SetNetworkPropertyPrivacy): Promise<Handled<null>> {
    authorize(command.metadata.actor, NETWORK_POLICY.setPropertyPrivacy);
    const { handler, index, newId } = this.context;
    const { propertyName } = command.data;
    return handler.handle(async () => {
      await index.catchUp();
      const property = index.kindProperty<NetworkPropertyState>(KIND, propertyName);
      const known = index.isKnownKindProperty(KIND, propertyName);
      const data = { propertyName, private: command.data.private, known, now: command.metadata.now };
      const events = networkPropertyDecider.decide({ type: 'SetNetworkPropertyPrivacy', data }, property.state);
      const expected = property.revision === -1 ? 'no_stream' : property.revision;
      const append = appendTo(networkPropertyStream(propertyName), expected, events, eventMetadata(command.metadata), newId);
      return { appends: [append], result: null };
    });
  }
}
