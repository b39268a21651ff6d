import type { HostReservation } from './host.reservation.js';

/**
 * What upstream's `/v1/os-hosts/properties` tags a host capability with: the resource type of the plugin that
 * owns the hosts (its `resource_properties` are the capabilities' names).
 */
export const HOST_PROPERTY_RESOURCE_TYPE: HostReservation['resourceType'] = 'physical:host';
