import {
  type HostSize,
  type QuotaCatalogue,
  type Reservation,
  type ReservationAmounts,
  type ReservationRates,
  type ResourceType,
  type UsageMetricCatalogue,
  quotaCatalogue,
  usageMetricCatalogue,
} from '#domain/index.js';
import type { BookedResource } from './reservation-type.js';
import { RESERVATION_TYPES, reservationType } from './reservation-types.js';

/** What a reservation of any type holds, asked of its type's module. */

/** Every resource whose calendar carries the reservation. */
export const reservedResources = (reservation: Reservation): readonly BookedResource[] =>
  reservationType(reservation.resourceType).resources(reservation);

/** Hosts whose calendars carry the reservation, whole or in slots (none for floating IPs). */
export const reservedHostIds = (reservation: Reservation): readonly string[] =>
  reservedResources(reservation).flatMap((resource) => (resource.kind === 'host' ? [resource.id] : []));

/** Floating IPs whose calendars carry the reservation. */
export const reservedFloatingIpIds = (reservation: Reservation): readonly string[] =>
  reservedResources(reservation).flatMap((resource) => (resource.kind === 'floatingip' ? [resource.id] : []));

/** What a reservation holds of each quota (the domain's quota folds take this). */
export const reservationAmounts: ReservationAmounts = (reservation) => reservationType(reservation.resourceType).quota.amounts(reservation);

/** Rates per resource of a reservation, hosts sized by `hostSize` (the domain's usage fold takes this). */
export const reservationRates =
  (hostSize: (hostId: string) => HostSize): ReservationRates =>
  (reservation) =>
    reservationType(reservation.resourceType).usage.rates(reservation, hostSize);

/** Whether a type's usage is priced by its hosts' capabilities (else by the rate card's own prices). */
export const pricedByHostCapabilities = (type: ResourceType): boolean => reservationType(type).usage.prices === 'host-capabilities';

/** Every quota the registered types count, held ones first, each type's in its own order. */
export const QUOTAS: QuotaCatalogue = quotaCatalogue(RESERVATION_TYPES.map(({ quota }) => quota));

/** Every usage metric the registered types meter, in the order reports show them, each type's in its own order. */
export const USAGE_METRICS: UsageMetricCatalogue = usageMetricCatalogue(RESERVATION_TYPES.map(({ usage }) => usage.metrics));
