import { describe, expect, it } from 'vitest';
import { foldEvents } from '#domain/index.js';
import { DeciderSpecification } from '#domain/shared/specification.js';
import { type NetworkRegistryEvent, networkRegistryDecider, segmentKey } from './network-registry.js';
import type { NetworkSegmentInfo } from './network-segment.types.js';

const segment = (networkId: string, changes: Partial<NetworkSegmentInfo> = {}): NetworkSegmentInfo => ({
  networkId,
  networkType: 'vlan',
  physicalNetwork: 'physnet1',
  segmentId: 100,
  ...changes,
});
const added = (info: NetworkSegmentInfo): NetworkRegistryEvent => ({ type: 'NetworkRegistry.SegmentAdded', data: info });
const removed = (info: NetworkSegmentInfo): NetworkRegistryEvent => ({ type: 'NetworkRegistry.SegmentRemoved', data: info });

const given = DeciderSpecification.for(networkRegistryDecider);

describe('the network registry: (network_type, physical_network, segment_id) registered once', () => {
  it('adds a new segment', () => {
    given([])
      .when({ type: 'AddSegmentToRegistry', data: segment('a') })
      .then([added(segment('a'))]);
  });

  it('refuses the same segment under another id (409, naming the one that has it)', () => {
    given([added(segment('a'))])
      .when({ type: 'AddSegmentToRegistry', data: segment('b') })
      .thenThrows('NETWORK_ALREADY_REGISTERED', 'Network segment vlan physnet1 100 is already registered with id a');
  });

  it.each([
    ['another tag', { segmentId: 101 }],
    ['another physical network', { physicalNetwork: 'physnet2' }],
    ['another type', { networkType: 'vxlan', physicalNetwork: null }],
  ] as const)('takes %s', (_what, changes) => {
    given([added(segment('a'))])
      .when({ type: 'AddSegmentToRegistry', data: segment('b', changes) })
      .then([added(segment('b', changes))]);
  });

  it('takes the segment again once removed', () => {
    given([added(segment('a')), removed(segment('a'))])
      .when({ type: 'AddSegmentToRegistry', data: segment('b') })
      .then([added(segment('b'))]);
  });

  it("removes only the id that holds the segment, and nothing for another's", () => {
    given([added(segment('a'))])
      .when({ type: 'RemoveSegmentFromRegistry', data: segment('a') })
      .then([removed(segment('a'))]);
    given([added(segment('a'))])
      .when({ type: 'RemoveSegmentFromRegistry', data: segment('b') })
      .thenNothing();
  });

  it('keys null parts apart from names and ids: a flat segment of one physical network is one key', () => {
    const flat = segment('f', { networkType: 'flat', segmentId: null });
    expect(segmentKey(flat)).not.toBe(segmentKey({ ...flat, physicalNetwork: 'null' }));
    expect(segmentKey(segment('x', { physicalNetwork: 'a b', segmentId: 1 }))).not.toBe(
      segmentKey(segment('x', { physicalNetwork: 'a', segmentId: 1 })),
    );
    const state = foldEvents(networkRegistryDecider, [added(flat)]);
    expect(state.bySegment.get(segmentKey(flat))).toBe('f');
  });
});
