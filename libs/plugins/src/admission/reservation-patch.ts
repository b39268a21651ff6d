import { type ResourceType, invalidField } from '#domain/index.js';
import { RESERVATION_FIELDS } from '../reservation-fields.js';
import { type ReservationChange, reservationType } from '../reservation-types.js';
import type { WireChanges } from '../reservation-wire.js';

/**
 * Changed fields of one existing reservation, keyed by its id, as the transport read them. Which fields the reservation's type
 * takes is decided at admission (another type's field is a 400).
 */
export interface ReservationPatch {
  readonly id: string;
  /** Sent by some clients; must match the reservation's type (it cannot change). */
  readonly resourceType: string | null;
  /** The fields given, by the domain's names; those left out keep their value. */
  readonly changes: WireChanges;
}

/** The change a patch makes to a reservation of `type` (its wire's); a field of another type is refused, the first as fields are listed. */
export const changeOf = (type: ResourceType, patch: ReservationPatch): ReservationChange => {
  const { wire } = reservationType(type);
  const own = new Set(wire.fields.map(({ field }) => field));
  const foreign = RESERVATION_FIELDS.find(({ field }) => Object.hasOwn(patch.changes, field) && !own.has(field));
  if (foreign !== undefined) {
    throw invalidField('INVALID_PARAMETER', `Parameter {field:${foreign.field}} cannot be set on a ${type} reservation`);
  }
  return wire.change(patch.changes);
};
