import type { MaintenanceWindow } from '../shared/maintenance.js';
import type { Booking, Capabilities, HostHealth, HostInfo } from './host.types.js';

export type HostState =
  | { readonly status: 'Unregistered' }
  | {
      readonly status: 'Registered';
      readonly hostId: string;
      readonly info: HostInfo;
      readonly capabilities: Capabilities;
      readonly reservable: boolean;
      /** As last observed by a monitor; new hosts are up. */
      readonly health: HostHealth;
      /**
       * Sorted by start. A whole-host booking overlaps no other booking (widened by the cleaning time
       * in force when booked); slot bookings overlap each other within the host's capacity.
       */
      readonly bookings: readonly Booking[];
      /** Longest booking ever held (never shrinks): bounds the search for overlapping bookings. */
      readonly longestBookingMs: number;
      /** Sorted by start, never overlapping each other; ended ones stay (they are history, and few). */
      readonly maintenance: readonly MaintenanceWindow[];
      readonly registeredAt: string;
      readonly updatedAt: string | null;
    }
  | { readonly status: 'Removed'; readonly hostId: string };

export type RegisteredHost = Extract<HostState, { status: 'Registered' }>;

export const initialHostState = (): HostState => ({ status: 'Unregistered' });
