import type { SlotDemand } from '#domain/host/host.types.js';
import { type Interval, MINUTE_MS } from '#domain/shared/interval.js';
import type { HostBookingSnapshot, HostColumns, HostSnapshot } from '../physical-host/host-snapshot.js';

/** Times in whole minutes keep the tables readable. */
export const at = (minute: number): number => minute * MINUTE_MS;

/** A whole-host booking [startMinute, endMinute). */
export const booking = (reservationId: string, startMinute: number, endMinute: number): HostBookingSnapshot => ({
  reservationId,
  leaseId: `lease-${reservationId}`,
  start: at(startMinute),
  end: at(endMinute),
  slots: null,
});

/** Instance slots [startMinute, endMinute). */
export const slotBooking = (reservationId: string, startMinute: number, endMinute: number, slots: SlotDemand): HostBookingSnapshot => ({
  ...booking(reservationId, startMinute, endMinute),
  slots,
});

export interface HostSpec {
  readonly columns?: Partial<HostColumns>;
  readonly capabilities?: Record<string, string>;
  readonly bookings?: readonly HostBookingSnapshot[];
  readonly maintenance?: readonly Interval[];
}

/** A reservable 8 vCPU / 4096 MB / 100 GB host; bookings sorted by start as the host decider keeps them. */
export const host = (id: string, spec: HostSpec = {}): HostSnapshot => {
  const bookings = [...(spec.bookings ?? [])].sort((a, b) => a.start - b.start);
  return {
    id,
    columns: {
      id,
      hypervisor_hostname: `compute-${id}`,
      service_name: `compute-${id}`,
      vcpus: 8,
      memory_mb: 4096,
      local_gb: 100,
      cpu_info: 'x86',
      hypervisor_type: 'QEMU',
      hypervisor_version: 6002000,
      availability_zone: 'nova',
      status: null,
      trust_id: null,
      reservable: true,
      ...spec.columns,
    },
    capabilities: spec.capabilities ?? {},
    bookings,
    longestBookingMs: Math.max(0, ...bookings.map((b) => b.end - b.start)),
    maintenance: [...(spec.maintenance ?? [])].sort((a, b) => a.start - b.start),
  };
};
