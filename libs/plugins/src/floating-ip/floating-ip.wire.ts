import { MAX_INT32 } from '#domain/index.js';
import { type ChangeOfWire, reservationWire } from '../reservation-wire.js';
import { buildFloatingIpRequest } from './floating-ip-reservation.request.js';

/** virtual:floatingip as Blazar's floating IP plugin reads it: `amount` addresses of an external network, some of them named. */
export const floatingIpWire = reservationWire({
  schema: {
    name: 'FloatingIpReservationDto',
    description: '`virtual:floatingip`: `amount` registered addresses of the network, including every `required_floatingips` address.',
  },
  fields: [
    { name: 'network_id', field: 'networkId', kind: 'uuid', of: 'network', query: 'a network id' },
    { name: 'amount', field: 'amount', kind: 'count', requestDescription: `Addresses, 1 to ${MAX_INT32}.`, query: 'floating IPs' },
    {
      name: 'required_floatingips',
      field: 'requiredFloatingIps',
      kind: 'texts',
      description: 'IPv4/IPv6 addresses that must be part of the reservation; at most `amount`, no repeats.',
    },
  ],
  required: ['network_id', 'amount'],
  request: (values) => buildFloatingIpRequest(values.networkId, values.amount, values.requiredFloatingIps ?? []),
});

/** A change of a virtual:floatingip reservation (null: left as it is). */
export type FloatingIpChange = ChangeOfWire<typeof floatingIpWire>;
