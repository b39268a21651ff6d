import { type Capabilities, type HostInfo, invalid } from '../../../../libs/domain/src/index.js';
import { toIntLike } from '../http/int-like.js';
import { requireObject, validateBody } from '../http/validate-body.js';
import type { HostChanges } from '../write-side/host-writer.js';
import { HOST_FIELD_KEYS, RegisterHostDto } from './host.dto.js';

/** Capability values are strings upstream; scalars are stored as Python's str() would print them. */
const capabilityValue = (key: string, value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${key}: extra capability values must be strings, numbers or booleans`);
};

const capabilitiesOf = (body: Record<string, unknown>, skip: readonly string[]): Capabilities =>
  Object.fromEntries(Object.entries(body).filter(([key]) => !skip.includes(key)).map(([key, value]) => [key, capabilityValue(key, value)]));

export const parseRegisterHost = (raw: unknown): { info: HostInfo; capabilities: Capabilities } => {
  const body = requireObject(raw);
  const named = body.name === undefined && typeof body.id === 'string' ? { ...body, name: body.id } : body;
  const dto = validateBody(RegisterHostDto, named);
  const count = (value: number | string | undefined): number => (value === undefined ? 0 : (toIntLike(value) ?? 0));
  const info: HostInfo = {
    hypervisorHostname: dto.name,
    serviceName: dto.service_name ?? dto.name,
    vcpus: count(dto.vcpus),
    memoryMb: count(dto.memory_mb),
    localGb: count(dto.local_gb),
    cpuInfo: dto.cpu_info ?? '{}',
    hypervisorType: dto.hypervisor_type ?? 'standalone',
    hypervisorVersion: count(dto.hypervisor_version),
    availabilityZone: dto.availability_zone ?? '',
  };
  return { info, capabilities: capabilitiesOf(body, HOST_FIELD_KEYS) };
};

/**
 * POST /v1/os-hosts when a cloud reports the host's facts: only the name (or `id`) is ours to read,
 * every other key is an extra capability, as upstream treats them.
 */
export const parseNamedHost = (raw: unknown): { name: string; capabilities: Capabilities } => {
  const body = requireObject(raw);
  const name = body.name ?? body.id;
  if (name === undefined || name === null) throw invalid('MISSING_PARAMETER', 'Missing parameter name');
  if (typeof name !== 'string' || name === '' || name.length > 255) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter name');
  return { name, capabilities: capabilitiesOf(body, ['name', 'id']) };
};

const reservableOf = (value: unknown): boolean => {
  if (value === true || value === 'true' || value === 'True') return true;
  if (value === false || value === 'false' || value === 'False') return false;
  throw invalid('MALFORMED_PARAMETER', 'Malformed parameter reservable: must be true or false');
};

/** PUT /v1/os-hosts/{id}: every key is an extra capability, except `reservable`. */
export const parseUpdateHost = (raw: unknown): HostChanges => {
  const body = requireObject(raw ?? {});
  if (Object.keys(body).length === 0) throw invalid('NO_DATA', 'No data to update');
  if ('values' in body && typeof body.values === 'object' && body.values !== null) {
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter values: send extra capabilities as top-level keys, e.g. {"gpu": "true"}');
  }
  return {
    capabilities: capabilitiesOf(body, ['reservable']),
    reservable: 'reservable' in body ? reservableOf(body.reservable) : null,
  };
};
