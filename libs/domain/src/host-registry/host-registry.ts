import type { Command, Decider, DomainEvent } from '../shared/decider.js';
import { conflict } from '../shared/errors.js';

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
  /** hypervisor hostname -> host id, for registered hosts only. */
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

const evolve = (state: HostRegistryState, event: HostRegistryEvent): HostRegistryState => {
  const byName = new Map(state.byName);
  switch (event.type) {
    case 'HostRegistry.HostAdded':
      byName.set(event.data.hypervisorHostname, event.data.hostId);
      return { lastHostId: Math.max(state.lastHostId, Number(event.data.hostId)), byName };
    case 'HostRegistry.HostRemoved':
      byName.delete(event.data.hypervisorHostname);
      return { ...state, byName };
    default: {
      const _never: never = event;
      return _never;
    }
  }
};

export const hostRegistryDecider: Decider<HostRegistryState, HostRegistryCommand, HostRegistryEvent> = {
  initialState: () => ({ lastHostId: 0, byName: new Map() }),
  decide,
  evolve,
};
