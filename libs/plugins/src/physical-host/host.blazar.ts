import { type BlazarReservationReader, allocatedHostIds, detailRow, propertyNamesOf } from '../blazar/blazar-reservation.reader.js';
import { type BlazarRow, BlazarValueError, text, textOrNull } from '../blazar/blazar-values.js';
import { compareHostIds } from './host-allocation.policy.js';
import { BEFORE_END_ACTIONS, type BeforeEndAction } from './host.reservation.js';

const countRange = (row: BlazarRow): { min: number; max: number } => {
  const [min, max] = text(row, 'count_range').split('-', 2).map(Number);
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max)) {
    throw new BlazarValueError(`count_range is not min-max: ${text(row, 'count_range')}`);
  }
  return { min: min as number, max: max as number };
};

const beforeEndOf = (row: BlazarRow): BeforeEndAction => {
  const beforeEnd = textOrNull(row, 'before_end') ?? 'default';
  const known = BEFORE_END_ACTIONS.find((action) => action === beforeEnd);
  if (known === undefined) throw new BlazarValueError(`before_end is not one Leasehold knows: ${beforeEnd}`);
  return known;
};

/** A host reservation from Blazar's computehost_reservations row and one allocation row per host. */
export const hostBlazarReader: BlazarReservationReader = {
  resourceType: 'physical:host',
  read(row, rows) {
    const id = text(row, 'id');
    const detail = detailRow(rows.hostReservations, 'computehost_reservations', id);
    const hypervisorProperties = textOrNull(detail, 'hypervisor_properties') ?? '';
    const resourceProperties = textOrNull(detail, 'resource_properties') ?? '';
    return {
      reservation: {
        id,
        resourceId: textOrNull(row, 'resource_id') ?? text(detail, 'id'),
        resourceType: 'physical:host',
        ...countRange(detail),
        hypervisorProperties,
        resourceProperties,
        beforeEnd: beforeEndOf(detail),
        hostIds: [...new Set(allocatedHostIds(rows, id))].sort(compareHostIds),
      },
      propertyNames: propertyNamesOf(hypervisorProperties, resourceProperties),
      startEffects: [],
    };
  },
};
