import { type Affinity, invalid } from '../../../../libs/domain/src/index.js';
import { canonicalIpAddress } from '../../../../libs/plugins/src/floating-ip/ip-address.js';
import { referencedProperties } from '../../../../libs/plugins/src/query/blazar-query.js';
import { MAX_INT32 } from '../http/int-like.js';
import { canonicalUuid } from '../http/text.validators.js';
import type { FloatingIpReservationRequest, InstanceReservationRequest } from '../write-side/lease-requests.js';
import { parsePropertyQuery } from './property-query.parser.js';

/** Upstream's bound on amount (a 32-bit signed column). */
export const MAX_AMOUNT = MAX_INT32;

export const checkAmount = (amount: number): number => {
  if (amount < 1 || amount > MAX_AMOUNT) throw invalid('MALFORMED_PARAMETER', `Malformed parameter amount (must be between 1 and ${MAX_AMOUNT})`);
  return amount;
};

const checkAtLeast = (name: string, value: number, min: number): number => {
  if (value < min) throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (must be an integer >= ${min})`);
  if (value > MAX_INT32) throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (must be an integer <= ${MAX_INT32})`);
  return value;
};

export interface InstanceFields {
  readonly amount: number;
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly diskGb: number;
  readonly affinity: Affinity;
  readonly resourceProperties: string;
}

/** Checks a virtual:instance reservation as upstream's instance plugin does, and parses its property query. */
export const buildInstanceRequest = (fields: InstanceFields): InstanceReservationRequest => {
  checkAmount(fields.amount);
  checkAtLeast('vcpus', fields.vcpus, 1);
  checkAtLeast('memory_mb', fields.memoryMb, 1);
  checkAtLeast('disk_gb', fields.diskGb, 0);
  const query = parsePropertyQuery(fields.resourceProperties, 'resource_properties');
  return { resourceType: 'virtual:instance', ...fields, query, propertyNames: referencedProperties(query) };
};

/** Canonical addresses of required_floatingips: valid, distinct, no more than `amount`. */
export const parseRequiredFloatingIps = (addresses: readonly string[], amount: number): string[] => {
  const canonical = addresses.map((address) => {
    const ip = canonicalIpAddress(address);
    if (ip === null) throw invalid('MALFORMED_PARAMETER', `Malformed parameter required_floatingips: ${address} is not an IP address`);
    return ip;
  });
  if (new Set(canonical).size !== canonical.length) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter required_floatingips: an address is repeated');
  if (canonical.length > amount) {
    throw invalid('INVALID_INPUT', `Invalid input for required_floatingips: ${canonical.length} addresses required but amount is ${amount}`);
  }
  return canonical;
};

/** `networkId` as the DTO accepted it (a UUID); kept in lower case so that one network is one id. */
export const buildFloatingIpRequest = (networkId: string, amount: number, required: readonly string[]): FloatingIpReservationRequest => {
  const network = canonicalUuid(networkId);
  if (network === null) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter network_id (must be a network UUID)');
  checkAmount(amount);
  return { resourceType: 'virtual:floatingip', networkId: network, amount, requiredFloatingIps: parseRequiredFloatingIps(required, amount) };
};
