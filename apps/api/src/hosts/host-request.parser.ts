import { type Capabilities, type HostInfo, invalid } from '#domain/index.js';
import { isMergeableCapability } from '#read-model/index.js';
import { malformedField } from '../http/input-rules.js';
import { toIntLike } from '../http/int-like.js';
import { isNotBlank } from '../http/text.validators.js';
import { requireObject, validateBody } from '../http/validate-body.js';
import type { HostToRegister } from '#plugins/ports/host-inventory.port.js';
import type { HostChanges } from '#application/hosts/host.use-cases.js';
import type { CloudConfig } from '#plugins/cloud-config.js';
import { type Bounds, HOST_CAPACITY_BOUNDS, HOST_FIELD_KEYS, RegisterHostDto, outOfBounds } from './host.dto.js';

/** Capability values are strings upstream; scalars are stored as Python's str() would print them. */
const capabilityValue = (key: string, value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${key}: extra capability values must be strings, numbers or booleans`);
};

/** A key naming one of the host's own fields (`vcpus`, `hypervisor_hostname`, `created_at`...), which no capability may shadow. */
const isHostField = (key: string): boolean => !isMergeableCapability(key) || HOST_FIELD_KEYS.includes(key);

/**
 * Every key but `skip` is an extra capability, named by a name (not blank); a key naming a host field
 * is refused (`why`), never stored as a capability nobody sees.
 */
const capabilitiesOf = (body: Record<string, unknown>, skip: readonly string[], why: (key: string) => string): Capabilities => {
  const keys = Object.keys(body).filter((key) => !skip.includes(key));
  const blank = keys.find((key) => !isNotBlank(key));
  if (blank !== undefined) throw malformedField([blank], 'an extra capability name must not be empty or blank');
  const field = keys.find(isHostField);
  if (field !== undefined) throw invalid('HOST_FIELD', why(field));
  return Object.fromEntries(keys.map((key) => [key, capabilityValue(key, body[key])]));
};

const notAtRegistration = (key: string): string => `${key} cannot be set at registration: it is a host field, not an extra capability`;

/** An explicit capacity is within its documented bounds; an absent one is 0 ("not reported"). */
const capacity = (key: keyof typeof HOST_CAPACITY_BOUNDS, value: number | string | undefined): number => {
  if (value === undefined) return 0;
  const count = toIntLike(value) ?? Number.NaN;
  const { min, max }: Bounds = HOST_CAPACITY_BOUNDS[key];
  if (!(count >= min && count <= max)) throw invalid('MALFORMED_PARAMETER', outOfBounds(key).message);
  return count;
};

export const parseRegisterHost = (raw: unknown): { info: HostInfo; capabilities: Capabilities } => {
  const body = requireObject(raw);
  const named = body.name === undefined && typeof body.id === 'string' ? { ...body, name: body.id } : body;
  const dto = validateBody(RegisterHostDto, named);
  const info: HostInfo = {
    hypervisorHostname: dto.name,
    serviceName: dto.service_name ?? dto.name,
    vcpus: capacity('vcpus', dto.vcpus),
    memoryMb: capacity('memory_mb', dto.memory_mb),
    localGb: capacity('local_gb', dto.local_gb),
    cpuInfo: dto.cpu_info ?? '{}',
    hypervisorType: dto.hypervisor_type ?? 'standalone',
    hypervisorVersion: capacity('hypervisor_version', dto.hypervisor_version),
    availabilityZone: dto.availability_zone ?? '',
  };
  return { info, capabilities: capabilitiesOf(body, HOST_FIELD_KEYS, notAtRegistration) };
};

/**
 * POST /v1/os-hosts when a cloud reports the host's facts: only the name (or `id`) is ours to read,
 * every other key is an extra capability, as upstream treats them, except the host's own fields.
 */
export const parseNamedHost = (raw: unknown): { name: string; capabilities: Capabilities } => {
  const body = requireObject(raw);
  const name = body.name ?? body.id;
  if (name === undefined || name === null) throw invalid('MISSING_PARAMETER', 'Missing parameter name');
  if (typeof name !== 'string' || name.length > 255) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter name');
  if (!isNotBlank(name)) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter name (must not be empty or blank)');
  const fromNova = (key: string): string => `${key} cannot be set at registration: the host's fields come from Nova`;
  return { name, capabilities: capabilitiesOf(body, ['name', 'id'], fromNova) };
};

/** POST /v1/os-hosts: standalone mode reads the host's facts from the body; where a cloud reports them, only its name. */
export const parseHostRegistration = (cloud: CloudConfig['kind'], raw: unknown): HostToRegister =>
  cloud === 'openstack' ? { source: 'cloud', ...parseNamedHost(raw) } : { source: 'request', ...parseRegisterHost(raw) };

const reservableOf = (value: unknown): boolean => {
  if (value === true || value === 'true' || value === 'True') return true;
  if (value === false || value === 'false' || value === 'False') return false;
  throw invalid('MALFORMED_PARAMETER', 'Malformed parameter reservable: must be true or false');
};

const notUpdatable = (key: string): string =>
  `${key} cannot be updated: a host's fields come from its registration; only extra capabilities and reservable can change`;

/** PUT /v1/os-hosts/{id}: every key is an extra capability, except `reservable`; a host field is refused, in every mode. */
export const parseUpdateHost = (raw: unknown): HostChanges => {
  const body = requireObject(raw ?? {});
  if (Object.keys(body).length === 0) throw invalid('NO_DATA', 'No data to update');
  if ('values' in body && typeof body.values === 'object' && body.values !== null) {
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter values: send extra capabilities as top-level keys, e.g. {"gpu": "true"}');
  }
  return {
    capabilities: capabilitiesOf(body, ['reservable'], notUpdatable),
    reservable: 'reservable' in body ? reservableOf(body.reservable) : null,
  };
};
