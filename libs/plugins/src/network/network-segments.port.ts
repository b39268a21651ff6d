import type { NetworkSegment } from './network-segment.types.js';

/**
 * The network service asked before a segment is registered. Nothing is created at registration (a lease's start
 * creates the network); the OpenStack adapter refuses a segment a Neutron network already uses, which a lease could
 * never be given (throwing a DomainError, `unavailable` when Neutron cannot answer). Standalone mode has nobody to ask.
 */
export interface NetworkSegments {
  checkUnused(segment: NetworkSegment): Promise<void>;
}
