import type { ReservationTypeAvailability } from '../availability/availability.port.js';
import type { FloatingIpReservationRequest } from './floating-ip-reservation.request.js';
import type { FloatingIpReservation } from './floating-ip.reservation.js';

/** virtual:floatingip takes addresses of one network (it never changes): only that network's calendars matter. No host capacity. */
export const floatingIpAvailability: ReservationTypeAvailability<FloatingIpReservation, FloatingIpReservationRequest> = {
  requested: (request) => request.amount,
  scopes: (request) => [{ kind: 'floatingip', networkId: request.networkId }],
  heldScopes: (reservation) => [{ kind: 'floatingip', networkId: reservation.networkId }],
  sweep: null,
  shortages: ['NOT_ENOUGH_FLOATING_IPS', 'FLOATING_IP_IN_MAINTENANCE'],
  capacityPool: null,
  calendarSearch: null,
};
