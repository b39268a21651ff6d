const RESERVATION_TAG_PREFIX = 'reservation:';

/** Upstream's tag on what a reservation created: how its network is found again. */
export const networkReservationTag = (reservationId: string): string => `${RESERVATION_TAG_PREFIX}${reservationId}`;

/**
 * The reservation's network: tagged for it, or in the lease's project and tagged for no reservation (a start that
 * crashed between create and tagging; only admins make provider networks). A network another reservation tagged is
 * not, even in the same project: the segment's next lease may have started before this one's end ran.
 */
export const isReservationNetwork = (
  network: { readonly tags: readonly string[]; readonly projectId: string },
  reservationId: string,
  leaseProjectId: string,
): boolean =>
  network.tags.includes(networkReservationTag(reservationId)) ||
  (network.projectId === leaseProjectId && !network.tags.some((tag) => tag.startsWith(RESERVATION_TAG_PREFIX)));
