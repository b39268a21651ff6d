import type { MaintenanceWindow } from '../shared/maintenance.js';
import type { FloatingIpBooking, FloatingIpInfo } from './floating-ip.types.js';

export type FloatingIpState =
  | { readonly status: 'Unregistered' }
  | (FloatingIpInfo & {
      readonly status: 'Registered';
      /** Sorted by start; never overlapping (widened by the cleaning time in force when booked). */
      readonly bookings: readonly FloatingIpBooking[];
      /** Sorted by start, never overlapping each other; ended ones stay (they are history, and few). */
      readonly maintenance: readonly MaintenanceWindow[];
      readonly registeredAt: string;
    })
  | { readonly status: 'Removed'; readonly floatingIpId: string };

export type RegisteredFloatingIp = Extract<FloatingIpState, { status: 'Registered' }>;

export const initialFloatingIpState = (): FloatingIpState => ({ status: 'Unregistered' });
