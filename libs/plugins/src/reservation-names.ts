/**
 * The names upstream Blazar gives a reservation's objects in Nova and Placement, shared by the
 * standalone and the OpenStack effects adapters so both clouds look the same.
 */

/** The trait Blazar's freepool aggregate requires; only the hosts' child providers carry it. */
export const FREEPOOL_TRAIT = 'CUSTOM_BLAZAR_FREEPOOL';

/** Upstream's per-reservation name: a trait for host reservations, a resource class for instance reservations. */
export const reservationCustomName = (reservationId: string): string =>
  `CUSTOM_RESERVATION_${reservationId.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

/** The child provider of a compute node that carries the freepool trait and the instance reservations' inventories. */
export const childProviderName = (hypervisorHostname: string): string => `blazar_${hypervisorHostname}`;

/** Name of a host reservation's aggregate. */
export const reservationAggregateName = (reservationId: string): string => `reservation-${reservationId}`;

/** Name of an instance reservation's private flavor and server group (the flavor's id is the reservation id). */
export const reservationObjectName = (reservationId: string): string => `reservation:${reservationId}`;

/**
 * Preemptible servers (LEASEHOLD_PREEMPTIBLE): a resource class on the free hosts' child providers
 * that a preemptible flavor asks one unit of, and a trait of the same name that it requires, present
 * on a child provider only while no reservation holds its host (docs/openstack.md, "Preemptible servers").
 */
export const PREEMPTIBLE_NAME = 'CUSTOM_LEASEHOLD_PREEMPTIBLE';
