import { describe, expect, it } from 'vitest';
import { conflict } from '#domain/index.js';
import { NETWORK_REGISTRY_STREAM } from '#plugins/network/network-registry.js';
import { networkPropertyStream } from '#plugins/network/network-property.js';
import type { NetworkSegment } from '#plugins/network/network-segment.types.js';
import { networkStream } from '#plugins/network/network-segment.types.js';
import type { NetworkSegments } from '#plugins/network/network-segments.port.js';
import { NeutronNetworkSegments } from '#plugins/network/openstack/neutron-network-segments.js';
import { StandaloneNetworkSegments } from '#plugins/network/standalone/standalone-network-segments.js';
import { NeutronClient } from '#plugins/openstack/neutron.client.js';
import { unreachableSession } from '#plugins/testing/unreachable-cloud.js';
import { type StreamEvent, applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import { type NewNetworkSegment, NetworkUseCases } from './network.use-cases.js';

const NOW = '2030-01-01T09:00:00.000Z';
const admin = commandMetadata(testCaller('admin'), NOW);
const member = commandMetadata(testCaller('member'), NOW);

/**
 * A fake of Neutron's answer, named as such: Neutron runs only in the OpenStack tier; the real adapter is driven
 * below against a cloud that does not answer.
 */
class FakeNeutronWithANetworkOnEverySegment implements NetworkSegments {
  checkUnused(segment: NetworkSegment): Promise<void> {
    return Promise.reject(
      conflict('NETWORK_SEGMENT_IN_USE', `Network segment vlan ${segment.physicalNetwork} is used by Neutron network n-1`),
    );
  }
}

const standalone = applicationSpecification((context) => new NetworkUseCases(context, new StandaloneNetworkSegments()));
const neutronUses = applicationSpecification((context) => new NetworkUseCases(context, new FakeNeutronWithANetworkOnEverySegment()));
const cloudDown = applicationSpecification(
  (context) => new NetworkUseCases(context, new NeutronNetworkSegments(new NeutronClient(unreachableSession()))),
);

const VLAN: NewNetworkSegment = { networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: 1234, capabilities: { switch: 's1' } };
const SEGMENT = { networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: 1234 } as const;

const register = (network: NewNetworkSegment = VLAN, metadata = admin) => ({
  type: 'RegisterNetwork' as const,
  data: { network },
  metadata,
});
const update = (networkId: string, set: Record<string, string>, unset: string[] = [], metadata = admin) => ({
  type: 'UpdateNetwork' as const,
  data: { networkId, set, unset },
  metadata,
});
const unregister = (networkId: string, metadata = admin) => ({ type: 'UnregisterNetwork' as const, data: { networkId }, metadata });
const privacy = (propertyName: string, isPrivate: boolean, metadata = admin) => ({
  type: 'SetNetworkPropertyPrivacy' as const,
  data: { propertyName, private: isPrivate },
  metadata,
});

const registered = (networkId: string, capabilities: Record<string, string> = { switch: 's1' }): StreamEvent[] => [
  { streamId: NETWORK_REGISTRY_STREAM, type: 'NetworkRegistry.SegmentAdded', data: { networkId, ...SEGMENT } },
  {
    streamId: networkStream(networkId),
    type: 'NetworkSegment.Registered',
    data: { networkId, ...SEGMENT, capabilities, registeredAt: NOW },
  },
];
const bookedUntil = (networkId: string, endDate: string, propertyNames: string[] = []): StreamEvent => ({
  streamId: networkStream(networkId),
  type: 'NetworkSegment.Booked',
  data: { networkId, reservationId: 'r-1', leaseId: 'lease-1', startDate: NOW, endDate, propertyNames },
});

describe('registering a network segment', () => {
  it('records it in the registry and in its own stream, under a new id, in one append', async () => {
    const result = await standalone
      .given([])
      .when((networks) => networks.register(register()))
      .then([
        { streamId: NETWORK_REGISTRY_STREAM, type: 'NetworkRegistry.SegmentAdded', data: { networkId: 'id-1', ...SEGMENT } },
        {
          streamId: networkStream('id-1'),
          type: 'NetworkSegment.Registered',
          data: { networkId: 'id-1', ...SEGMENT, capabilities: { switch: 's1' }, registeredAt: NOW },
        },
      ]);
    expect(result).toMatchObject({ networkId: 'id-1', events: [{ type: 'NetworkSegment.Registered' }] });
  });

  it('is refused to a member (Chameleon policy: admin only)', async () => {
    await standalone
      .given([])
      .when((networks) => networks.register(register(VLAN, member)))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
  });

  it('refuses a segment already registered as a conflict, whatever its capabilities', async () => {
    await standalone
      .given(registered('net-1'))
      .when((networks) => networks.register(register({ ...VLAN, capabilities: {} })))
      .thenThrows({ code: 'NETWORK_ALREADY_REGISTERED', kind: 'conflict', message: expect.stringContaining('net-1') });
  });

  it('takes the segment again once the one holding it is unregistered', async () => {
    const gone: StreamEvent[] = [
      ...registered('net-1'),
      {
        streamId: networkStream('net-1'),
        type: 'NetworkSegment.Unregistered',
        data: { networkId: 'net-1', ...SEGMENT, unregisteredAt: NOW },
      },
      { streamId: NETWORK_REGISTRY_STREAM, type: 'NetworkRegistry.SegmentRemoved', data: { networkId: 'net-1', ...SEGMENT } },
    ];
    const result = await standalone
      .given(gone)
      .when((networks) => networks.register(register()))
      .then([
        { streamId: NETWORK_REGISTRY_STREAM, type: 'NetworkRegistry.SegmentAdded', data: { networkId: 'id-1', ...SEGMENT } },
        expect.objectContaining({ streamId: networkStream('id-1'), type: 'NetworkSegment.Registered' }),
      ]);
    expect(result.networkId).toBe('id-1');
  });

  it('refuses what the network service refuses, recording nothing', async () => {
    await neutronUses
      .given([])
      .when((networks) => networks.register(register()))
      .thenThrows({ code: 'NETWORK_SEGMENT_IN_USE', kind: 'conflict' });
  });

  it('answers `unavailable` when Neutron cannot be reached, and records nothing', async () => {
    await cloudDown
      .given([])
      .when((networks) => networks.register(register()))
      .thenThrows({ code: 'CLOUD_UNAVAILABLE', kind: 'unavailable', message: expect.stringMatching(/^Neutron is unavailable/) });
  });
});

describe("updating a segment's extra capabilities", () => {
  it('records what changes and answers with every event of the segment', async () => {
    const result = await standalone
      .given(registered('net-1', { switch: 's1', rack: 'r1' }))
      .when((networks) => networks.update(update('net-1', { switch: 's2' }, ['rack'])))
      .then([
        {
          streamId: networkStream('net-1'),
          type: 'NetworkSegment.Updated',
          data: { networkId: 'net-1', capabilities: { switch: 's2' }, removed: ['rack'], updatedAt: NOW },
        },
      ]);
    expect(result.events.map((event) => event.type)).toEqual(['NetworkSegment.Registered', 'NetworkSegment.Updated']);
  });

  it('refuses a capability a reservation depends on, a segment not registered, and a member', async () => {
    await standalone
      .given([...registered('net-1'), bookedUntil('net-1', '2030-01-02T00:00:00.000Z', ['switch'])])
      .when((networks) => networks.update(update('net-1', { switch: 's2' })))
      .thenThrows({ code: 'CAPABILITY_IN_USE', kind: 'conflict' });
    await standalone
      .given([])
      .when((networks) => networks.update(update('net-9', { a: 'b' })))
      .thenThrows({ code: 'NETWORK_NOT_FOUND', kind: 'not_found', message: "Object with {'network_id': 'net-9'} not found" });
    await standalone
      .given(registered('net-1'))
      .when((networks) => networks.update(update('net-1', { a: 'b' }, [], member)))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED' });
  });
});

describe('unregistering a segment', () => {
  it('removes it from its stream and from the registry', async () => {
    await standalone
      .given(registered('net-1'))
      .when((networks) => networks.unregister(unregister('net-1')))
      .then([
        {
          streamId: networkStream('net-1'),
          type: 'NetworkSegment.Unregistered',
          data: { networkId: 'net-1', ...SEGMENT, unregisteredAt: NOW },
        },
        { streamId: NETWORK_REGISTRY_STREAM, type: 'NetworkRegistry.SegmentRemoved', data: { networkId: 'net-1', ...SEGMENT } },
      ]);
  });

  it('is refused while a reservation holds it, for an unknown id, and to a member', async () => {
    await standalone
      .given([...registered('net-1'), bookedUntil('net-1', '2030-01-02T00:00:00.000Z')])
      .when((networks) => networks.unregister(unregister('net-1')))
      .thenThrows({ code: 'NETWORK_RESERVED', kind: 'conflict', message: "Can't delete network net-1. The network is reserved." });
    await standalone
      .given([])
      .when((networks) => networks.unregister(unregister('net-9')))
      .thenThrows({ code: 'NETWORK_NOT_FOUND' });
    await standalone
      .given(registered('net-1'))
      .when((networks) => networks.unregister(unregister('net-1', member)))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED' });
  });
});

describe("a network capability name's privacy", () => {
  it('is recorded for a name some segment has, in its own stream', async () => {
    await standalone
      .given(registered('net-1'))
      .when((networks) => networks.setPropertyPrivacy(privacy('switch', true)))
      .then([
        {
          streamId: networkPropertyStream('switch'),
          type: 'NetworkProperty.PrivacyChanged',
          data: { propertyName: 'switch', private: true, changedAt: NOW },
        },
      ]);
  });

  it('answers 404 for a name no segment has had (a host capability of that name included), and 403 to a member', async () => {
    const host: StreamEvent = {
      streamId: 'host-1',
      type: 'Host.Registered',
      data: { hostId: '1', info: { hypervisorHostname: 'h' }, capabilities: { rack: 'r1' }, registeredAt: NOW },
    };
    await standalone
      .given([...registered('net-1'), host])
      .when((networks) => networks.setPropertyPrivacy(privacy('rack', true)))
      .thenThrows({ code: 'PROPERTY_NOT_FOUND', kind: 'not_found' });
    await standalone
      .given(registered('net-1'))
      .when((networks) => networks.setPropertyPrivacy(privacy('switch', true, member)))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED' });
  });
});
