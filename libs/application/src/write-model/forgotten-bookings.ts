import {
  type Booking,
  type FloatingIpBooking,
  type LeaseData,
  type Reservation,
  isInstanceReservation,
  reservedFloatingIpIds,
  reservedHostIds,
  toMs,
} from '#domain/index.js';

/** The bookings an ended lease's reservations hold on calendars that forgot them, by host and by address. */
export interface ForgottenBookings {
  readonly hosts: readonly (readonly [string, Booking])[];
  readonly floatingIps: readonly (readonly [string, FloatingIpBooking])[];
}

const slotsOf = (reservation: Reservation, hostId: string): Booking['slots'] => {
  if (!isInstanceReservation(reservation)) return null;
  const count = reservation.allocations.find((a) => a.hostId === hostId)?.count ?? 0;
  return { count, vcpus: reservation.vcpus, memoryMb: reservation.memoryMb, diskGb: reservation.diskGb };
};

/**
 * A lease's bookings end with it, so they were forgotten when the lease ended before `keptFromMs`;
 * each is put back over the lease's window (a healing replacement's started later: only the ids
 * count, for its release).
 */
export const forgottenBookingsOf = (lease: LeaseData, keptFromMs: number): ForgottenBookings => {
  if (toMs(lease.endDate) >= keptFromMs) return { hosts: [], floatingIps: [] };
  const { leaseId, startDate, endDate } = lease;
  const window = { leaseId, startDate, endDate, start: toMs(startDate), end: toMs(endDate) };
  return {
    hosts: lease.reservations.flatMap((r) =>
      reservedHostIds(r).map(
        (hostId) => [hostId, { ...window, reservationId: r.id, propertyNames: [], slots: slotsOf(r, hostId) }] as const,
      ),
    ),
    floatingIps: lease.reservations.flatMap((r) => reservedFloatingIpIds(r).map((id) => [id, { ...window, reservationId: r.id }] as const)),
  };
};
