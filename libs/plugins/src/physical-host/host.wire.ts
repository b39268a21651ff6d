import { MAX_INT32 } from '#domain/index.js';
import { type ChangeOfWire, reservationWire } from '../reservation-wire.js';
import { BEFORE_END_ACTIONS } from './host.reservation.js';
import { buildHostRequest } from './host-reservation.request.js';

/** physical:host as Blazar's host plugin reads it: `min`/`max` hosts matching two property queries, and what happens before the end. */
export const hostWire = reservationWire({
  schema: { name: 'HostReservationDto' },
  fields: [
    {
      name: 'min',
      field: 'min',
      kind: 'count',
      requestDescription: `Fewest hosts, 1 to ${MAX_INT32}; an integer or a string holding one.`,
      query: 'hosts, at least',
    },
    {
      name: 'max',
      field: 'max',
      kind: 'count',
      requestDescription: `Most hosts, \`min\` to ${MAX_INT32}; an integer or a string holding one.`,
      query: 'hosts, at most',
    },
    {
      name: 'hypervisor_properties',
      field: 'hypervisorProperties',
      kind: 'text',
      description: 'A Blazar query on host fields, e.g. `["==", "$vcpus", "8"]` (JSON text); empty for none.',
      query: "Blazar's host query",
    },
    {
      name: 'resource_properties',
      field: 'resourceProperties',
      kind: 'text',
      description: 'A Blazar query on extra capabilities, e.g. `["==", "$gpu", "true"]` (JSON text); empty for none.',
      query: "Blazar's capability query",
    },
    { name: 'before_end', field: 'beforeEnd', kind: 'choice', options: BEFORE_END_ACTIONS },
  ],
  required: ['min', 'max'],
  request: (values) =>
    buildHostRequest({
      min: values.min,
      max: values.max,
      hypervisorProperties: values.hypervisorProperties ?? '',
      resourceProperties: values.resourceProperties ?? '',
      beforeEnd: values.beforeEnd ?? 'default',
    }),
});

/** A change of a physical:host reservation (null: left as it is). */
export type HostChange = ChangeOfWire<typeof hostWire>;
