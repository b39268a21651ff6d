import { NETWORK_TYPES } from '#plugins/network/network-segment.types.js';
import { CAPABILITY_VALUE, notNamed } from '../hosts/host.dto.js';
import { type JsonSchema, ref } from '../openapi/json-schema.js';
import { envelope, listOf } from '../openapi/response-schemas.js';
import { NOT_CAPABILITIES, RegisterNetworkDto } from './network.dto.js';

const string: JsonSchema = { type: 'string' };
const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const timestamp: JsonSchema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d{6})?$' };
const blazarDate: JsonSchema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}$' };

const required = (properties: Readonly<Record<string, JsonSchema>>, extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  ...extra,
  properties,
  required: Object.keys(properties),
});

/** The network segments' schemas, beside the others in the document's components. */
export const NETWORK_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  Network: required(
    {
      created_at: timestamp,
      updated_at: { ...timestamp, type: ['string', 'null'] },
      id: uuid,
      network_type: { enum: [...NETWORK_TYPES] },
      physical_network: { type: ['string', 'null'] },
      segment_id: { type: ['integer', 'null'], description: 'The VLAN tag or tunnel id; null for flat.' },
    },
    {
      description: "Chameleon's network segment; extra capabilities appear as further top-level keys with string values.",
      additionalProperties: string,
    },
  ),
  NetworkAllocation: required({
    resource_id: { ...uuid, description: 'The network segment id.' },
    reservations: { type: 'array', items: required({ id: uuid, lease_id: uuid, start_date: blazarDate, end_date: blazarDate }) },
  }),
  NetworkPropertyRecord: required({
    created_at: blazarDate,
    updated_at: { ...blazarDate, type: ['string', 'null'] },
    id: string,
    resource_type: { const: 'network' },
    property_name: string,
    private: { type: 'boolean' },
  }),
  NetworkUpdate: {
    type: 'object',
    description:
      'Extra capabilities as top-level keys (e.g. `{"switch": "s1"}`), null to unset one; the segment fields cannot be updated (400). Checked by the request parser.',
    minProperties: 1,
    propertyNames: notNamed(NOT_CAPABILITIES),
    additionalProperties: { anyOf: [CAPABILITY_VALUE, { type: 'null' }] },
  },
};

/** The request DTOs the document lists (their schemas are generated from the class-validator DTO). */
export const NETWORK_DTOS = [RegisterNetworkDto];

const ALLOCATION_FILTERS = {
  lease_id: 'Only allocations of this lease (then also past ones).',
  reservation_id: 'Only allocations of this reservation (then also past ones).',
};
const AS_OF = {
  as_of: 'A Leasehold extension: answer exactly as this GET would have at that instant, as recorded (as for hosts); 400 in the future.',
};
const FLAG = 'A flag: any value except empty, `false`, `0`, `no` and `off` is true.';

/**
 * Chameleon's `/v1/networks` routes (blazar/api/v1/networks/v1_0.py) and Leasehold's history of a segment, as
 * operations.ts's OperationDoc entries (checked where OPERATIONS spreads them).
 */
export const NETWORK_OPERATIONS = {
  'GET /v1/networks': {
    operationId: 'listNetworks',
    tag: 'networks',
    summary: 'List network segments',
    parameters: AS_OF,
    response: { description: 'The segments, in registration order.', schema: listOf('networks', 'Network') },
  },
  'POST /v1/networks': {
    operationId: 'createNetwork',
    tag: 'networks',
    summary: 'Register a network segment',
    description:
      'A (network_type, physical_network, segment_id) is registered once (409). Nothing is created in Neutron; with LEASEHOLD_CLOUD=openstack a segment a Neutron network already uses is refused (409).',
    body: { schema: ref('RegisterNetworkDto'), required: true },
    response: { description: 'The new segment.', schema: envelope('network', ref('Network')) },
    errors: [409, 503],
  },
  'GET /v1/networks/allocations': {
    operationId: 'listNetworkAllocations',
    tag: 'networks',
    summary: 'List network-segment allocations',
    description: 'One entry per segment; without a filter, only reservations of leases not yet ended.',
    parameters: { ...ALLOCATION_FILTERS, ...AS_OF },
    response: { description: 'The allocations of every segment.', schema: listOf('allocations', 'NetworkAllocation') },
  },
  'GET /v1/networks/properties': {
    operationId: 'listNetworkProperties',
    tag: 'networks',
    summary: "List the segments' resource properties",
    parameters: {
      detail: `Include \`private\` and the values segments have. ${FLAG}`,
      all: `Include private properties (admins only). ${FLAG}`,
    },
    response: { description: 'The properties, by name.', schema: listOf('resource_properties', 'ResourceProperty') },
  },
  'PATCH /v1/networks/properties/:name': {
    operationId: 'updateNetworkProperty',
    tag: 'networks',
    summary: "Make a segments' resource property private or public",
    parameters: { name: 'The property (extra capability) name.' },
    body: { schema: ref('PropertyPrivacyDto'), required: true },
    response: { description: 'The property.', schema: envelope('resource_property', ref('NetworkPropertyRecord')) },
    errors: [404],
  },
  'GET /v1/networks/:networkId': {
    operationId: 'showNetwork',
    tag: 'networks',
    summary: 'Show a network segment',
    parameters: { networkId: 'The segment id.', ...AS_OF },
    response: { description: 'The segment.', schema: envelope('network', ref('Network')) },
    errors: [404],
  },
  'PUT /v1/networks/:networkId': {
    operationId: 'updateNetwork',
    tag: 'networks',
    summary: "Set or unset a segment's extra capabilities",
    description: 'Refused (409) for a capability a reservation not yet ended depends on.',
    parameters: { networkId: 'The segment id.' },
    body: { schema: ref('NetworkUpdate'), required: true },
    response: { description: 'The updated segment.', schema: envelope('network', ref('Network')) },
    errors: [404, 409],
  },
  'DELETE /v1/networks/:networkId': {
    operationId: 'deleteNetwork',
    tag: 'networks',
    summary: 'Unregister a network segment',
    description: 'Refused (409) while a reservation holds it and has not ended.',
    parameters: { networkId: 'The segment id.' },
    response: { description: 'Unregistered.' },
    errors: [404, 409],
  },
  'GET /v1/networks/:networkId/allocation': {
    operationId: 'showNetworkAllocation',
    tag: 'networks',
    summary: "Show a segment's allocation",
    parameters: { networkId: 'The segment id.', ...ALLOCATION_FILTERS },
    response: { description: "The segment's allocation.", schema: envelope('allocation', ref('NetworkAllocation')) },
    errors: [404],
  },
  'GET /v1/networks/:networkId/history': {
    operationId: 'showNetworkHistory',
    tag: 'networks',
    summary: "A network segment's history",
    description:
      "Every event of the segment and its registry entries, every lease's bookings included, in log order (`leasehold:networks:history`, default admin).",
    parameters: { networkId: 'The segment id.' },
    response: { description: 'The events, oldest first.', schema: listOf('history', 'HistoryEntry') },
    errors: [404],
  },
};
