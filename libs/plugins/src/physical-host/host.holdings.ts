import type { HeldQuotaDeclarations, MonthlyQuotaDeclarations, UsageMetricDeclarations } from '#domain/index.js';
import type { BookedResource, ReservationTypeQuota, ReservationTypeUsage } from '../reservation-type.js';
import { HOST_SIZE_METRICS } from '../host-size.metrics.js';
import type { HostReservation } from './host.reservation.js';

const HOST_HELD_QUOTAS = {
  hosts: { field: 'hosts', words: 'hosts held at once', defaultVariable: 'LEASEHOLD_QUOTA_DEFAULT_HOSTS' },
} as const satisfies HeldQuotaDeclarations;

const HOST_MONTHLY_QUOTAS = {
  hostHoursPerMonth: {
    field: 'host_hours_per_month',
    words: 'host-hours per month',
    defaultVariable: 'LEASEHOLD_QUOTA_DEFAULT_HOST_HOURS_PER_MONTH',
    unit: 'hosts',
  },
} as const satisfies MonthlyQuotaDeclarations;

const HOST_METRICS = {
  host_hours: { counts: 'whole hosts held' },
  ...HOST_SIZE_METRICS,
} as const satisfies UsageMetricDeclarations;

declare module '#domain/quota/quota.types.js' {
  interface HeldQuotaMap extends Record<keyof typeof HOST_HELD_QUOTAS, true> {}
  interface MonthlyQuotaMap extends Record<keyof typeof HOST_MONTHLY_QUOTAS, true> {}
}

declare module '#domain/usage/rate-card.js' {
  interface UsageMetricMap extends Record<keyof typeof HOST_METRICS, true> {}
}

/** physical:host holds its hosts whole: on each host's calendar, in the hosts quota, and each host's size while it runs. */
export const hostResources = (reservation: HostReservation): readonly BookedResource[] =>
  reservation.hostIds.map((id) => ({ kind: 'host', id, slots: null }));

export const hostQuota: ReservationTypeQuota<HostReservation> = {
  held: HOST_HELD_QUOTAS,
  monthly: HOST_MONTHLY_QUOTAS,
  amounts: (reservation) => ({ hosts: reservation.hostIds.length }),
};

export const hostUsage: ReservationTypeUsage<HostReservation> = {
  metrics: HOST_METRICS,
  rates: (reservation, hostSize) =>
    new Map(
      reservation.hostIds.map((hostId) => {
        const { vcpus, memoryMb, diskGb } = hostSize(hostId);
        return [hostId, { host_hours: 1, vcpu_hours: vcpus, memory_mb_hours: memoryMb, disk_gb_hours: diskGb }];
      }),
    ),
  prices: 'host-capabilities',
};
