import { type BeforeEndAction, invalid } from '../../../../libs/domain/src/index.js';
import { combineQueries, referencedProperties } from '../../../../libs/plugins/src/query/blazar-query.js';
import { MAX_INT32 } from '../http/int-like.js';
import type { HostReservationRequest } from '../write-side/lease-requests.js';
import { parsePropertyQuery } from './property-query.parser.js';

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
  if (fields.min > MAX_INT32 || fields.max > MAX_INT32) {
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter min and max (must be at most ${MAX_INT32})`);
  }
  if (fields.max < fields.min) {
    throw invalid('INVALID_RANGE', 'Invalid values for min/max of hosts. Max must be equal to or larger than min.');
  }
  const query = combineQueries(
    parsePropertyQuery(fields.hypervisorProperties, 'hypervisor_properties'),
    parsePropertyQuery(fields.resourceProperties, 'resource_properties'),
  );
  return { resourceType: 'physical:host', ...fields, query, propertyNames: referencedProperties(query) };
};
