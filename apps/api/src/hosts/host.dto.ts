import { IsBoolean, IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';
import { HOST_VIEW_KEYS } from '#read-model/index.js';
import { IsIntLike, MAX_INT32 } from '../http/int-like.js';
import { IsNotBlank } from '../http/text.validators.js';
import { Documented, DocumentedOptional, INT_LIKE, RequestSchema, notBlank } from '../openapi/dto-properties.js';
import type { JsonSchema } from '../openapi/json-schema.js';

const malformed = (name: string) => ({ message: `Malformed parameter ${name}` });

export interface Bounds {
  readonly min: number;
  readonly max: number;
}

/**
 * What a standalone host may declare (absent: 0, "not reported", good for whole-host leases only).
 * vcpus: eight times the most CPUs a Linux kernel supports (8,192 with CONFIG_MAXSMP); memory and
 * disk: Nova's own limit, its compute_nodes columns being 32-bit (2 PiB of RAM, 2 EiB of disk; a
 * Ceph-backed compute reports the whole cluster as local_gb). hypervisor_version: Nova's encoding
 * (e.g. 8000000 for libvirt 8.0.0), also a 32-bit column.
 */
export const HOST_CAPACITY_BOUNDS = {
  vcpus: { min: 1, max: 65_536 },
  memory_mb: { min: 1, max: MAX_INT32 },
  local_gb: { min: 1, max: MAX_INT32 },
  hypervisor_version: { min: 0, max: MAX_INT32 },
} as const satisfies Readonly<Record<string, Bounds>>;

/** The message for a capacity that is no integer or out of its bounds. */
export const outOfBounds = (key: keyof typeof HOST_CAPACITY_BOUNDS) => ({
  message: `Malformed parameter ${key} (must be an integer between ${HOST_CAPACITY_BOUNDS[key].min} and ${HOST_CAPACITY_BOUNDS[key].max})`,
});

/** The keys registration reads as the host's fields rather than as extra capabilities. */
export const HOST_FIELD_KEYS: readonly string[] = [
  'name',
  'id',
  'vcpus',
  'memory_mb',
  'local_gb',
  'hypervisor_version',
  'hypervisor_type',
  'cpu_info',
  'service_name',
  'availability_zone',
];

/** The capability values parseRegisterHost/parseUpdateHost accept (stored as Python's str() prints them). */
export const CAPABILITY_VALUE: JsonSchema = { type: ['string', 'number', 'boolean'] };

/** No extra capability may be named after a host field: registration refuses the fields it does not read, an update all of them. */
export const notNamed = (keys: readonly string[]): JsonSchema => ({ not: { enum: [...keys] } });

const capacity = (key: keyof typeof HOST_CAPACITY_BOUNDS, unit: string): JsonSchema => {
  const { min, max } = HOST_CAPACITY_BOUNDS[key];
  return { ...INT_LIKE, description: `${unit}, ${min} to ${max}; absent: 0 (not reported).` };
};

const TEXT_255: JsonSchema = { type: 'string', maxLength: 255 };

/**
 * POST /v1/os-hosts in standalone mode: the capacity Nova would report comes from the body; every
 * other key is an extra capability, as upstream treats unknown keys.
 */
@RequestSchema({
  description:
    'A host (standalone mode: its capacity comes from the body). `id` is accepted in place of `name`; every other key is an extra capability, except the host fields registration does not read (refused).',
  propertyNames: notNamed(HOST_VIEW_KEYS.filter((key) => !HOST_FIELD_KEYS.includes(key))),
  additionalProperties: CAPABILITY_VALUE,
})
export class RegisterHostDto {
  @IsDefined({ message: 'Missing parameter name' })
  @MaxLength(255, malformed('name'))
  @IsNotBlank({ message: 'Malformed parameter name (must not be empty or blank)' })
  @IsString(malformed('name'))
  @Documented(notBlank(255))
  name!: string;

  @IsOptional() @IsIntLike(outOfBounds('vcpus')) @DocumentedOptional(capacity('vcpus', 'CPUs')) vcpus?: number | string;
  @IsOptional() @IsIntLike(outOfBounds('memory_mb')) @DocumentedOptional(capacity('memory_mb', 'MiB')) memory_mb?: number | string;
  @IsOptional() @IsIntLike(outOfBounds('local_gb')) @DocumentedOptional(capacity('local_gb', 'GiB')) local_gb?: number | string;
  @IsOptional()
  @IsIntLike(outOfBounds('hypervisor_version'))
  @DocumentedOptional(capacity('hypervisor_version', "Nova's encoding (e.g. 8000000)"))
  hypervisor_version?: number | string;

  @IsOptional()
  @MaxLength(255, malformed('hypervisor_type'))
  @IsString(malformed('hypervisor_type'))
  @DocumentedOptional(TEXT_255)
  hypervisor_type?: string;
  @IsOptional()
  @IsString(malformed('cpu_info'))
  @DocumentedOptional({
    type: 'string',
    description: 'JSON text, as Nova reports it (default `{}`); may be pretty-printed (tab, LF, CR allowed).',
  })
  cpu_info?: string;

  @IsOptional()
  @MaxLength(255, malformed('service_name'))
  @IsString(malformed('service_name'))
  @DocumentedOptional(TEXT_255)
  service_name?: string;
  @IsOptional()
  @MaxLength(255, malformed('availability_zone'))
  @IsString(malformed('availability_zone'))
  @DocumentedOptional(TEXT_255)
  availability_zone?: string;
}

@RequestSchema()
export class PropertyPrivacyDto {
  @IsDefined({ message: 'Missing parameter private' })
  @IsBoolean({ message: 'Malformed parameter private: must be true or false' })
  @Documented({ type: 'boolean' })
  private!: boolean;
}
