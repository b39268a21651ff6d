import { MAX_INT32, invalidField } from '#domain/index.js';
import { checkAmount } from '../admission/amount.js';
import { type HostQuery, referencedProperties } from '../query/blazar-query.js';
import { parsePropertyQuery } from '../query/property-query.js';
import type { Affinity } from './instance.reservation.js';

/** A validated virtual:instance reservation request. */
export interface InstanceReservationRequest {
  readonly resourceType: 'virtual:instance';
  readonly amount: number;
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly diskGb: number;
  readonly affinity: Affinity;
  readonly resourceProperties: string;
  readonly query: HostQuery;
  readonly propertyNames: readonly string[];
}

/** A validated flavor:instance reservation request; the flavor is looked up at admission. */
export interface FlavorInstanceReservationRequest {
  readonly resourceType: 'flavor:instance';
  readonly flavorId: string;
  readonly amount: number;
  readonly affinity: Affinity;
}

const checkAtLeast = (field: 'vcpus' | 'memoryMb' | 'diskGb', value: number, min: number): number => {
  if (value < min) throw invalidField('MALFORMED_PARAMETER', `Malformed parameter {field:${field}} (must be an integer >= ${min})`);
  if (value > MAX_INT32)
    throw invalidField('MALFORMED_PARAMETER', `Malformed parameter {field:${field}} (must be an integer <= ${MAX_INT32})`);
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
  checkAtLeast('memoryMb', fields.memoryMb, 1);
  checkAtLeast('diskGb', fields.diskGb, 0);
  const query = parsePropertyQuery(fields.resourceProperties, 'resourceProperties');
  return { resourceType: 'virtual:instance', ...fields, query, propertyNames: referencedProperties(query) };
};

/** A flavor:instance request: its amount checked, its flavor looked up at admission. */
export const buildFlavorInstanceRequest = (flavorId: string, amount: number, affinity: Affinity): FlavorInstanceReservationRequest => ({
  resourceType: 'flavor:instance',
  flavorId,
  amount: checkAmount(amount),
  affinity,
});
