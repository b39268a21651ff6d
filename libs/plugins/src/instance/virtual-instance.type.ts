import type { ReservationType } from '../reservation-type.js';
import { type VirtualInstanceChange, virtualInstanceWire } from './instance.wire.js';
import { virtualInstanceAvailability } from './instance.availability.js';
import { instanceResources, instanceQuota, instanceUsage } from './instance.holdings.js';
import { virtualInstanceRules } from './instance.rules.js';
import type { InstanceReservationRequest } from './instance-reservation.request.js';
import { virtualInstanceAdmission } from './instance.admission.js';
import { OpenStackInstanceEffects } from './openstack/instance.openstack-effects.js';
import { StandaloneInstanceEffects } from './standalone/instance.standalone-effects.js';
import { instanceEvents, virtualInstanceEnforcement } from './instance.public.js';
import { instanceView } from './instance.view.js';

/** `virtual:instance`: instance-sized slots carved from hosts, a private flavor and resource class for the lease. */
export const virtualInstanceType: ReservationType<'virtual:instance', InstanceReservationRequest, VirtualInstanceChange> = {
  resourceType: 'virtual:instance',
  plugin: {
    name: 'virtual.instance.plugin',
    title: 'Virtual Instance Plugin',
    description: "Reserves instance-sized slices of hosts (vcpus, memory, disk), with affinity, under each host's capacity.",
  },
  wire: virtualInstanceWire,
  rules: virtualInstanceRules,
  resources: instanceResources,
  quota: instanceQuota,
  usage: instanceUsage,
  admission: virtualInstanceAdmission,
  availability: virtualInstanceAvailability,
  effects: {
    openstack: (clients, options) => new OpenStackInstanceEffects(clients, options),
    standalone: (cloud) => new StandaloneInstanceEffects(cloud),
  },
  view: instanceView,
  events: instanceEvents,
  enforcement: virtualInstanceEnforcement,
};
