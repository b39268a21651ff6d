import type { MaintenanceWindow } from '#domain/index.js';
import type { NetworkBooking, NetworkCapabilities, NetworkSegmentInfo } from './network-segment.types.js';

export type NetworkSegmentState =
  | { readonly status: 'Unregistered' }
  | (NetworkSegmentInfo & {
      readonly status: 'Registered';
      readonly capabilities: NetworkCapabilities;
      /** Sorted by start; never overlapping once each is widened by the cleaning time in force when it was booked. */
      readonly bookings: readonly NetworkBooking[];
      /** Sorted by start, never overlapping each other; ended ones stay (they are history, and few). */
      readonly maintenance: readonly MaintenanceWindow[];
      readonly registeredAt: string;
    })
  | { readonly status: 'Removed'; readonly networkId: string };

export type RegisteredNetworkSegment = Extract<NetworkSegmentState, { status: 'Registered' }>;

export const initialNetworkSegmentState = (): NetworkSegmentState => ({ status: 'Unregistered' });
