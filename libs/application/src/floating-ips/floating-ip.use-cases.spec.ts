import { describe, expect, it } from 'vitest';
import { FLOATING_IP_REGISTRY_STREAM, floatingIpStream, invalid } from '#domain/index.js';
import { NeutronClient } from '#plugins/openstack/neutron.client.js';
import { OpenStackFloatingIpNetworks } from '#plugins/openstack/openstack-floating-ip-networks.js';
import type { FloatingIpLocation, FloatingIpNetworks } from '#plugins/ports/floating-ip-networks.port.js';
import { unreachableSession } from '#plugins/testing/unreachable-cloud.js';
import { StandaloneFloatingIpNetworks } from '#plugins/standalone/standalone-floating-ip-networks.js';
import { type StreamEvent, applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import { FloatingIpUseCases, type NewFloatingIp } from './floating-ip.use-cases.js';

const NOW = '2030-01-01T00:00:00.000Z';
const NETWORK = '9d5ab3ff-0a34-4e4c-9d5e-5a1ed1a43c6e';
const admin = commandMetadata(testCaller('admin'), NOW);
const member = commandMetadata(testCaller('member'), NOW);

/**
 * A fake of Neutron's answer, named as such: Neutron runs only in the OpenStack tier, where
 * test/int/openstack/host-inventory.int.spec.ts drives the real OpenStackFloatingIpNetworks.
 */
class FakeNeutronUsingEveryAddress implements FloatingIpNetworks {
  locate(_networkId: string, address: string): Promise<FloatingIpLocation> {
    return Promise.reject(
      invalid('NEUTRON_USES_FLOATING_IP', `The floating IP ${address} is used in allocation_pools or gateway_ip in subnet subnet-1 .`),
    );
  }
}

/** The real Neutron adapter, with a cloud that does not answer. */
const unreachableNeutron = (): FloatingIpNetworks => new OpenStackFloatingIpNetworks(new NeutronClient(unreachableSession()));

const standalone = applicationSpecification((context) => new FloatingIpUseCases(context, new StandaloneFloatingIpNetworks()));
const neutronRefuses = applicationSpecification((context) => new FloatingIpUseCases(context, new FakeNeutronUsingEveryAddress()));
const cloudDown = applicationSpecification((context) => new FloatingIpUseCases(context, unreachableNeutron()));

const address = (last: number): NewFloatingIp => ({ networkId: NETWORK, address: `172.24.4.${last}` });
const register = (floatingIp: NewFloatingIp, metadata = admin) => ({ type: 'RegisterFloatingIp' as const, data: { floatingIp }, metadata });
const unregister = (floatingIpId: string, metadata = admin) => ({
  type: 'UnregisterFloatingIp' as const,
  data: { floatingIpId },
  metadata,
});

const registered = (floatingIpId: string, ip: NewFloatingIp, registeredAt = '2029-12-31T00:00:00.000Z'): StreamEvent[] => [
  { streamId: FLOATING_IP_REGISTRY_STREAM, type: 'FloatingIpRegistry.Added', data: { floatingIpId, ...ip } },
  { streamId: floatingIpStream(floatingIpId), type: 'FloatingIp.Registered', data: { floatingIpId, ...ip, subnetId: null, registeredAt } },
];

describe('registering a floating IP', () => {
  it('records it in the registry and in its own stream under a new id', async () => {
    const result = await standalone
      .given([])
      .when((ips) => ips.register(register(address(10))))
      .then([
        {
          streamId: FLOATING_IP_REGISTRY_STREAM,
          type: 'FloatingIpRegistry.Added',
          data: { floatingIpId: 'id-1', networkId: NETWORK, address: '172.24.4.10' },
        },
        {
          streamId: floatingIpStream('id-1'),
          type: 'FloatingIp.Registered',
          data: { floatingIpId: 'id-1', networkId: NETWORK, address: '172.24.4.10', subnetId: null, registeredAt: NOW },
        },
      ]);
    expect(result).toMatchObject({ floatingIpId: 'id-1', events: [{ type: 'FloatingIp.Registered' }] });
    expect(result.position).toBeGreaterThan(0);
  });

  it('is refused to a member (upstream policy: admin only)', async () => {
    await standalone
      .given([])
      .when((ips) => ips.register(register(address(10), member)))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
  });

  it('refuses an address already registered on that network as a conflict', async () => {
    await standalone
      .given(registered('fip-1', address(10)))
      .when((ips) => ips.register(register(address(10))))
      .thenThrows({ code: 'FLOATING_IP_ALREADY_REGISTERED', kind: 'conflict' });
  });

  it('refuses what the network service refuses, recording nothing', async () => {
    await neutronRefuses
      .given([])
      .when((ips) => ips.register(register(address(150))))
      .thenThrows({ code: 'NEUTRON_USES_FLOATING_IP', kind: 'invalid' });
  });

  it('answers `unavailable` when Neutron cannot be reached, and records nothing', async () => {
    await cloudDown
      .given([])
      .when((ips) => ips.register(register(address(10))))
      .thenThrows({
        code: 'CLOUD_UNAVAILABLE',
        kind: 'unavailable',
        message: expect.stringMatching(/^Neutron is unavailable, nothing was changed; try again later \(/),
      });
  });
});

describe('unregistering a floating IP', () => {
  it('removes it from its stream and from the registry', async () => {
    await standalone
      .given(registered('fip-1', address(10)))
      .when((ips) => ips.unregister(unregister('fip-1')))
      .then([
        {
          streamId: floatingIpStream('fip-1'),
          type: 'FloatingIp.Unregistered',
          data: { floatingIpId: 'fip-1', ...address(10), unregisteredAt: NOW },
        },
        { streamId: FLOATING_IP_REGISTRY_STREAM, type: 'FloatingIpRegistry.Removed', data: { floatingIpId: 'fip-1', ...address(10) } },
      ]);
  });

  it('answers upstream’s 404 for one that is not registered', async () => {
    await standalone
      .given([])
      .when((ips) => ips.unregister(unregister('fip-9')))
      .thenThrows({ code: 'FLOATING_IP_NOT_FOUND', kind: 'not_found', message: 'Floating IP fip-9 not found.' });
  });

  it('refuses one a current reservation holds', async () => {
    const booking = {
      floatingIpId: 'fip-1',
      reservationId: 'r-1',
      leaseId: 'lease-1',
      startDate: NOW,
      endDate: '2030-01-02T00:00:00.000Z',
    };
    await standalone
      .given([...registered('fip-1', address(10)), { streamId: floatingIpStream('fip-1'), type: 'FloatingIp.Booked', data: booking }])
      .when((ips) => ips.unregister(unregister('fip-1')))
      .thenThrows({ code: 'FLOATING_IP_RESERVED', kind: 'conflict' });
  });

  it('is refused to a member', async () => {
    await standalone
      .given(registered('fip-1', address(10)))
      .when((ips) => ips.unregister(unregister('fip-1', member)))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
  });
});
