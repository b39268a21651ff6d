import type { Command, Decider, DomainEvent } from '../shared/decider.js';
import { conflict } from '../shared/errors.js';
import { PersistentMap } from '../shared/persistent-map.js';

/**
 * One stream for all registrations: hypervisor names are unique and host ids are handed out in order.
 * Registrations are rare, so serialising them on one stream costs nothing and keeps both invariants
 * inside the store's consistency boundary (appended atomically with the host's own stream).
 */
export const HOST_REGISTRY_STREAM = 'hostregistry-main';

export type HostRegistryEvent =
  | DomainEvent<'HostRegistry.HostAdded', { readonly hostId: string; readonly hypervisorHostname: string }>
  | DomainEvent<'HostRegistry.HostRemoved', { readonly hostId: string; readonly hypervisorHostname: string }>;

export type HostRegistryCommand =
  | Command<'AddHostToRegistry', { readonly hypervisorHostname: string }>
  | Command<'RemoveHostFromRegistry', { readonly hostId: string; readonly hypervisorHostname: string }>;

export interface HostRegistryState {
  readonly lastHostId: number;
  /**
   * hypervisor hostname -> host id, for registered hosts only. A PersistentMap as evolve leaves it (a state
   * restored from a snapshot may hold a Map: its first evolve turns it into one).
   */
  readonly byName: ReadonlyMap<string, string>;
}

const decide = (command: HostRegistryCommand, state: HostRegistryState): readonly HostRegistryEvent[] => {
  switch (command.type) {
    case 'AddHostToRegistry': {
      const { hypervisorHostname } = command.data;
      const existing = state.byName.get(hypervisorHostname);
      if (existing !== undefined) {
        throw conflict('HOST_ALREADY_REGISTERED', `Host ${hypervisorHostname} is already registered with id ${existing}`);
      }
      return [{ type: 'HostRegistry.HostAdded', data: { hostId: String(state.lastHostId + 1), hypervisorHostname } }];
    }
    case 'RemoveHostFromRegistry':
      return state.byName.get(command.data.hypervisorHostname) === command.data.hostId
        ? [{ type: 'HostRegistry.HostRemoved', data: command.data }]
        : [];
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

/**
 * Each event shares all but O(log n) of the names with the state before it (see PersistentMap): a copy
 * of every name per registration made folding 10,000 registrations quadratic, and the earlier state
 * must stay as it was (a decision may still read it).
 */
const evolve = (state: HostRegistryState, event: HostRegistryEvent): HostRegistryState => {
  const byName = PersistentMap.from(state.byName);
  switch (event.type) {
    case 'HostRegistry.HostAdded':
      return {
        lastHostId: Math.max(state.lastHostId, Number(event.data.hostId)),
        byName: byName.set(event.data.hypervisorHostname, event.data.hostId),
      };
    case 'HostRegistry.HostRemoved':
      return { ...state, byName: byName.delete(event.data.hypervisorHostname) };
    default: {
      const _never: never = event;
      return state;
    }
  }
};

export const hostRegistryDecider: Decider<HostRegistryState, HostRegistryCommand, HostRegistryEvent> = {
  initialState: () => ({ lastHostId: 0, byName: PersistentMap.empty<string>() }),
  decide,
  evolve,
};
