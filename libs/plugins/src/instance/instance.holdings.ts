import type { HeldQuotaDeclarations, MonthlyQuotaDeclarations, UsageMetricDeclarations } from '#domain/index.js';
import { HOST_SIZE_METRICS } from '../host-size.metrics.js';
import type { BookedResource, ReservationTypeQuota, ReservationTypeUsage } from '../reservation-type.js';
import type { InstanceReservation } from './instance.reservation.js';

const INSTANCE_HELD_QUOTAS = {
  vcpus: { field: 'vcpus', words: 'instance vCPUs held at once', defaultVariable: 'LEASEHOLD_QUOTA_DEFAULT_VCPUS' },
  memoryMb: { field: 'memory_mb', words: 'instance RAM (MB) held at once', defaultVariable: 'LEASEHOLD_QUOTA_DEFAULT_MEMORY_MB' },
} as const satisfies HeldQuotaDeclarations;

const INSTANCE_MONTHLY_QUOTAS = {
  vcpuHoursPerMonth: {
    field: 'vcpu_hours_per_month',
    words: 'vCPU-hours per month',
    defaultVariable: 'LEASEHOLD_QUOTA_DEFAULT_VCPU_HOURS_PER_MONTH',
    unit: 'vcpus',
  },
} as const satisfies MonthlyQuotaDeclarations;

const INSTANCE_METRICS = {
  instance_hours: { counts: 'instance slots held' },
  ...HOST_SIZE_METRICS,
} as const satisfies UsageMetricDeclarations;

declare module '#domain/quota/quota.types.js' {
  interface HeldQuotaMap extends Record<keyof typeof INSTANCE_HELD_QUOTAS, true> {}
  interface MonthlyQuotaMap extends Record<keyof typeof INSTANCE_MONTHLY_QUOTAS, true> {}
}

declare module '#domain/usage/rate-card.js' {
  interface UsageMetricMap extends Record<keyof typeof INSTANCE_METRICS, true> {}
}

/**
 * virtual:instance and flavor:instance hold slots of their instances' size on hosts: booked on each host's
 * calendar, counted as vCPUs and RAM by quotas, metered per host as instances and their sizes.
 */
export const instanceResources = ({ allocations, vcpus, memoryMb, diskGb }: InstanceReservation): readonly BookedResource[] =>
  allocations.map(({ hostId, count }) => ({ kind: 'host', id: hostId, slots: { count, vcpus, memoryMb, diskGb } }));

export const instanceQuota: ReservationTypeQuota<InstanceReservation> = {
  held: INSTANCE_HELD_QUOTAS,
  monthly: INSTANCE_MONTHLY_QUOTAS,
  amounts: ({ amount, vcpus, memoryMb }) => ({ vcpus: amount * vcpus, memoryMb: amount * memoryMb }),
};

export const instanceUsage: ReservationTypeUsage<InstanceReservation> = {
  metrics: INSTANCE_METRICS,
  rates: ({ allocations, vcpus, memoryMb, diskGb }) =>
    new Map(
      allocations.map(({ hostId, count }) => [
        hostId,
        { instance_hours: count, vcpu_hours: count * vcpus, memory_mb_hours: count * memoryMb, disk_gb_hours: count * diskGb },
      ]),
    ),
  prices: 'host-capabilities',
};
