import type { ReservationPatch } from '../admission/reservation-patch.js';
import type { WireChanges } from '../reservation-wire.js';

/** A patch of reservation `id` giving only `fields` (and `resourceType`, when said). */
export const patchOf = (
  id: string,
  { resourceType = null, ...changes }: { readonly resourceType?: string | null } & WireChanges = {},
): ReservationPatch => ({
  id,
  resourceType,
  changes,
});
