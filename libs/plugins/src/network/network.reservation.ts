import type { BeforeEndAction } from '../physical-host/host.reservation.js';
import type { NetworkSegmentInfo } from './network-segment.types.js';

/** The segment a network reservation holds, as it was registered (a segment's own fields never change once registered). */
export type NetworkAllocation = NetworkSegmentInfo;

/**
 * `network` (Chameleon's network plugin): one registered segment matching two property queries, on which the
 * lease's start creates a Neutron provider network named `networkName` in the lease's project.
 */
export interface NetworkReservation {
  readonly id: string;
  /** Blazar's id of the plugin-specific row; kept for wire compatibility. */
  readonly resourceId: string;
  readonly resourceType: 'network';
  readonly networkName: string;
  /** '' when none was given (Chameleon: None). */
  readonly networkDescription: string;
  /** Blazar's query over the segment's own fields (`network_type`, `physical_network`, `segment_id`). */
  readonly networkProperties: string;
  /** Blazar's query over the segment's extra capabilities. */
  readonly resourceProperties: string;
  readonly beforeEnd: BeforeEndAction;
  /** The one segment held (Chameleon's network_allocations: one per reservation). */
  readonly allocations: readonly NetworkAllocation[];
}

declare module '#domain/lease/reservation-type-map.js' {
  interface ReservationTypeMap {
    network: NetworkReservation;
  }
}
