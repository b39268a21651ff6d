import { requestDate } from '#application/availability/counter-offer.js';
import type { NoWindow } from '#application/availability/no-window.js';

/** Why a search found no window, as REST and GraphQL answer it (docs/availability.md): Blazar's dates, snake_case keys. */
export const reasonBody = (reason: NoWindow): Record<string, unknown> => ({
  code: reason.code,
  message: reason.message,
  asked: {
    not_before: requestDate(reason.asked.notBefore),
    not_after: requestDate(reason.asked.notAfter),
    duration: reason.asked.durationMinutes,
  },
  reservations: reason.reservations.map((r) => ({
    resource_type: r.resourceType,
    requested: r.requested,
    matching: r.matching,
    free: r.free,
  })),
  blocked_by: reason.blockedBy === null ? null : { ...reason.blockedBy, at: requestDate(reason.blockedBy.at) },
  fits_at: reason.fitsAt === null ? null : requestDate(reason.fitsAt),
});
