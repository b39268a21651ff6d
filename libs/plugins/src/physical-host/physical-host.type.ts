import type { ReservationType } from '../reservation-type.js';
import { type HostChange, hostWire } from './host.wire.js';
import { hostAvailability } from './host.availability.js';
import { hostResources, hostQuota, hostUsage } from './host.holdings.js';
import { hostRules } from './host.rules.js';
import type { HostReservationRequest } from './host-reservation.request.js';
import { hostAdmission } from './host.admission.js';
import { OpenStackHostEffects } from './openstack/physical-host.openstack-effects.js';
import { StandaloneHostEffects } from './standalone/physical-host.standalone-effects.js';
import { hostEnforcement, hostEvents } from './host.public.js';
import { hostView } from './host.view.js';

/** `physical:host`: whole compute hosts, moved from the freepool into the reservation's aggregate for the lease. */
export const physicalHostType: ReservationType<'physical:host', HostReservationRequest, HostChange> = {
  resourceType: 'physical:host',
  plugin: {
    // upstream's plugin name (`[manager]plugins`) and title
    name: 'physical.host.plugin',
    title: 'Physical Host Plugin',
    description: 'Reserves whole physical hosts for the time of a lease.',
  },
  wire: hostWire,
  rules: hostRules,
  resources: hostResources,
  quota: hostQuota,
  usage: hostUsage,
  admission: hostAdmission,
  availability: hostAvailability,
  effects: {
    openstack: (clients, options) => new OpenStackHostEffects(clients, options),
    standalone: (cloud, options) => new StandaloneHostEffects(cloud, options),
  },
  view: hostView,
  events: hostEvents,
  enforcement: hostEnforcement,
};
