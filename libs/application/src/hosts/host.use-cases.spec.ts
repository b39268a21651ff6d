import { describe, expect, it } from 'vitest';
import {
  type Capabilities,
  HOST_REGISTRY_STREAM,
  type HostInfo,
  MAX_CAPABILITY_KEY_LENGTH,
  hostHavingServers,
  hostStream,
  propertyStream,
} from '#domain/index.js';
import { NovaHostInventory } from '#plugins/openstack/nova-host-inventory.js';
import { NovaClient } from '#plugins/openstack/nova.client.js';
import type { HostDescription, HostInventory, HostToRegister } from '#plugins/ports/host-inventory.port.js';
import { unreachableSession } from '#plugins/testing/unreachable-cloud.js';
import { StandaloneHostInventory } from '#plugins/standalone/standalone-host-inventory.js';
import { type StreamEvent, applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import { type HostChanges, HostUseCases } from './host.use-cases.js';

const NOW = '2030-01-01T00:00:00.000Z';
const admin = commandMetadata(testCaller('admin'), NOW);
const member = commandMetadata(testCaller('member'), NOW);

const facts = (name: string): HostInfo => ({
  hypervisorHostname: name,
  serviceName: name,
  vcpus: 8,
  memoryMb: 16384,
  localGb: 100,
  cpuInfo: '{}',
  hypervisorType: 'standalone',
  hypervisorVersion: 0,
  availabilityZone: '',
});

/**
 * A fake of Nova's answers, named as such: Nova runs only in the OpenStack tier, where
 * test/int/openstack/host-inventory.int.spec.ts drives the real NovaHostInventory. These hosts run servers.
 */
class FakeNovaWithServers implements HostInventory {
  constructor(private readonly servers: Readonly<Record<string, readonly string[]>>) {}

  describe(host: HostToRegister): Promise<HostDescription> {
    const name = host.source === 'cloud' ? host.name : host.info.hypervisorHostname;
    return this.checkRemovable(facts(name)).then(() => ({ info: facts(name), capabilities: host.capabilities }));
  }

  checkRemovable(info: HostInfo): Promise<void> {
    const servers = this.servers[info.hypervisorHostname] ?? [];
    return servers.length === 0 ? Promise.resolve() : Promise.reject(hostHavingServers(info.hypervisorHostname, servers));
  }

  computeHostsIn(): Promise<number> {
    return Promise.resolve(Object.keys(this.servers).length);
  }
}

/** The real Nova adapter, with a cloud that does not answer. */
const unreachableNova = (): HostInventory => new NovaHostInventory(new NovaClient(unreachableSession()));

const standalone = applicationSpecification((context) => new HostUseCases(context, new StandaloneHostInventory()));
const withServers = applicationSpecification(
  (context) => new HostUseCases(context, new FakeNovaWithServers({ 'compute-1': ['server-a', 'server-b'] })),
);
const cloudDown = applicationSpecification((context) => new HostUseCases(context, unreachableNova()));

const fromRequest = (name: string, capabilities: Capabilities = {}): HostToRegister => ({
  source: 'request',
  info: facts(name),
  capabilities,
});

const hostAdded = (hostId: string, name: string): StreamEvent => ({
  streamId: HOST_REGISTRY_STREAM,
  type: 'HostRegistry.HostAdded',
  data: { hostId, hypervisorHostname: name },
});
const hostRegistered = (
  hostId: string,
  name: string,
  capabilities: Capabilities = {},
  registeredAt = '2029-12-31T00:00:00.000Z',
): StreamEvent => ({
  streamId: hostStream(hostId),
  type: 'Host.Registered',
  data: { hostId, info: facts(name), capabilities, registeredAt },
});
const registeredHost = (hostId: string, name: string, capabilities: Capabilities = {}): StreamEvent[] => [
  hostAdded(hostId, name),
  hostRegistered(hostId, name, capabilities),
];
/** Reservation r-1 holds host 1 from now on, asking for the `gpu` capability. */
const booked: StreamEvent = {
  streamId: hostStream('1'),
  type: 'Host.Booked',
  data: {
    hostId: '1',
    reservationId: 'r-1',
    leaseId: 'lease-1',
    startDate: NOW,
    endDate: '2030-01-02T00:00:00.000Z',
    propertyNames: ['gpu'],
  },
};

describe('registering a host', () => {
  it('records it in the registry (the next id) and in its own stream, with the facts the inventory gave', async () => {
    const result = await standalone
      .given(registeredHost('1', 'compute-0'))
      .when((hosts) => hosts.register({ type: 'RegisterHost', data: { host: fromRequest('compute-1', { gpu: 'true' }) }, metadata: admin }))
      .then([hostAdded('2', 'compute-1'), hostRegistered('2', 'compute-1', { gpu: 'true' }, NOW)]);
    expect(result).toMatchObject({ hostId: '2', events: [{ type: 'Host.Registered' }] });
    expect(result.position).toBeGreaterThan(0);
  });

  it('is refused to a member (upstream policy: admin only)', async () => {
    await standalone
      .given([])
      .when((hosts) => hosts.register({ type: 'RegisterHost', data: { host: fromRequest('compute-1') }, metadata: member }))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
  });

  it('refuses a name already registered as a conflict', async () => {
    await standalone
      .given(registeredHost('1', 'compute-1'))
      .when((hosts) => hosts.register({ type: 'RegisterHost', data: { host: fromRequest('compute-1') }, metadata: admin }))
      .thenThrows({ code: 'HOST_ALREADY_REGISTERED', kind: 'conflict' });
  });

  it('refuses an extra capability name longer than upstream’s column as invalid', async () => {
    const capabilities = { ['k'.repeat(MAX_CAPABILITY_KEY_LENGTH + 1)]: 'v' };
    await standalone
      .given([])
      .when((hosts) => hosts.register({ type: 'RegisterHost', data: { host: fromRequest('compute-1', capabilities) }, metadata: admin }))
      .thenThrows({ code: 'EXTRA_CAPABILITY_TOO_LONG', kind: 'invalid' });
  });

  it('in standalone mode, refuses a host named without its facts as invalid: no cloud reports them', async () => {
    await standalone
      .given([])
      .when((hosts) =>
        hosts.register({ type: 'RegisterHost', data: { host: { source: 'cloud', name: 'compute-1', capabilities: {} } }, metadata: admin }),
      )
      .thenThrows({ code: 'HOST_FACTS_MISSING', kind: 'invalid' });
  });

  it('refuses a host the cloud runs servers on (upstream’s HostHavingServers)', async () => {
    await withServers
      .given([])
      .when((hosts) =>
        hosts.register({ type: 'RegisterHost', data: { host: { source: 'cloud', name: 'compute-1', capabilities: {} } }, metadata: admin }),
      )
      .thenThrows({ code: 'HOST_HAVING_SERVERS', kind: 'conflict', message: 'Servers [server-a, server-b] found for host compute-1' });
  });

  it('answers `unavailable` when Nova cannot be reached, and records nothing', async () => {
    await cloudDown
      .given([])
      .when((hosts) =>
        hosts.register({ type: 'RegisterHost', data: { host: { source: 'cloud', name: 'compute-1', capabilities: {} } }, metadata: admin }),
      )
      .thenThrows({
        code: 'CLOUD_UNAVAILABLE',
        kind: 'unavailable',
        message: expect.stringMatching(/^Nova is unavailable, nothing was changed; try again later \(.*no answer/),
      });
  });
});

describe('updating a host', () => {
  const update = (hostId: string, changes: HostChanges, metadata = admin) => ({
    type: 'UpdateHost' as const,
    data: { hostId, changes },
    metadata,
  });

  it('records the changed capabilities and reservability, answering with the host’s whole history', async () => {
    const result = await standalone
      .given(registeredHost('1', 'compute-1', { gpu: 'false' }))
      .when((hosts) => hosts.update(update('1', { capabilities: { gpu: 'true' }, reservable: false })))
      .then([
        {
          streamId: hostStream('1'),
          type: 'Host.CapabilitiesUpdated',
          data: { hostId: '1', capabilities: { gpu: 'true' }, updatedAt: NOW },
        },
        {
          streamId: hostStream('1'),
          type: 'Host.ReservableChanged',
          data: { hostId: '1', reservable: false, reason: 'operator request', changedAt: NOW },
        },
      ]);
    expect(result.events.map((event) => event.type)).toEqual(['Host.Registered', 'Host.CapabilitiesUpdated', 'Host.ReservableChanged']);
  });

  it('records nothing when nothing changes (position 0)', async () => {
    const result = await standalone
      .given(registeredHost('1', 'compute-1', { gpu: 'true' }))
      .when((hosts) => hosts.update(update('1', { capabilities: { gpu: 'true' }, reservable: true })))
      .then([]);
    expect(result).toMatchObject({ hostId: '1', position: 0 });
  });

  it('answers upstream’s 404 for a host that is not registered', async () => {
    await standalone
      .given([])
      .when((hosts) => hosts.update(update('9', { capabilities: { gpu: 'true' }, reservable: null })))
      .thenThrows({ code: 'HOST_NOT_FOUND', kind: 'not_found', message: "Object with {'host_id': '9'} not found" });
  });

  it('refuses to change a capability a current reservation asks for', async () => {
    await standalone
      .given([...registeredHost('1', 'compute-1', { gpu: 'true' }), booked])
      .when((hosts) => hosts.update(update('1', { capabilities: { gpu: 'false' }, reservable: null })))
      .thenThrows({ code: 'CAPABILITY_IN_USE', kind: 'conflict' });
  });

  it('is refused to a member', async () => {
    await standalone
      .given(registeredHost('1', 'compute-1'))
      .when((hosts) => hosts.update(update('1', { capabilities: { gpu: 'true' }, reservable: null }, member)))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
  });
});

describe('unregistering a host', () => {
  const unregister = (hostId: string, metadata = admin) => ({ type: 'UnregisterHost' as const, data: { hostId }, metadata });

  it('removes it from its stream and from the registry', async () => {
    await standalone
      .given(registeredHost('1', 'compute-1'))
      .when((hosts) => hosts.unregister(unregister('1')))
      .then([
        {
          streamId: hostStream('1'),
          type: 'Host.Unregistered',
          data: { hostId: '1', hypervisorHostname: 'compute-1', unregisteredAt: NOW },
        },
        { streamId: HOST_REGISTRY_STREAM, type: 'HostRegistry.HostRemoved', data: { hostId: '1', hypervisorHostname: 'compute-1' } },
      ]);
  });

  it('answers upstream’s 404 for a host that is not registered', async () => {
    await standalone
      .given([])
      .when((hosts) => hosts.unregister(unregister('9')))
      .thenThrows({ code: 'HOST_NOT_FOUND', kind: 'not_found' });
  });

  it('refuses a reserved host before asking the cloud (its servers are its tenants’)', async () => {
    await withServers
      .given([...registeredHost('1', 'compute-1', { gpu: 'true' }), booked])
      .when((hosts) => hosts.unregister(unregister('1')))
      .thenThrows({ code: 'HOST_RESERVED', kind: 'conflict' });
  });

  it('refuses a host the cloud runs servers on', async () => {
    await withServers
      .given(registeredHost('1', 'compute-1'))
      .when((hosts) => hosts.unregister(unregister('1')))
      .thenThrows({ code: 'HOST_HAVING_SERVERS', kind: 'conflict' });
  });

  it('answers `unavailable` when Nova cannot be reached, the host staying registered', async () => {
    await cloudDown
      .given(registeredHost('1', 'compute-1'))
      .when((hosts) => hosts.unregister(unregister('1')))
      .thenThrows({ code: 'CLOUD_UNAVAILABLE', kind: 'unavailable' });
  });

  it('is refused to a member', async () => {
    await standalone
      .given(registeredHost('1', 'compute-1'))
      .when((hosts) => hosts.unregister(unregister('1', member)))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
  });
});

describe('setting a resource property’s privacy', () => {
  const setPrivacy = (propertyName: string, isPrivate: boolean, metadata = admin) => ({
    type: 'SetPropertyPrivacy' as const,
    data: { propertyName, private: isPrivate },
    metadata,
  });

  it('records the change for a capability name some host has', async () => {
    await standalone
      .given(registeredHost('1', 'compute-1', { gpu: 'true' }))
      .when((hosts) => hosts.setPropertyPrivacy(setPrivacy('gpu', true)))
      .then([
        {
          streamId: propertyStream('gpu'),
          type: 'ResourceProperty.PrivacyChanged',
          data: { propertyName: 'gpu', private: true, changedAt: NOW },
        },
      ]);
  });

  it('records nothing when the privacy is already so', async () => {
    const result = await standalone
      .given(registeredHost('1', 'compute-1', { gpu: 'true' }))
      .when((hosts) => hosts.setPropertyPrivacy(setPrivacy('gpu', false)))
      .then([]);
    expect(result.position).toBe(0);
  });

  it('answers 404 for a name no host has', async () => {
    await standalone
      .given(registeredHost('1', 'compute-1', { gpu: 'true' }))
      .when((hosts) => hosts.setPropertyPrivacy(setPrivacy('fpga', true)))
      .thenThrows({ code: 'PROPERTY_NOT_FOUND', kind: 'not_found', message: 'Resource property fpga not found' });
  });

  it('is refused to a member', async () => {
    await standalone
      .given(registeredHost('1', 'compute-1', { gpu: 'true' }))
      .when((hosts) => hosts.setPropertyPrivacy(setPrivacy('gpu', true, member)))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
  });
});
