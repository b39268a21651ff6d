import type { HeldQuotaDeclarations, UsageMetricDeclarations } from '#domain/index.js';
import type { BookedResource, ReservationTypeQuota, ReservationTypeUsage } from '../reservation-type.js';
import type { NetworkReservation } from './network.reservation.js';

const NETWORK_HELD_QUOTAS = {
  networks: { field: 'networks', words: 'network segments held at once', defaultVariable: 'LEASEHOLD_QUOTA_DEFAULT_NETWORKS' },
} as const satisfies HeldQuotaDeclarations;

const NETWORK_METRICS = {
  network_hours: { counts: 'network segments held' },
} as const satisfies UsageMetricDeclarations;

declare module '#domain/quota/quota.types.js' {
  interface HeldQuotaMap extends Record<keyof typeof NETWORK_HELD_QUOTAS, true> {}
}

declare module '#domain/usage/rate-card.js' {
  interface UsageMetricMap extends Record<keyof typeof NETWORK_METRICS, true> {}
}

/** `network` holds one segment: its calendar, one segment of the networks quota, one segment-hour per hour. */
export const networkResources = (reservation: NetworkReservation): readonly BookedResource[] =>
  reservation.allocations.map(({ networkId }) => ({ kind: 'network', id: networkId }));

export const networkQuota: ReservationTypeQuota<NetworkReservation> = {
  held: NETWORK_HELD_QUOTAS,
  monthly: {},
  amounts: () => ({ networks: 1 }),
};

export const networkUsage: ReservationTypeUsage<NetworkReservation> = {
  metrics: NETWORK_METRICS,
  rates: (reservation) => new Map(reservation.allocations.map(({ networkId }) => [networkId, { network_hours: 1 }])),
  // segments have capabilities of their own, not a host's: the card's own prices
  prices: 'card',
};
