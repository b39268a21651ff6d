import { MAX_INT32 } from '#domain/index.js';
import { type Change, type ChangeOfWire, type WireField, reservationWire } from '../reservation-wire.js';
import type { Affinity } from './instance.reservation.js';
import { buildFlavorInstanceRequest, buildInstanceRequest } from './instance-reservation.request.js';

const INSTANCES = `Instances, 1 to ${MAX_INT32}.`;

const amount = {
  name: 'amount',
  field: 'amount',
  kind: 'count',
  requestDescription: INSTANCES,
  query: 'instances',
} as const satisfies WireField;

const affinity = {
  name: 'affinity',
  field: 'affinity',
  kind: 'bool-or-none',
  description: 'true (one host), false (one host each) or null (anywhere); also the strings "True", "False", "None" the clients send.',
  query: 'instance affinity',
} as const satisfies WireField;

/** virtual:instance as Blazar's instance plugin reads it (every key required but affinity and resource_properties: None and ""). */
export const virtualInstanceWire = reservationWire({
  schema: {
    name: 'InstanceReservationDto',
    description: '`virtual:instance`: `amount` instances of this size, carved from reservable hosts within their capacity.',
  },
  fields: [
    amount,
    { name: 'vcpus', field: 'vcpus', kind: 'count', requestDescription: `1 to ${MAX_INT32}.`, query: 'vcpus per instance' },
    { name: 'memory_mb', field: 'memoryMb', kind: 'count', requestDescription: `1 to ${MAX_INT32}.`, query: 'MB per instance' },
    { name: 'disk_gb', field: 'diskGb', kind: 'count', requestDescription: `0 to ${MAX_INT32}.`, query: 'GB per instance' },
    affinity,
    {
      name: 'resource_properties',
      field: 'resourceProperties',
      kind: 'text',
      description: 'A Blazar query on host extra capabilities (JSON text); empty for none.',
      query: "Blazar's capability query",
    },
  ],
  required: ['vcpus', 'memory_mb', 'disk_gb', 'amount'],
  request: (values) =>
    buildInstanceRequest({
      amount: values.amount,
      vcpus: values.vcpus,
      memoryMb: values.memoryMb,
      diskGb: values.diskGb,
      affinity: values.affinity,
      resourceProperties: values.resourceProperties ?? '',
    }),
});

/** flavor:instance: an existing flavor and a number of instances. */
export const flavorInstanceWire = reservationWire({
  schema: {
    name: 'FlavorInstanceReservationDto',
    description: '`flavor:instance`: `amount` instances of a catalog flavor (sizes and extra specs come from the flavor).',
  },
  fields: [{ name: 'flavor_id', field: 'flavorId', kind: 'flavor-id', query: 'a flavor id' }, amount, affinity],
  required: ['flavor_id', 'amount'],
  request: (values) => buildFlavorInstanceRequest(values.flavorId, values.amount, values.affinity),
});

export type VirtualInstanceChange = ChangeOfWire<typeof virtualInstanceWire>;
export type FlavorInstanceChange = ChangeOfWire<typeof flavorInstanceWire>;

/** The affinity a change sets (possibly null: anywhere), or the reservation's own. */
export const changedAffinity = (change: { readonly affinity: Change<Affinity> } | undefined, current: Affinity): Affinity =>
  change === undefined || change.affinity === null ? current : change.affinity.value;
