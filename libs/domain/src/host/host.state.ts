import type { Booking, Capabilities, HostInfo } from './host.types.js';

export type HostState =
  | { readonly status: 'Unregistered' }
  | {
      readonly status: 'Registered';
      readonly hostId: string;
      readonly info: HostInfo;
      readonly capabilities: Capabilities;
      readonly reservable: boolean;
      /** Sorted by start; never overlapping (widened by the cleaning time in force when booked). */
      readonly bookings: readonly Booking[];
      readonly registeredAt: string;
      readonly updatedAt: string | null;
    }
  | { readonly status: 'Removed'; readonly hostId: string };

export type RegisteredHost = Extract<HostState, { status: 'Registered' }>;

export const initialHostState = (): HostState => ({ status: 'Unregistered' });
