import { NO_AMOUNTS, NO_RATES } from '#domain/index.js';
import type { BookedResource, ReservationTypeQuota, ReservationTypeUsage } from '../reservation-type.js';
import type { InstanceReservation } from './instance.reservation.js';

/**
 * virtual:instance and flavor:instance hold slots of their instances' size on hosts: booked on each host's
 * calendar, counted as vCPUs and RAM by quotas, metered per host as instances and their sizes.
 */
export const instanceResources = ({ allocations, vcpus, memoryMb, diskGb }: InstanceReservation): readonly BookedResource[] =>
  allocations.map(({ hostId, count }) => ({ kind: 'host', id: hostId, slots: { count, vcpus, memoryMb, diskGb } }));

export const instanceQuota: ReservationTypeQuota<InstanceReservation> = {
  amounts: ({ amount, vcpus, memoryMb }) => ({ ...NO_AMOUNTS, vcpus: amount * vcpus, memoryMb: amount * memoryMb }),
};

export const instanceUsage: ReservationTypeUsage<InstanceReservation> = {
  rates: ({ allocations, vcpus, memoryMb, diskGb }) =>
    new Map(
      allocations.map(({ hostId, count }) => [
        hostId,
        { ...NO_RATES, instances: count, vcpus: count * vcpus, memoryMb: count * memoryMb, diskGb: count * diskGb },
      ]),
    ),
  prices: 'host-capabilities',
};
