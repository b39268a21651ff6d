import { type DomainError, MAX_CAPABILITY_KEY_LENGTH, conflict, invalid, notFound } from '#domain/index.js';
import type { NetworkSegmentState, RegisteredNetworkSegment } from './network-segment.state.js';
import {
  NETWORK_TYPES,
  type NetworkBooking,
  type NetworkCapabilities,
  type NetworkSegment,
  type NetworkType,
} from './network-segment.types.js';

interface SegmentRule {
  /** vlan and flat live on a physical network; the tunnel types have none (Neutron refuses one). */
  readonly physicalNetwork: boolean;
  /** The ids the type's header holds: 802.1Q's 12 bits less 0 and 4095, VXLAN's and Geneve's 24-bit VNI, GRE's 32-bit key. */
  readonly ids: { readonly min: number; readonly max: number } | null;
}

const SEGMENT_RULES: { readonly [T in NetworkType]: SegmentRule } = {
  vlan: { physicalNetwork: true, ids: { min: 1, max: 4094 } },
  vxlan: { physicalNetwork: false, ids: { min: 1, max: 16_777_215 } },
  geneve: { physicalNetwork: false, ids: { min: 1, max: 16_777_215 } },
  gre: { physicalNetwork: false, ids: { min: 1, max: 4_294_967_295 } },
  flat: { physicalNetwork: true, ids: null },
};

export const isNetworkType = (value: string): value is NetworkType => (NETWORK_TYPES as readonly string[]).includes(value);

/** The range of segment ids a type takes, or null for a type without one (flat). */
export const segmentIdRange = (type: NetworkType): SegmentRule['ids'] => SEGMENT_RULES[type].ids;

/** A segment Neutron could create: a physical network where the type has one, an id in the type's range where it has ids. */
export const checkNetworkSegment = ({ networkType, physicalNetwork, segmentId }: NetworkSegment): void => {
  const rule = SEGMENT_RULES[networkType];
  if (rule.physicalNetwork && physicalNetwork === null) {
    throw invalid('MISSING_PARAMETER', `Missing parameter physical_network (required for ${networkType} segments)`);
  }
  if (!rule.physicalNetwork && physicalNetwork !== null) {
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter physical_network (${networkType} segments have none)`);
  }
  if (rule.ids === null) {
    if (segmentId !== null) throw invalid('MALFORMED_PARAMETER', `Malformed parameter segment_id (${networkType} segments have none)`);
    return;
  }
  if (segmentId === null) throw invalid('MISSING_PARAMETER', `Missing parameter segment_id (required for ${networkType} segments)`);
  if (!Number.isSafeInteger(segmentId) || segmentId < rule.ids.min || segmentId > rule.ids.max) {
    throw invalid(
      'MALFORMED_PARAMETER',
      `Malformed parameter segment_id (must be an integer between ${rule.ids.min} and ${rule.ids.max} for ${networkType} segments)`,
    );
  }
};

/** How a segment is named in messages: `vlan physnet1 1234`, `vxlan 5000`, `flat physnet2`. */
export const describeSegment = ({ networkType, physicalNetwork, segmentId }: NetworkSegment): string =>
  [networkType, physicalNetwork, segmentId].filter((part) => part !== null).join(' ');

export const checkCapabilityNames = (names: readonly string[]): void => {
  for (const name of names) {
    if (name.length > MAX_CAPABILITY_KEY_LENGTH) throw invalid('EXTRA_CAPABILITY_TOO_LONG', 'Extra capability key too long');
    if (name.length === 0) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter extra capability (empty key)');
  }
};

export const requireRegistered = (state: NetworkSegmentState): RegisteredNetworkSegment => {
  if (state.status !== 'Registered') throw networkNotFound(state.status === 'Removed' ? state.networkId : 'unknown');
  return state;
};

/** Chameleon's 404 for a segment id (its routes' check_exists, as upstream's for hosts). */
export const networkNotFound = (networkId: string): DomainError =>
  notFound('NETWORK_NOT_FOUND', `Object with {'network_id': '${networkId}'} not found`);

/** Bookings not ended at `now`: a segment with one is reserved, now or later. */
export const liveBookings = (segment: RegisteredNetworkSegment, now: number): NetworkBooking[] =>
  segment.bookings.filter((booking) => booking.end > now);

/** The capabilities among `names` that a live booking's request depends on. */
export const capabilitiesInUse = (segment: RegisteredNetworkSegment, names: readonly string[], now: number): string[] => {
  const used = new Set(liveBookings(segment, now).flatMap((booking) => booking.propertyNames));
  return names.filter((name) => used.has(name));
};

/** The capabilities an update really changes: values that differ, and names it unsets that the segment has. */
export const changedCapabilities = (
  current: NetworkCapabilities,
  set: NetworkCapabilities,
  unset: readonly string[],
): { readonly set: NetworkCapabilities; readonly unset: readonly string[] } => ({
  set: Object.fromEntries(Object.entries(set).filter(([name, value]) => !Object.hasOwn(current, name) || current[name] !== value)),
  unset: unset.filter((name) => Object.hasOwn(current, name)),
});

export const segmentReserved = (networkId: string): DomainError =>
  conflict('NETWORK_RESERVED', `Can't delete network ${networkId}. The network is reserved.`);
