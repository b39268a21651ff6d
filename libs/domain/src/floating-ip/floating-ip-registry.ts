import type { Command, Decider, DomainEvent } from '../shared/decider.js';
import { conflict } from '../shared/errors.js';
import { type FloatingIpRegistryState, floatingIpRegistryKey } from './floating-ip.types.js';

/**
 * One stream for all registrations, like the host registry: an address is registered once per
 * external network (upstream's duplicate is a database error, a 500), appended atomically with the
 * floating IP's own stream.
 */
export type FloatingIpRegistryEvent =
  | DomainEvent<'FloatingIpRegistry.Added', { readonly floatingIpId: string; readonly networkId: string; readonly address: string }>
  | DomainEvent<'FloatingIpRegistry.Removed', { readonly floatingIpId: string; readonly networkId: string; readonly address: string }>;

export type FloatingIpRegistryCommand =
  | Command<'AddFloatingIpToRegistry', { readonly floatingIpId: string; readonly networkId: string; readonly address: string }>
  | Command<'RemoveFloatingIpFromRegistry', { readonly floatingIpId: string; readonly networkId: string; readonly address: string }>;

const decide = (command: FloatingIpRegistryCommand, state: FloatingIpRegistryState): readonly FloatingIpRegistryEvent[] => {
  const key = floatingIpRegistryKey(command.data.networkId, command.data.address);
  switch (command.type) {
    case 'AddFloatingIpToRegistry': {
      const existing = state.byAddress.get(key);
      if (existing !== undefined) {
        throw conflict(
          'FLOATING_IP_ALREADY_REGISTERED',
          `Floating IP ${command.data.address} on network ${command.data.networkId} is already registered with id ${existing}`,
        );
      }
      return [{ type: 'FloatingIpRegistry.Added', data: command.data }];
    }
    case 'RemoveFloatingIpFromRegistry':
      return state.byAddress.get(key) === command.data.floatingIpId ? [{ type: 'FloatingIpRegistry.Removed', data: command.data }] : [];
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

const evolve = (state: FloatingIpRegistryState, event: FloatingIpRegistryEvent): FloatingIpRegistryState => {
  const byAddress = new Map(state.byAddress);
  const key = floatingIpRegistryKey(event.data.networkId, event.data.address);
  switch (event.type) {
    case 'FloatingIpRegistry.Added':
      byAddress.set(key, event.data.floatingIpId);
      return { byAddress };
    case 'FloatingIpRegistry.Removed':
      byAddress.delete(key);
      return { byAddress };
    default: {
      const _never: never = event;
      return state;
    }
  }
};

export const floatingIpRegistryDecider: Decider<FloatingIpRegistryState, FloatingIpRegistryCommand, FloatingIpRegistryEvent> = {
  initialState: () => ({ byAddress: new Map() }),
  decide,
  evolve,
};
