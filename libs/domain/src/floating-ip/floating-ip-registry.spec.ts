import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import { type FloatingIpRegistryCommand, type FloatingIpRegistryEvent, floatingIpRegistryDecider } from './floating-ip-registry.js';
import { FLOATING_IP_REGISTRY_STREAM, floatingIpRegistryKey } from './floating-ip.types.js';

const added = (floatingIpId: string, networkId: string, address: string): FloatingIpRegistryEvent => ({
  type: 'FloatingIpRegistry.Added',
  data: { floatingIpId, networkId, address },
});

const removed = (floatingIpId: string, networkId: string, address: string): FloatingIpRegistryEvent => ({
  type: 'FloatingIpRegistry.Removed',
  data: { floatingIpId, networkId, address },
});

const add = (floatingIpId: string, networkId: string, address: string): FloatingIpRegistryCommand => ({
  type: 'AddFloatingIpToRegistry',
  data: { floatingIpId, networkId, address },
});

const remove = (floatingIpId: string, networkId: string, address: string): FloatingIpRegistryCommand => ({
  type: 'RemoveFloatingIpFromRegistry',
  data: { floatingIpId, networkId, address },
});

const given = DeciderSpecification.for(floatingIpRegistryDecider);

describe('AddFloatingIpToRegistry', () => {
  describe('When empty', () => {
    it('adds the address', () => {
      given([])
        .when(add('fip-1', 'net-ext', '172.24.4.10'))
        .then([added('fip-1', 'net-ext', '172.24.4.10')]);
    });
  });

  describe('When 172.24.4.10 is registered on net-ext', () => {
    const history = (): FloatingIpRegistryEvent[] => [added('fip-1', 'net-ext', '172.24.4.10')];

    it('refuses the same address on the same network', () => {
      given(history())
        .when(add('fip-2', 'net-ext', '172.24.4.10'))
        .thenThrows('FLOATING_IP_ALREADY_REGISTERED', 'Floating IP 172.24.4.10 on network net-ext is already registered with id fip-1');
    });

    it('refuses the same floating IP added twice', () => {
      given(history())
        .when(add('fip-1', 'net-ext', '172.24.4.10'))
        .thenThrows('FLOATING_IP_ALREADY_REGISTERED');
    });

    it('accepts the same address on another network', () => {
      given(history())
        .when(add('fip-2', 'net-other', '172.24.4.10'))
        .then([added('fip-2', 'net-other', '172.24.4.10')]);
    });

    it('accepts another address on the same network', () => {
      given(history())
        .when(add('fip-2', 'net-ext', '172.24.4.11'))
        .then([added('fip-2', 'net-ext', '172.24.4.11')]);
    });

    it('accepts the address again once removed', () => {
      given([...history(), removed('fip-1', 'net-ext', '172.24.4.10')])
        .when(add('fip-2', 'net-ext', '172.24.4.10'))
        .then([added('fip-2', 'net-ext', '172.24.4.10')]);
    });
  });
});

describe('RemoveFloatingIpFromRegistry', () => {
  const history = (): FloatingIpRegistryEvent[] => [added('fip-1', 'net-ext', '172.24.4.10')];

  it('removes a registered address', () => {
    given(history())
      .when(remove('fip-1', 'net-ext', '172.24.4.10'))
      .then([removed('fip-1', 'net-ext', '172.24.4.10')]);
  });

  it('does nothing for an address that is not registered', () => {
    given(history())
      .when(remove('fip-2', 'net-ext', '172.24.4.11'))
      .thenNothing();
  });

  it('does nothing when the address belongs to another floating IP', () => {
    given(history())
      .when(remove('fip-2', 'net-ext', '172.24.4.10'))
      .thenNothing();
  });

  it('does nothing when removed already', () => {
    given([...history(), removed('fip-1', 'net-ext', '172.24.4.10')])
      .when(remove('fip-1', 'net-ext', '172.24.4.10'))
      .thenNothing();
  });
});

describe('evolve', () => {
  it('starts empty', () => {
    expect(floatingIpRegistryDecider.initialState().byAddress.size).toBe(0);
  });

  it('maps network and address to the floating IP, forgetting removed ones', () => {
    const state = foldEvents(floatingIpRegistryDecider, [
      added('fip-1', 'net-ext', '172.24.4.10'),
      added('fip-2', 'net-ext', '172.24.4.11'),
      added('fip-3', 'net-other', '172.24.4.10'),
      removed('fip-2', 'net-ext', '172.24.4.11'),
    ]);
    expect([...state.byAddress]).toEqual([
      [floatingIpRegistryKey('net-ext', '172.24.4.10'), 'fip-1'],
      [floatingIpRegistryKey('net-other', '172.24.4.10'), 'fip-3'],
    ]);
  });

  it('does not change the state it is given', () => {
    const before = foldEvents(floatingIpRegistryDecider, [added('fip-1', 'net-ext', '172.24.4.10')]);
    floatingIpRegistryDecider.evolve(before, removed('fip-1', 'net-ext', '172.24.4.10'));
    expect(before.byAddress.get(floatingIpRegistryKey('net-ext', '172.24.4.10'))).toBe('fip-1');
  });

  it('names one stream for the registry', () => {
    expect(FLOATING_IP_REGISTRY_STREAM).toBe('floatingipregistry-main');
  });
});
