import type { AvailabilityIntervalRow } from '#read-model/index.js';
import type { AllocationType } from './lease.types.js';

/** A booking row of the availability read model as the API shows it. */
export const allocationOf = (row: AvailabilityIntervalRow): AllocationType => ({
  resource_kind: row.resourceKind,
  resource_id: row.resourceId,
  reservation_id: row.reservationId,
  lease_id: row.leaseId,
  start_date: new Date(Number(row.startMs)).toISOString(),
  end_date: new Date(Number(row.endMs)).toISOString(),
  slots:
    row.slotCount === null
      ? null
      : { count: row.slotCount, vcpus: row.slotVcpus ?? 0, memory_mb: row.slotMemoryMb ?? 0, disk_gb: row.slotDiskGb ?? 0 },
});
