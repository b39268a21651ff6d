import type { NetworkSegmentState } from './network-segment.state.js';
import type { NetworkBooking, NetworkCapabilities, NetworkSegment } from './network-segment.types.js';

/** A registered segment as an allocation policy chooses among them: what it is, its capabilities, its calendar. */
export interface NetworkSnapshot extends NetworkSegment {
  readonly id: string;
  readonly capabilities: NetworkCapabilities;
  readonly bookings: readonly NetworkBooking[];
}

export const networkSnapshot = (state: NetworkSegmentState): NetworkSnapshot | null => {
  if (state.status !== 'Registered') return null;
  const { networkId, networkType, physicalNetwork, segmentId, capabilities, bookings } = state;
  return { id: networkId, networkType, physicalNetwork, segmentId, capabilities, bookings };
};
