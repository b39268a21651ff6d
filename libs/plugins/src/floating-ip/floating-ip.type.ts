import type { ReservationType } from '../reservation-type.js';
import { type FloatingIpChange, floatingIpWire } from './floating-ip.wire.js';
import { floatingIpAvailability } from './floating-ip.availability.js';
import { floatingIpResources, floatingIpQuota, floatingIpUsage } from './floating-ip.holdings.js';
import { floatingIpRules } from './floating-ip.rules.js';
import type { FloatingIpReservationRequest } from './floating-ip-reservation.request.js';
import { floatingIpAdmission } from './floating-ip.admission.js';
import { OpenStackFloatingIpEffects } from './openstack/floating-ip.openstack-effects.js';
import { StandaloneFloatingIpEffects } from './standalone/floating-ip.standalone-effects.js';
import { floatingIpEnforcement, floatingIpEvents } from './floating-ip.public.js';
import { floatingIpView } from './floating-ip.view.js';

/** `virtual:floatingip`: registered addresses of an external network, created in the lease's project for the lease. */
export const floatingIpType: ReservationType<'virtual:floatingip', FloatingIpReservationRequest, FloatingIpChange> = {
  resourceType: 'virtual:floatingip',
  plugin: {
    name: 'virtual.floatingip.plugin',
    title: 'Floating IP Plugin',
    description: 'Reserves registered floating IP addresses of an external network.',
  },
  wire: floatingIpWire,
  rules: floatingIpRules,
  resources: floatingIpResources,
  quota: floatingIpQuota,
  usage: floatingIpUsage,
  admission: floatingIpAdmission,
  availability: floatingIpAvailability,
  effects: {
    openstack: (clients) => new OpenStackFloatingIpEffects(clients),
    standalone: (cloud) => new StandaloneFloatingIpEffects(cloud),
  },
  view: floatingIpView,
  events: floatingIpEvents,
  enforcement: floatingIpEnforcement,
};
