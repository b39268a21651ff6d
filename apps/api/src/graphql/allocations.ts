import { type AvailabilityIntervalRow, toBlazarDate } from '#read-model/index.js';
import type { AllocationType } from './lease.types.js';

const blazarDate = (ms: number): string => toBlazarDate(new Date(ms).toISOString());

/** A booking row of the availability read model as REST's allocation views show it, dates in REST's format. */
export const allocationOf = (row: AvailabilityIntervalRow): AllocationType => ({
  resource_kind: row.resourceKind,
  resource_id: row.resourceId,
  reservation_id: row.reservationId,
  lease_id: row.leaseId,
  start_date: blazarDate(row.startMs),
  end_date: blazarDate(row.endMs),
  slots:
    row.slotCount === null
      ? null
      : { count: row.slotCount, vcpus: row.slotVcpus ?? 0, memory_mb: row.slotMemoryMb ?? 0, disk_gb: row.slotDiskGb ?? 0 },
});
