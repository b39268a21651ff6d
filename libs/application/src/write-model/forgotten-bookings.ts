import { type Booking, type FloatingIpBooking, type LeaseData, toMs } from '#domain/index.js';
import { reservedResources } from '#plugins/reservation-holdings.js';
import type { CalendarBooking } from '#plugins/resource-kind.js';
import type { ResourceKindName } from '#plugins/resource-kinds.js';

/** The bookings an ended lease's reservations hold on calendars that forgot them, by host and by address. */
export interface ForgottenBookings {
  readonly hosts: readonly (readonly [string, Booking])[];
  readonly floatingIps: readonly (readonly [string, FloatingIpBooking])[];
  readonly kinds: readonly { readonly kind: ResourceKindName; readonly resourceId: string; readonly booking: CalendarBooking }[];
}

/**
 * A lease's bookings end with it, so they were forgotten when the lease ended before `keptFromMs`;
 * each is put back over the lease's window (a healing replacement's started later: only the ids
 * count, for its release).
 */
export const forgottenBookingsOf = (lease: LeaseData, keptFromMs: number): ForgottenBookings => {
  if (toMs(lease.endDate) >= keptFromMs) return { hosts: [], floatingIps: [], kinds: [] };
  const { leaseId, startDate, endDate } = lease;
  const window = { leaseId, startDate, endDate, start: toMs(startDate), end: toMs(endDate) };
  const resources = lease.reservations.flatMap((r) => reservedResources(r).map((resource) => ({ reservationId: r.id, resource })));
  return {
    hosts: resources.flatMap(({ reservationId, resource }) =>
      resource.kind === 'host' ? [[resource.id, { ...window, reservationId, propertyNames: [], slots: resource.slots }] as const] : [],
    ),
    floatingIps: resources.flatMap(({ reservationId, resource }) =>
      resource.kind === 'floatingip' ? [[resource.id, { ...window, reservationId }] as const] : [],
    ),
    kinds: resources.flatMap(({ reservationId, resource }) =>
      resource.kind === 'host' || resource.kind === 'floatingip'
        ? []
        : [{ kind: resource.kind, resourceId: resource.id, booking: { ...window, reservationId } }],
    ),
  };
};
