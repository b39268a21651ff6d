import type { ReservationTypeAvailability } from '../availability/availability.port.js';
import { EMPTY_QUERY } from '../query/blazar-query.js';
import type { FlavorInstanceReservationRequest, InstanceReservationRequest } from './instance-reservation.request.js';
import type { FlavorInstanceReservation, VirtualInstanceReservation } from './instance.reservation.js';

/**
 * Instances are slots on hosts: only trying the slot policy says where they fit (packing and affinity), so
 * they have no sweep. Both types draw on one slot capacity, which the capacity report lists once, under
 * virtual:instance.
 */
const slotAvailability = {
  requested: (request: { readonly amount: number }) => request.amount,
  // a pending reservation may keep hosts no longer reservable, or be moved under new properties
  heldScopes: () => [{ kind: 'host', hosts: 'every' }] as const,
  sweep: null,
  shortages: ['NOT_ENOUGH_HOSTS'],
  calendarSearch: null,
} as const;

export const virtualInstanceAvailability: ReservationTypeAvailability<VirtualInstanceReservation, InstanceReservationRequest> = {
  ...slotAvailability,
  scopes: (request) => [{ kind: 'host', hosts: request.query }],
  capacityPool: 'slots',
};

/** Its flavor's properties are read at admission: any reservable host may hold it. */
export const flavorInstanceAvailability: ReservationTypeAvailability<FlavorInstanceReservation, FlavorInstanceReservationRequest> = {
  ...slotAvailability,
  scopes: () => [{ kind: 'host', hosts: EMPTY_QUERY }],
  capacityPool: null,
};
