import type { ReservationTypeEnforcement, ReservationTypeEvents } from '../reservation-type.js';
import type { NetworkReservation } from './network.reservation.js';

/** What the tenant asked (Chameleon's fields), then the segment held. */
const publicShape = (r: NetworkReservation) => ({
  network_name: r.networkName,
  network_description: r.networkDescription,
  network_properties: r.networkProperties,
  resource_properties: r.resourceProperties,
  before_end: r.beforeEnd,
  allocations: r.allocations.map((a) => ({
    network_id: a.networkId,
    network_type: a.networkType,
    physical_network: a.physicalNetwork,
    segment_id: a.segmentId,
  })),
});

/** In the public events and to the enforcement service alike: a segment's reservation has no ids or bookkeeping to hide. */
export const networkEvents: ReservationTypeEvents<NetworkReservation> = { publicShape };

export const networkEnforcement: ReservationTypeEnforcement<NetworkReservation> = { body: (_resources, r) => publicShape(r) };
