import { MAX_INT32, invalidField } from '#domain/index.js';
import { type HostQuery, combineQueries, referencedProperties } from '../query/blazar-query.js';
import { parsePropertyQuery } from '../query/property-query.js';
import type { BeforeEndAction, HostReservation } from './host.reservation.js';

/** A validated physical:host reservation request (client strings already converted). */
export interface HostReservationRequest extends Omit<HostReservation, 'id' | 'resourceId' | 'hostIds'> {
  /** Both property queries, parsed and combined (AND), as upstream concatenates them. */
  readonly query: HostQuery;
  /** Capability names the reservation depends on. */
  readonly propertyNames: readonly string[];
}

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
    throw invalidField('MALFORMED_PARAMETER', 'Malformed parameter {field:min} and {field:max} (must be greater than or equal to 1)');
  }
  if (fields.min > MAX_INT32 || fields.max > MAX_INT32) {
    throw invalidField('MALFORMED_PARAMETER', `Malformed parameter {field:min} and {field:max} (must be at most ${MAX_INT32})`);
  }
  if (fields.max < fields.min) {
    throw invalidField('INVALID_RANGE', 'Invalid values for {field:min}/{field:max} of hosts. Max must be equal to or larger than min.');
  }
  const query = combineQueries(
    parsePropertyQuery(fields.hypervisorProperties, 'hypervisorProperties'),
    parsePropertyQuery(fields.resourceProperties, 'resourceProperties'),
  );
  return { resourceType: 'physical:host', ...fields, query, propertyNames: referencedProperties(query) };
};
