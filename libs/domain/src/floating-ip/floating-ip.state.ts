import type { FloatingIpBooking, FloatingIpInfo } from './floating-ip.types.js';

export type FloatingIpState =
  | { readonly status: 'Unregistered' }
  | (FloatingIpInfo & {
      readonly status: 'Registered';
      /** Sorted by start; never overlapping (widened by the cleaning time in force when booked). */
      readonly bookings: readonly FloatingIpBooking[];
      readonly registeredAt: string;
    })
  | { readonly status: 'Removed'; readonly floatingIpId: string };

export type RegisteredFloatingIp = Extract<FloatingIpState, { status: 'Registered' }>;

export const initialFloatingIpState = (): FloatingIpState => ({ status: 'Unregistered' });
