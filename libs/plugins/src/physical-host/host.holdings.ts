import { NO_AMOUNTS, NO_RATES } from '#domain/index.js';
import type { BookedResource, ReservationTypeQuota, ReservationTypeUsage } from '../reservation-type.js';
import type { HostReservation } from './host.reservation.js';

/** physical:host holds its hosts whole: on each host's calendar, in the hosts quota, and each host's size while it runs. */
export const hostResources = (reservation: HostReservation): readonly BookedResource[] =>
  reservation.hostIds.map((id) => ({ kind: 'host', id, slots: null }));

export const hostQuota: ReservationTypeQuota<HostReservation> = {
  amounts: (reservation) => ({ ...NO_AMOUNTS, hosts: reservation.hostIds.length }),
};

export const hostUsage: ReservationTypeUsage<HostReservation> = {
  rates: (reservation, hostSize) => new Map(reservation.hostIds.map((hostId) => [hostId, { ...NO_RATES, ...hostSize(hostId), hosts: 1 }])),
  prices: 'host-capabilities',
};
