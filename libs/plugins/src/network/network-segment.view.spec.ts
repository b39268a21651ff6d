import { describe, expect, it } from 'vitest';
import type { NetworkSegmentEvent } from './network-segment.events.js';
import { NETWORK_VIEW_KEYS, type NetworkView, evolveNetworkView } from './network-segment.view.js';

const registered: NetworkSegmentEvent = {
  type: 'NetworkSegment.Registered',
  data: {
    networkId: 'net-1',
    networkType: 'vlan',
    physicalNetwork: 'physnet1',
    segmentId: 1234,
    capabilities: { switch: 's1', rack: 'r1' },
    registeredAt: '2030-01-01T09:00:00.000Z',
  },
};

const fold = (events: readonly NetworkSegmentEvent[]): NetworkView | null => events.reduce<NetworkView | null>(evolveNetworkView, null);

describe("a network segment's view (Chameleon's to_dict, extra capabilities merged in)", () => {
  it('shows the timestamps, the segment and its capabilities, in that order', () => {
    const view = fold([registered]);
    expect(view).toEqual({
      created_at: '2030-01-01 09:00:00',
      updated_at: null,
      id: 'net-1',
      network_type: 'vlan',
      physical_network: 'physnet1',
      segment_id: 1234,
      switch: 's1',
      rack: 'r1',
    });
    expect(Object.keys(view ?? {}).slice(0, NETWORK_VIEW_KEYS.length)).toEqual(NETWORK_VIEW_KEYS);
  });

  it('sets and unsets capabilities, and says when', () => {
    const view = fold([
      registered,
      {
        type: 'NetworkSegment.Updated',
        data: { networkId: 'net-1', capabilities: { rack: 'r2', pod: 'p1' }, removed: ['switch'], updatedAt: '2030-01-02T10:30:00.250Z' },
      },
    ]);
    expect(view).toEqual(expect.objectContaining({ updated_at: '2030-01-02 10:30:00.250000', rack: 'r2', pod: 'p1' }));
    expect(view).not.toHaveProperty('switch');
  });

  it("never lets a capability stand in for one of the view's own fields", () => {
    const sneaky = { ...registered, data: { ...registered.data, capabilities: { id: 'other', segment_id: '1' } } } as NetworkSegmentEvent;
    expect(fold([sneaky])).toMatchObject({ id: 'net-1', segment_id: 1234 });
  });

  it('is gone once unregistered; bookings leave it as it is', () => {
    const view = fold([registered]);
    const booking: NetworkSegmentEvent = {
      type: 'NetworkSegment.Booked',
      data: { networkId: 'net-1', reservationId: 'r', leaseId: 'l', startDate: 'a', endDate: 'b', propertyNames: [] },
    };
    expect(evolveNetworkView(view, booking)).toBe(view);
    const gone: NetworkSegmentEvent = {
      type: 'NetworkSegment.Unregistered',
      data: { networkId: 'net-1', networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: 1234, unregisteredAt: 'x' },
    };
    expect(evolveNetworkView(view, gone)).toBeNull();
  });
});
