import { HOST_CAPACITY_BOUNDS, HOST_FIELD_KEYS, RegisterHostDto, PropertyPrivacyDto } from '../hosts/host.dto.js';
import { BLAZAR_DATE_PATTERN } from '../http/blazar-dates.js';
import { MAX_INT32 } from '../http/int-like.js';
import { MAX_RXTX_FACTOR } from '../flavors/flavor-request.parser.js';
import { HOST_VIEW_KEYS } from '../../../../libs/read-model/src/index.js';
import { CreateFlavorDto } from '../flavors/flavor.dto.js';
import { RegisterFloatingIpDto } from '../floatingips/floating-ip.dto.js';
import {
  CreateLeaseDto,
  FlavorInstanceReservationDto,
  FloatingIpReservationDto,
  HostReservationDto,
  InstanceReservationDto,
  ReservationTypeDto,
  ReservationUpdateDto,
  UpdateLeaseDto,
} from '../leases/lease.dto.js';
import { RESOURCE_TYPES } from '../../../../libs/domain/src/index.js';
import { type DtoSchemaOptions, dtoSchema } from './dto-schema.js';
import { type JsonSchema, ref } from './json-schema.js';

/**
 * Request bodies: each DTO's schema is generated from its class-validator decorators; what is
 * layered on top only documents checks the request parsers make after the DTO (date format,
 * reservation items), and may not contradict a decorator (dto-schema reports it if it does).
 */

/** parseBlazarDate (http/blazar-dates.ts): `YYYY-MM-DD HH:MM` in UTC as upstream's strptime reads it, or `now`. */
const REQUEST_DATE: JsonSchema = {
  type: 'string',
  pattern: `^now$|${BLAZAR_DATE_PATTERN}`,
  description:
    'UTC date `YYYY-MM-DD HH:MM` (leading zeros optional, hour 0-23: `24:00` is refused; the date must exist), or `now` (the current minute).',
  examples: ['2030-01-01 12:00'],
};

/** The capability values parseRegisterHost/parseUpdateHost accept (stored as Python's str() prints them). */
const CAPABILITY_VALUE: JsonSchema = { type: ['string', 'number', 'boolean'] };

const between = ({ min, max }: { readonly min: number; readonly max: number }, unit: string): string => `${unit}, ${min} to ${max}; absent: 0 (not reported).`;

/** No extra capability may be named after a host field: registration refuses the fields it does not read, an update all of them. */
const notNamed = (keys: readonly string[]): JsonSchema => ({ not: { enum: [...keys] } });

export interface DtoDocumentation extends DtoSchemaOptions {
  readonly dto: Function;
}

