import type { ReservationTypeAvailability } from '../availability/availability.port.js';
import type { HostReservationRequest } from './host-reservation.request.js';
import type { HostReservation } from './host.reservation.js';

/**
 * physical:host asks for `min` whole hosts its properties match: a sweep over the hosts' calendars says where
 * the host policy admits it, its free counts and the capacity report's whole-host pool come from that sweep,
 * and the calendar page's free-window search is one of its requests.
 */
export const hostAvailability: ReservationTypeAvailability<HostReservation, HostReservationRequest> = {
  requested: (request) => request.min,
  scopes: (request) => [{ kind: 'host', hosts: request.query }],
  // a pending reservation may keep a host no longer reservable, or be moved under new properties
  heldScopes: () => [{ kind: 'host', hosts: 'every' }],
  sweep: {
    demand: ({ query, min }) => ({ query, min }),
    single: (request) => ({ ...request, min: 1, max: 1 }),
  },
  shortages: ['NOT_ENOUGH_HOSTS'],
  capacityPool: 'whole-hosts',
  calendarSearch: { countFields: ['min', 'max'], filterField: 'resource_properties', fixedFields: { hypervisor_properties: '' } },
};
