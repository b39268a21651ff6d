import type { ReservationTypeEnforcement, ReservationTypeEvents } from '../reservation-type.js';
import type { FloatingIpReservation } from './floating-ip.reservation.js';

/** In the public events: the network and count asked, and the addresses held. */
export const floatingIpEvents: ReservationTypeEvents<FloatingIpReservation> = {
  publicShape: (r) => ({
    network_id: r.networkId,
    amount: r.amount,
    allocations: r.allocations.map((a) => ({ floating_ip_id: a.floatingIpId, address: a.address })),
  }),
};

/** To the enforcement service: what was asked, and each address held on its network (the reservation's, once unregistered). */
export const floatingIpEnforcement: ReservationTypeEnforcement<FloatingIpReservation> = {
  body: (resources, r) => ({
    network_id: r.networkId,
    amount: r.amount,
    required_floatingips: r.requiredFloatingIps,
    allocations: r.allocations.map((a) => ({
      id: a.floatingIpId,
      floating_network_id: resources.floatingIp(a.floatingIpId)?.networkId ?? r.networkId,
      floating_ip_address: a.address,
    })),
  }),
};
