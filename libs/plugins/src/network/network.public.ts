import type { ReservationTypeEnforcement, ReservationTypeEvents } from '../reservation-type.js';
import type { NetworkReservation } from './network.reservation.js';

const allocationsOf = (r: NetworkReservation) =>
  r.allocations.map((a) => ({
    network_id: a.networkId,
    network_type: a.networkType,
    physical_network: a.physicalNetwork,
    segment_id: a.segmentId,
  }));

/** In the public events: what was asked, and the segment held. */
export const networkEvents: ReservationTypeEvents<NetworkReservation> = {
  publicShape: (r) => ({
    network_name: r.networkName,
    network_description: r.networkDescription,
    network_properties: r.networkProperties,
    resource_properties: r.resourceProperties,
    before_end: r.beforeEnd,
    allocations: allocationsOf(r),
  }),
};

/** To the enforcement service: what the tenant asked (Chameleon's fields), then the segment held. */
export const networkEnforcement: ReservationTypeEnforcement<NetworkReservation> = {
  body: (_resources, r) => ({
    network_name: r.networkName,
    network_description: r.networkDescription,
    network_properties: r.networkProperties,
    resource_properties: r.resourceProperties,
    before_end: r.beforeEnd,
    allocations: allocationsOf(r),
  }),
};
