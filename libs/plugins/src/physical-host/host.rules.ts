import type { ReservationRules } from '#domain/index.js';
import type { HostReservation } from './host.reservation.js';

/**
 * physical:host, as upstream: any field may change, started or not (a started reservation keeps its hosts,
 * which its admission sees to); a host that goes down is replaced; before_end `notify` reminds the tenant.
 */
export const hostRules: ReservationRules<HostReservation> = {
  checkChange: () => undefined,
  healedHostIds: (reservation) => reservation.hostIds,
  remindsBeforeEnd: (reservation) => reservation.beforeEnd === 'notify',
};