export const DTO_DOCUMENTATION: readonly DtoDocumentation[] = [
  {
    dto: CreateLeaseDto,
    object: { description: 'A new lease. Dates are checked in this order: start, end, before-end, then each reservation.' },
    properties: {
      start_date: REQUEST_DATE,
      end_date: REQUEST_DATE,
      before_end_date: { ...REQUEST_DATE, description: 'When the before-end action runs; by default `minutes_before_end_lease` before the end.' },
      reservations: { items: ref('ReservationRequest') },
      events: { description: 'Accepted for compatibility with upstream clients, which send `[]`; ignored.' },
    },
  },
  {
    dto: UpdateLeaseDto,
    object: { description: 'Changes to a lease; absent (or null) fields are left unchanged, unknown keys are ignored.' },
    properties: {
      start_date: REQUEST_DATE,
      end_date: REQUEST_DATE,
      before_end_date: REQUEST_DATE,
      reservations: { items: ref('ReservationUpdateDto') },
    },
  },
  {
    dto: ReservationTypeDto,
    properties: { resource_type: { description: `Supported: ${RESOURCE_TYPES.map((type) => `\`${type}\``).join(', ')}; others are refused (400).`, examples: [...RESOURCE_TYPES] } },
  },
  {
    dto: HostReservationDto,
    properties: {
      min: { description: `Fewest hosts, 1 to ${MAX_INT32}; an integer or a string holding one.` },
      max: { description: `Most hosts, \`min\` to ${MAX_INT32}; an integer or a string holding one.` },
      hypervisor_properties: { description: 'A Blazar query on host fields, e.g. `["==", "$vcpus", "8"]` (JSON text); empty for none.' },
      resource_properties: { description: 'A Blazar query on extra capabilities, e.g. `["==", "$gpu", "true"]` (JSON text); empty for none.' },
    },
  },
  {
    dto: InstanceReservationDto,
    object: { description: '`virtual:instance`: `amount` instances of this size, carved from reservable hosts within their capacity.' },
    properties: {
      vcpus: { description: `1 to ${MAX_INT32}.` },
      memory_mb: { description: `1 to ${MAX_INT32}.` },
      disk_gb: { description: `0 to ${MAX_INT32}.` },
      amount: { description: `Instances, 1 to ${MAX_INT32}.` },
      resource_properties: { description: 'A Blazar query on host extra capabilities (JSON text); empty for none.' },
    },
  },
  {
    dto: FlavorInstanceReservationDto,
    object: { description: '`flavor:instance`: `amount` instances of a catalog flavor (sizes and extra specs come from the flavor).' },
    properties: { amount: { description: `Instances, 1 to ${MAX_INT32}.` } },
  },
  {
    dto: FloatingIpReservationDto,
    object: { description: '`virtual:floatingip`: `amount` registered addresses of the network, including every `required_floatingips` address.' },
    properties: {
      amount: { description: `Addresses, 1 to ${MAX_INT32}.` },
      required_floatingips: { description: 'IPv4/IPv6 addresses that must be part of the reservation; at most `amount`, no repeats.' },
    },
  },
  {
    dto: ReservationUpdateDto,
    object: {
      description:
        'Changes to one reservation of the lease, found by `id`; `resource_type` cannot change (409); fields of another reservation type are refused (400).',
    },
  },
  {
    dto: RegisterHostDto,
    object: {
      description:
        'A host (standalone mode: its capacity comes from the body). `id` is accepted in place of `name`; every other key is an extra capability, except the host fields registration does not read (refused).',
      propertyNames: notNamed(HOST_VIEW_KEYS.filter((key) => !HOST_FIELD_KEYS.includes(key))),
      additionalProperties: CAPABILITY_VALUE,
    },
    properties: {
      vcpus: { description: between(HOST_CAPACITY_BOUNDS.vcpus, 'CPUs') },
      memory_mb: { description: between(HOST_CAPACITY_BOUNDS.memory_mb, 'MiB') },
      local_gb: { description: between(HOST_CAPACITY_BOUNDS.local_gb, 'GiB') },
      hypervisor_version: { description: between(HOST_CAPACITY_BOUNDS.hypervisor_version, "Nova's encoding (e.g. 8000000)") },
      cpu_info: { description: 'JSON text, as Nova reports it (default `{}`); may be pretty-printed (tab, LF, CR allowed).' },
    },
  },
  { dto: PropertyPrivacyDto },
  {
    dto: RegisterFloatingIpDto,
    object: { description: 'An address of an external network to set aside for reservations (standalone mode: any network id).' },
    properties: {
      floating_ip_address: { description: 'An IPv4 or IPv6 address; IPv6 is stored in its canonical (RFC 5952) form.', examples: ['172.24.4.101'] },
    },
  },
  {
    dto: CreateFlavorDto,
    object: { description: "A flavor as Nova's `POST /flavors` takes it, plus `extra_specs`. Unknown keys are ignored." },
    properties: {
      vcpus: { description: `1 to ${MAX_INT32}; an integer or a string holding one.` },
      ram: { description: `MiB, 1 to ${MAX_INT32}; an integer or a string holding one.` },
      disk: { description: `Root disk GiB, 0 to ${MAX_INT32}; an integer or a string holding one.` },
      id: { description: 'Default: a new UUID.' },
      'OS-FLV-EXT-DATA:ephemeral': { description: `Ephemeral disk GiB, 0 to ${MAX_INT32} (default 0).` },
      swap: { description: `Swap MiB, 0 to ${MAX_INT32} (default 0).` },
      rxtx_factor: { description: `Greater than 0, at most ${MAX_RXTX_FACTOR} (default 1).` },
      'os-flavor-access:is_public': { description: 'Default true; private flavors are shown to admins only.' },
    },
  },
];

/** Request bodies without a DTO: parseUpdateHost reads every key as a capability, except `reservable`. */
export const HAND_WRITTEN_REQUEST_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  FlavorCreate: {
    type: 'object',
    description: "Nova's envelope; a missing `flavor` is refused (400 `Missing parameter flavor`).",
    properties: { flavor: ref('CreateFlavorDto') },
    required: ['flavor'],
  },
  ReservationRequest: {
    description: 'One reservation of a new lease: `resource_type` is checked first, then the parameters of that type.',
    allOf: [ref('ReservationTypeDto')],
    oneOf: [
      { properties: { resource_type: { const: 'physical:host' } }, allOf: [ref('HostReservationDto')] },
      { properties: { resource_type: { const: 'virtual:instance' } }, allOf: [ref('InstanceReservationDto')] },
      { properties: { resource_type: { const: 'flavor:instance' } }, allOf: [ref('FlavorInstanceReservationDto')] },
      { properties: { resource_type: { const: 'virtual:floatingip' } }, allOf: [ref('FloatingIpReservationDto')] },
    ],
  },
  HostUpdate: {
    type: 'object',
    description:
      'Extra capabilities as top-level keys (e.g. `{"gpu": "true"}`) and/or `reservable`; a host field (`vcpus`, `name`...) cannot be updated (400). Not generated: checked by the request parser.',
    minProperties: 1,
    propertyNames: notNamed([...new Set([...HOST_VIEW_KEYS, ...HOST_FIELD_KEYS])].filter((key) => key !== 'reservable')),
    properties: { reservable: { anyOf: [{ type: 'boolean' }, { enum: ['true', 'false', 'True', 'False'] }] } },
    additionalProperties: CAPABILITY_VALUE,
  },
};

export interface RequestSchemas {
  readonly schemas: Record<string, JsonSchema>;
  readonly problems: string[];
}

export const requestSchemas = (): RequestSchemas => {
  const schemas: Record<string, JsonSchema> = {};
  const problems: string[] = [];
  for (const { dto, ...options } of DTO_DOCUMENTATION) {
    const result = dtoSchema(dto, options);
    schemas[dto.name] = result.schema;
    problems.push(...result.problems);
  }
  return { schemas: { ...schemas, ...HAND_WRITTEN_REQUEST_SCHEMAS }, problems };
};
