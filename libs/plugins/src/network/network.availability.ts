import type { ReservationTypeAvailability } from '../availability/availability.port.js';
import type { NetworkReservationRequest } from './network-reservation.request.js';
import type { NetworkReservation } from './network.reservation.js';

/** `network` takes one segment the queries match: every segment's calendar may matter. No host capacity, no calendar search. */
export const networkAvailability: ReservationTypeAvailability<NetworkReservation, NetworkReservationRequest> = {
  requested: () => 1,
  scopes: () => [{ kind: 'network' }],
  heldScopes: () => [{ kind: 'network' }],
  sweep: null,
  shortages: ['NOT_ENOUGH_NETWORKS', 'NETWORK_IN_MAINTENANCE'],
  capacityPool: null,
  calendarSearch: null,
};
