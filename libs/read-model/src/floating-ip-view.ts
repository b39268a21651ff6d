import type { FloatingIpEvent } from '#domain/index.js';
import { toBlazarTimestamp } from './blazar-format.js';

/**
 * A floating IP as Blazar shows it: the row's timestamps first, then its columns, as the host view
 * (upstream's model `to_dict`).
 */
export interface FloatingIpView {
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly id: string;
  readonly floating_network_id: string;
  /** Null in standalone mode: no Neutron was asked which subnet holds the address. */
  readonly subnet_id: string | null;
  readonly floating_ip_address: string;
  readonly reservable: boolean;
}

/** Folds a floating-IP event into its view; null once unregistered. Bookings don't change the view. */
export const evolveFloatingIpView = (view: FloatingIpView | null, event: FloatingIpEvent): FloatingIpView | null => {
  switch (event.type) {
    case 'FloatingIp.Registered': {
      const { floatingIpId, networkId, subnetId, address, registeredAt } = event.data;
      return {
        created_at: toBlazarTimestamp(registeredAt),
        updated_at: null,
        id: floatingIpId,
        floating_network_id: networkId,
        subnet_id: subnetId,
        floating_ip_address: address,
        reservable: true,
      };
    }
    case 'FloatingIp.Unregistered':
      return null;
    case 'FloatingIp.Booked':
    case 'FloatingIp.BookingMoved':
    case 'FloatingIp.BookingReleased':
    case 'FloatingIp.MaintenanceScheduled':
    case 'FloatingIp.MaintenanceCancelled':
      return view;
    default: {
      const _never: never = event;
      return view;
    }
  }
};
