import { enforcedHosts } from '../enforcement/enforced-hosts.js';
import type { ReservationTypeEnforcement, ReservationTypeEvents } from '../reservation-type.js';
import type { HostReservation } from './host.reservation.js';

/** In the public events: the host counts asked and the hosts held. */
export const hostEvents: ReservationTypeEvents<HostReservation> = {
  publicShape: (r) => ({ min: r.min, max: r.max, host_ids: [...r.hostIds] }),
};

/** To the enforcement service: what was asked, and each host held with its capabilities. */
export const hostEnforcement: ReservationTypeEnforcement<HostReservation> = {
  body: (resources, r) => ({
    min: r.min,
    max: r.max,
    hypervisor_properties: r.hypervisorProperties,
    resource_properties: r.resourceProperties,
    before_end: r.beforeEnd,
    allocations: enforcedHosts(resources, r.hostIds),
  }),
};
