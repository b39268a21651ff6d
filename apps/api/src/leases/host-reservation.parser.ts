import { type BeforeEndAction, invalid } from '../../../../libs/domain/src/index.js';
import { combineQueries, parseQuery, referencedProperties } from '../../../../libs/plugins/src/query/blazar-query.js';
import type { HostReservationRequest } from '../write-side/lease-requests.js';

export interface HostReservationFields {
  readonly min: number;
  readonly max: number;
  readonly hypervisorProperties: string;
  readonly resourceProperties: string;
  readonly beforeEnd: BeforeEndAction;
}

/** Checks a physical:host reservation as upstream's host plugin does, and parses its property queries. */
export const buildHostRequest = (fields: HostReservationFields): HostReservationRequest => {
  if (fields.min < 1 || fields.max < 1) {
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter min and max (must be greater than or equal to 1)');
  }
  if (fields.max < fields.min) {
    throw invalid('INVALID_RANGE', 'Invalid values for min/max of hosts. Max must be equal to or larger than min.');
  }
  const query = combineQueries(parseQuery(fields.hypervisorProperties), parseQuery(fields.resourceProperties));
  return { resourceType: 'physical:host', ...fields, query, propertyNames: referencedProperties(query) };
};
