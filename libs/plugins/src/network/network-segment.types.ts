import type { Capabilities } from '#domain/index.js';

/** The stream category of a network segment's own stream (no hyphen: a category ends at the first one). */
export const NETWORK_CATEGORY = 'network';

/** A segment's stream: its registration, its capabilities and its calendar. */
export const networkStream = (networkId: string): string => `${NETWORK_CATEGORY}-${networkId}`;

/** The segmentation types a segment may have, as Neutron's `provider:network_type` names them. */
export const NETWORK_TYPES = ['vlan', 'vxlan', 'geneve', 'gre', 'flat'] as const;
export type NetworkType = (typeof NETWORK_TYPES)[number];

/** What Neutron needs to create a provider network on the segment (Chameleon's network_segments columns). */
export interface NetworkSegment {
  readonly networkType: NetworkType;
  /** Required for vlan and flat, null for the tunnel types. */
  readonly physicalNetwork: string | null;
  /** VLAN tag or tunnel id; null for flat. */
  readonly segmentId: number | null;
}

export interface NetworkSegmentInfo extends NetworkSegment {
  readonly networkId: string;
}

/**
 * One reservation's hold on a segment: [startDate, endDate), ms for fast search, and the capability
 * names its request depends on (those cannot change under it).
 */
export interface NetworkBooking {
  readonly reservationId: string;
  readonly leaseId: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly start: number;
  readonly end: number;
  readonly propertyNames: readonly string[];
}

export type NetworkCapabilities = Capabilities;
