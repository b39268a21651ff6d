import { invalid } from '#domain/index.js';
import type { NewNetworkSegment } from '#application/networks/network.use-cases.js';
import { checkNetworkSegment } from '#plugins/network/network-segment.rules.js';
import type { NetworkCapabilities } from '#plugins/network/network-segment.types.js';
import { malformedField } from '../http/input-rules.js';
import { toIntLike } from '../http/int-like.js';
import { isNotBlank } from '../http/text.validators.js';
import { requireObject, validateBody } from '../http/validate-body.js';
import { NETWORK_FIELD_KEYS, NOT_CAPABILITIES, RegisterNetworkDto } from './network.dto.js';

/** Capability values are strings, as Chameleon stores them; scalars as Python's str() would print them. */
const capabilityValue = (key: string, value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${key}: extra capability values must be strings, numbers or booleans`);
};

const checkNames = (keys: readonly string[], why: (key: string) => string): void => {
  const blank = keys.find((key) => !isNotBlank(key));
  if (blank !== undefined) throw malformedField([blank], 'an extra capability name must not be empty or blank');
  const field = keys.find((key) => NOT_CAPABILITIES.includes(key));
  if (field !== undefined) throw invalid('NETWORK_FIELD', why(field));
};

/** POST /v1/networks: the segment (checked as Neutron would take it), every other key an extra capability. */
export const parseRegisterNetwork = (raw: unknown): NewNetworkSegment => {
  const body = requireObject(raw);
  const dto = validateBody(RegisterNetworkDto, body);
  const segment = {
    networkType: dto.network_type,
    physicalNetwork: dto.physical_network ?? null,
    segmentId: dto.segment_id === undefined || dto.segment_id === null ? null : toIntLike(dto.segment_id),
  };
  checkNetworkSegment(segment);
  const keys = Object.keys(body).filter((key) => !NETWORK_FIELD_KEYS.includes(key));
  checkNames(keys, (key) => `${key} cannot be set: it is a field of the network segment's view, not an extra capability`);
  const capabilities: NetworkCapabilities = Object.fromEntries(keys.map((key) => [key, capabilityValue(key, body[key])]));
  return { ...segment, capabilities };
};

export interface NetworkChanges {
  readonly set: NetworkCapabilities;
  readonly unset: readonly string[];
}

/**
 * PUT /v1/networks/{id}: every key an extra capability to set, or to unset with null (what `openstack reservation network
 * unset --extra` sends); the segment itself never changes (Chameleon lets these be overwritten in place).
 */
export const parseUpdateNetwork = (raw: unknown): NetworkChanges => {
  const body = requireObject(raw ?? {});
  const keys = Object.keys(body);
  if (keys.length === 0) throw invalid('NO_DATA', 'No data to update');
  if ('values' in body && typeof body.values === 'object' && body.values !== null) {
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter values: send extra capabilities as top-level keys, e.g. {"vlan_group": "a"}');
  }
  checkNames(
    keys,
    (key) => `${key} cannot be updated: a network segment's fields come from its registration; only extra capabilities can change`,
  );
  const unset = keys.filter((key) => body[key] === null);
  const set = Object.fromEntries(keys.filter((key) => body[key] !== null).map((key) => [key, capabilityValue(key, body[key])]));
  return { set, unset };
};
