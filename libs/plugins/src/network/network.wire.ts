import { type ChangeOfWire, reservationWire } from '../reservation-wire.js';
import { NETWORK_BEFORE_END_ACTIONS, buildNetworkRequest } from './network-reservation.request.js';

/** `network` as Chameleon's network plugin reads it: a segment matching two property queries, and the network to create on it. */
export const networkWire = reservationWire({
  schema: {
    name: 'NetworkReservationDto',
    description:
      '`network`: one registered network segment matching both queries; the lease creates the Neutron network `network_name` on it.',
  },
  fields: [
    {
      name: 'network_name',
      field: 'networkName',
      kind: 'text',
      description: 'The Neutron network to create at the start (1 to 255 characters).',
    },
    {
      name: 'network_description',
      field: 'networkDescription',
      kind: 'text',
      description: "The network's description (at most 255 characters).",
    },
    {
      name: 'network_properties',
      field: 'networkProperties',
      kind: 'text',
      description: 'A Blazar query on segment fields, e.g. `["==", "$physical_network", "physnet1"]` (JSON text); empty for none.',
      query: "Blazar's segment query",
    },
    {
      name: 'resource_properties',
      field: 'resourceProperties',
      kind: 'text',
      description: 'A Blazar query on extra capabilities, e.g. `["==", "$gpu", "true"]` (JSON text); empty for none.',
      query: "Blazar's capability query",
    },
    { name: 'before_end', field: 'beforeEnd', kind: 'choice', options: NETWORK_BEFORE_END_ACTIONS },
  ],
  required: ['network_name'],
  request: (values) =>
    buildNetworkRequest({
      networkName: values.networkName,
      networkDescription: values.networkDescription ?? '',
      networkProperties: values.networkProperties ?? '',
      resourceProperties: values.resourceProperties ?? '',
      beforeEnd: values.beforeEnd ?? 'default',
    }),
});

/** A change of a `network` reservation (null: left as it is). */
export type NetworkChange = ChangeOfWire<typeof networkWire>;
