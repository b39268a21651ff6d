import type { ReservationType } from '../reservation-type.js';
import { networkAdmission } from './network.admission.js';
import { networkAvailability } from './network.availability.js';
import { networkQuota, networkResources, networkUsage } from './network.holdings.js';
import { networkEnforcement, networkEvents } from './network.public.js';
import type { NetworkReservationRequest } from './network-reservation.request.js';
import { networkRules } from './network.rules.js';
import { networkView } from './network.view.js';
import { OpenStackNetworkEffects } from './openstack/network.openstack-effects.js';
import { StandaloneNetworkEffects } from './standalone/network.standalone-effects.js';
import { type NetworkChange, networkWire } from './network.wire.js';

/** `network` (Chameleon's): a registered segment, on which the lease's start creates a Neutron network in the lease's project. */
export const networkType: ReservationType<'network', NetworkReservationRequest, NetworkChange> = {
  resourceType: 'network',
  plugin: {
    name: 'network.plugin',
    title: 'Network Plugin',
    description: 'Reserves registered network segments (VLANs and other provider segments); the lease creates its Neutron network on one.',
  },
  wire: networkWire,
  rules: networkRules,
  resources: networkResources,
  quota: networkQuota,
  usage: networkUsage,
  admission: networkAdmission,
  availability: networkAvailability,
  effects: {
    openstack: (clients) => new OpenStackNetworkEffects(clients),
    standalone: (cloud) => new StandaloneNetworkEffects(cloud),
  },
  view: networkView,
  events: networkEvents,
  enforcement: networkEnforcement,
};
