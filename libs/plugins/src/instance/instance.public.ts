import { enforcedHosts } from '../enforcement/enforced-hosts.js';
import type { ReservationTypeEnforcement, ReservationTypeEvents } from '../reservation-type.js';
import type { FlavorInstanceReservation, InstanceReservation, VirtualInstanceReservation } from './instance.reservation.js';

/** In the public events: the instance size and count, and the slots held on each host. */
export const instanceEvents: ReservationTypeEvents<InstanceReservation> = {
  publicShape: (r) => ({
    amount: r.amount,
    vcpus: r.vcpus,
    memory_mb: r.memoryMb,
    disk_gb: r.diskGb,
    allocations: r.allocations.map((a) => ({ host_id: a.hostId, count: a.count })),
  }),
};

const hostsOf = (r: InstanceReservation): readonly string[] => r.allocations.map((a) => a.hostId);

/** To the enforcement service: the size asked, and each host that holds slots, once. */
export const virtualInstanceEnforcement: ReservationTypeEnforcement<VirtualInstanceReservation> = {
  body: (resources, r) => ({
    amount: r.amount,
    vcpus: r.vcpus,
    memory_mb: r.memoryMb,
    disk_gb: r.diskGb,
    affinity: r.affinity,
    resource_properties: r.resourceProperties,
    allocations: enforcedHosts(resources, hostsOf(r)),
  }),
};

/** To the enforcement service: the catalog flavor asked (upstream's flavor_id), and each host that holds slots, once. */
export const flavorInstanceEnforcement: ReservationTypeEnforcement<FlavorInstanceReservation> = {
  body: (resources, r) => ({
    amount: r.amount,
    flavor_id: r.sourceFlavorId,
    affinity: r.affinity,
    resource_properties: r.resourceProperties,
    allocations: enforcedHosts(resources, hostsOf(r)),
  }),
};
