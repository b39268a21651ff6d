import { invalidField } from '#domain/index.js';
import { type HostQuery, combineQueries, resourceProperties } from '../query/blazar-query.js';
import { parsePropertyQuery } from '../query/property-query.js';
import type { BeforeEndAction } from '../physical-host/host.reservation.js';
import type { NetworkReservation } from './network.reservation.js';
import { SEGMENT_COLUMNS } from './network-allocation.policy.js';

/** Chameleon's columns are VARCHAR(255), and Neutron's network name and description take as much. */
export const MAX_NETWORK_TEXT = 255;

/** What a network's lease may ask before its end: a reminder, or nothing (a segment has no servers to snapshot). */
export const NETWORK_BEFORE_END_ACTIONS: readonly BeforeEndAction[] = ['default', 'notify', ''];

/** A validated `network` reservation request, its property queries parsed. */
export interface NetworkReservationRequest extends Omit<NetworkReservation, 'id' | 'resourceId' | 'allocations'> {
  /** Both property queries, combined (AND), as Chameleon concatenates them. */
  readonly query: HostQuery;
  /** The capability names the queries depend on: the booking keeps them from changing under the reservation. */
  readonly propertyNames: readonly string[];
}

export interface NetworkReservationFields {
  readonly networkName: string;
  readonly networkDescription: string;
  readonly networkProperties: string;
  readonly resourceProperties: string;
  readonly beforeEnd: string;
}

export const checkNetworkName = (name: string): string => {
  if (name.trim().length === 0) throw invalidField('MALFORMED_PARAMETER', 'Malformed parameter {field:networkName} (must not be empty)');
  if (name.length > MAX_NETWORK_TEXT) {
    throw invalidField('MALFORMED_PARAMETER', `Malformed parameter {field:networkName} (at most ${MAX_NETWORK_TEXT} characters)`);
  }
  return name;
};

export const checkNetworkDescription = (description: string): string => {
  if (description.length > MAX_NETWORK_TEXT) {
    throw invalidField('MALFORMED_PARAMETER', `Malformed parameter {field:networkDescription} (at most ${MAX_NETWORK_TEXT} characters)`);
  }
  return description;
};

export const checkNetworkBeforeEnd = (action: string): BeforeEndAction => {
  const known = NETWORK_BEFORE_END_ACTIONS.find((option) => option === action);
  if (known === undefined) {
    throw invalidField(
      'MALFORMED_PARAMETER',
      `Malformed parameter {field:beforeEnd} (a network reservation takes ${NETWORK_BEFORE_END_ACTIONS.map((a) => `'${a}'`).join(', ')})`,
    );
  }
  return known;
};

/** Both queries parsed and combined, and the capability names they depend on. */
export const networkQuery = (
  networkProperties: string,
  capabilityQuery: string,
): Pick<NetworkReservationRequest, 'query' | 'propertyNames'> => {
  const query = combineQueries(
    parsePropertyQuery(networkProperties, 'networkProperties'),
    parsePropertyQuery(capabilityQuery, 'resourceProperties'),
  );
  return { query, propertyNames: resourceProperties(query, SEGMENT_COLUMNS) };
};

/** Checks a `network` reservation as Chameleon's plugin does (and its texts as Neutron takes them), and parses its queries. */
export const buildNetworkRequest = (fields: NetworkReservationFields): NetworkReservationRequest => ({
  resourceType: 'network',
  networkName: checkNetworkName(fields.networkName),
  networkDescription: checkNetworkDescription(fields.networkDescription),
  networkProperties: fields.networkProperties,
  resourceProperties: fields.resourceProperties,
  beforeEnd: checkNetworkBeforeEnd(fields.beforeEnd),
  ...networkQuery(fields.networkProperties, fields.resourceProperties),
});
