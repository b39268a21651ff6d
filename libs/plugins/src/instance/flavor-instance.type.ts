import type { ReservationType } from '../reservation-type.js';
import { type FlavorInstanceChange, flavorInstanceWire } from './instance.wire.js';
import { flavorInstanceAvailability } from './instance.availability.js';
import { instanceResources, instanceQuota, instanceUsage } from './instance.holdings.js';
import { flavorInstanceRules } from './instance.rules.js';
import type { FlavorInstanceReservationRequest } from './instance-reservation.request.js';
import { flavorInstanceAdmission } from './instance.admission.js';
import { OpenStackInstanceEffects } from './openstack/instance.openstack-effects.js';
import { StandaloneInstanceEffects } from './standalone/instance.standalone-effects.js';
import { flavorInstanceEnforcement, instanceEvents } from './instance.public.js';
import { instanceView } from './instance.view.js';

/** `flavor:instance`: instances of a catalog flavor, from the same slot capacity as virtual:instance. */
export const flavorInstanceType: ReservationType<'flavor:instance', FlavorInstanceReservationRequest, FlavorInstanceChange> = {
  resourceType: 'flavor:instance',
  plugin: {
    name: 'flavor.instance.plugin',
    title: 'Flavor-based Instance Plugin',
    description: 'Reserves instances of an existing flavor, from the same slot capacity as virtual:instance.',
  },
  wire: flavorInstanceWire,
  rules: flavorInstanceRules,
  resources: instanceResources,
  quota: instanceQuota,
  usage: instanceUsage,
  admission: flavorInstanceAdmission,
  availability: flavorInstanceAvailability,
  effects: {
    openstack: (clients, options) => new OpenStackInstanceEffects(clients, options),
    standalone: (cloud) => new StandaloneInstanceEffects(cloud),
  },
  view: instanceView,
  events: instanceEvents,
  enforcement: flavorInstanceEnforcement,
};
