import type { HeldQuotaDeclarations, UsageMetricDeclarations } from '#domain/index.js';
import type { BookedResource, ReservationTypeQuota, ReservationTypeUsage } from '../reservation-type.js';
import type { FloatingIpReservation } from './floating-ip.reservation.js';

const FLOATING_IP_HELD_QUOTAS = {
  floatingIps: { field: 'floating_ips', words: 'floating IPs held at once', defaultVariable: 'LEASEHOLD_QUOTA_DEFAULT_FLOATING_IPS' },
} as const satisfies HeldQuotaDeclarations;

const FLOATING_IP_METRICS = {
  floating_ip_hours: { counts: 'floating IPs held' },
} as const satisfies UsageMetricDeclarations;

declare module '#domain/quota/quota.types.js' {
  interface HeldQuotaMap extends Record<keyof typeof FLOATING_IP_HELD_QUOTAS, true> {}
}

declare module '#domain/usage/rate-card.js' {
  interface UsageMetricMap extends Record<keyof typeof FLOATING_IP_METRICS, true> {}
}

/** virtual:floatingip holds registered addresses: one calendar each, the floating IPs quota, one address-hour per hour. */
export const floatingIpResources = (reservation: FloatingIpReservation): readonly BookedResource[] =>
  reservation.allocations.map(({ floatingIpId }) => ({ kind: 'floatingip', id: floatingIpId }));

export const floatingIpQuota: ReservationTypeQuota<FloatingIpReservation> = {
  held: FLOATING_IP_HELD_QUOTAS,
  monthly: {},
  amounts: (reservation) => ({ floatingIps: reservation.amount }),
};

export const floatingIpUsage: ReservationTypeUsage<FloatingIpReservation> = {
  metrics: FLOATING_IP_METRICS,
  rates: (reservation) => new Map(reservation.allocations.map(({ floatingIpId }) => [floatingIpId, { floating_ip_hours: 1 }])),
  // addresses have no capabilities: the card's own prices
  prices: 'card',
};
