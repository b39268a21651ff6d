import { NO_AMOUNTS, NO_RATES } from '#domain/index.js';
import type { BookedResource, ReservationTypeQuota, ReservationTypeUsage } from '../reservation-type.js';
import type { FloatingIpReservation } from './floating-ip.reservation.js';

/** virtual:floatingip holds registered addresses: one calendar each, the floating IPs quota, one address-hour per hour. */
export const floatingIpResources = (reservation: FloatingIpReservation): readonly BookedResource[] =>
  reservation.allocations.map(({ floatingIpId }) => ({ kind: 'floatingip', id: floatingIpId }));

export const floatingIpQuota: ReservationTypeQuota<FloatingIpReservation> = {
  amounts: (reservation) => ({ ...NO_AMOUNTS, floatingIps: reservation.amount }),
};

export const floatingIpUsage: ReservationTypeUsage<FloatingIpReservation> = {
  rates: (reservation) => new Map(reservation.allocations.map(({ floatingIpId }) => [floatingIpId, { ...NO_RATES, floatingIps: 1 }])),
  // addresses have no capabilities: the card's own prices
  prices: 'card',
};
