import { type Command, type Decider, type DomainEvent, conflict } from '#domain/index.js';
import { describeSegment } from './network-segment.rules.js';
import type { NetworkSegment, NetworkSegmentInfo } from './network-segment.types.js';

/**
 * One stream for every registration, appended atomically with the segment's own stream: a (network_type,
 * physical_network, segment_id) is registered once (Chameleon's unique key, whose duplicate is a database error).
 */
export const NETWORK_REGISTRY_STREAM = 'networkregistry-main';

export interface NetworkRegistryState {
  /** segmentKey -> network id, for registered segments only. */
  readonly bySegment: ReadonlyMap<string, string>;
}

/** One key per segment: a null part never equals a name, nor 0 an id, so no two segments share one. */
export const segmentKey = ({ networkType, physicalNetwork, segmentId }: NetworkSegment): string =>
  JSON.stringify([networkType, physicalNetwork, segmentId]);

export type NetworkRegistryEvent =
  DomainEvent<'NetworkRegistry.SegmentAdded', NetworkSegmentInfo> | DomainEvent<'NetworkRegistry.SegmentRemoved', NetworkSegmentInfo>;

export type NetworkRegistryCommand =
  Command<'AddSegmentToRegistry', NetworkSegmentInfo> | Command<'RemoveSegmentFromRegistry', NetworkSegmentInfo>;

const decide = (command: NetworkRegistryCommand, state: NetworkRegistryState): readonly NetworkRegistryEvent[] => {
  const existing = state.bySegment.get(segmentKey(command.data));
  switch (command.type) {
    case 'AddSegmentToRegistry':
      if (existing !== undefined) {
        throw conflict(
          'NETWORK_ALREADY_REGISTERED',
          `Network segment ${describeSegment(command.data)} is already registered with id ${existing}`,
        );
      }
      return [{ type: 'NetworkRegistry.SegmentAdded', data: command.data }];
    case 'RemoveSegmentFromRegistry':
      return existing === command.data.networkId ? [{ type: 'NetworkRegistry.SegmentRemoved', data: command.data }] : [];
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

const evolve = (state: NetworkRegistryState, event: NetworkRegistryEvent): NetworkRegistryState => {
  const bySegment = new Map(state.bySegment);
  switch (event.type) {
    case 'NetworkRegistry.SegmentAdded':
      bySegment.set(segmentKey(event.data), event.data.networkId);
      return { bySegment };
    case 'NetworkRegistry.SegmentRemoved':
      bySegment.delete(segmentKey(event.data));
      return { bySegment };
    default: {
      const _never: never = event;
      return state;
    }
  }
};

export const networkRegistryDecider: Decider<NetworkRegistryState, NetworkRegistryCommand, NetworkRegistryEvent> = {
  initialState: () => ({ bySegment: new Map() }),
  decide,
  evolve,
};
