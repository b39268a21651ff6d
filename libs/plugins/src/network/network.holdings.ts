import { NO_AMOUNTS, NO_RATES } from '#domain/index.js';
import type { BookedResource, ReservationTypeQuota, ReservationTypeUsage } from '../reservation-type.js';
import type { NetworkReservation } from './network.reservation.js';

/** `network` holds one segment: its calendar, one segment of the networks quota, one segment-hour per hour. */
export const networkResources = (reservation: NetworkReservation): readonly BookedResource[] =>
  reservation.allocations.map(({ networkId }) => ({ kind: 'network', id: networkId }));

export const networkQuota: ReservationTypeQuota<NetworkReservation> = {
  amounts: () => ({ ...NO_AMOUNTS, networks: 1 }),
};

export const networkUsage: ReservationTypeUsage<NetworkReservation> = {
  rates: (reservation) => new Map(reservation.allocations.map(({ networkId }) => [networkId, { ...NO_RATES, networks: 1 }])),
  // segments have capabilities of their own, not a host's: the card's own prices
  prices: 'card',
};
