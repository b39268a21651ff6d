import type { Interval } from '#domain/index.js';
import type { NetworkSegmentState } from './network-segment.state.js';
import type { NetworkBooking, NetworkCapabilities, NetworkSegment } from './network-segment.types.js';

/** A registered segment as an allocation policy chooses among them: what it is, its capabilities, its calendar and windows. */
export interface NetworkSnapshot extends NetworkSegment {
  readonly id: string;
  readonly capabilities: NetworkCapabilities;
  readonly bookings: readonly NetworkBooking[];
  /** Maintenance windows, sorted by start (docs/maintenance.md): no booking may gain an instant inside one. */
  readonly maintenance: readonly Interval[];
}

export const networkSnapshot = (state: NetworkSegmentState): NetworkSnapshot | null => {
  if (state.status !== 'Registered') return null;
  const { networkId, networkType, physicalNetwork, segmentId, capabilities, bookings, maintenance } = state;
  return { id: networkId, networkType, physicalNetwork, segmentId, capabilities, bookings, maintenance };
};
