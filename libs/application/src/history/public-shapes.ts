import type { Capabilities, EffectRecord, HostInfo, Reservation, SlotDemand } from '#domain/index.js';

/** The public form of values nested in events: snake_case, explicit copies, as docs/events.md describes them. */
export type PublicObject = Readonly<Record<string, unknown>>;

export const publicReservation = (reservation: Reservation): PublicObject => {
  const common = { id: reservation.id, resource_type: reservation.resourceType };
  switch (reservation.resourceType) {
    case 'physical:host':
      return { ...common, min: reservation.min, max: reservation.max, host_ids: [...reservation.hostIds] };
    case 'virtual:instance':
    case 'flavor:instance':
      return {
        ...common,
        amount: reservation.amount,
        vcpus: reservation.vcpus,
        memory_mb: reservation.memoryMb,
        disk_gb: reservation.diskGb,
        allocations: reservation.allocations.map((a) => ({ host_id: a.hostId, count: a.count })),
      };
    case 'virtual:floatingip':
      return {
        ...common,
        network_id: reservation.networkId,
        amount: reservation.amount,
        allocations: reservation.allocations.map((a) => ({ floating_ip_id: a.floatingIpId, address: a.address })),
      };
    default: {
      const _never: never = reservation;
      return _never;
    }
  }
};

/** Effects are the adapters' own records: `operation` names the step, the other keys are its details. */
export const publicEffects = (effects: readonly EffectRecord[]): readonly PublicObject[] => effects.map((effect) => ({ ...effect }));

export const publicHostInfo = (info: HostInfo): PublicObject => ({
  hypervisor_hostname: info.hypervisorHostname,
  service_name: info.serviceName,
  vcpus: info.vcpus,
  memory_mb: info.memoryMb,
  local_gb: info.localGb,
  hypervisor_type: info.hypervisorType,
  hypervisor_version: info.hypervisorVersion,
  availability_zone: info.availabilityZone,
});

export const publicCapabilities = (capabilities: Capabilities): PublicObject => ({ ...capabilities });

export const publicSlots = (slots: SlotDemand): PublicObject => ({
  count: slots.count,
  vcpus: slots.vcpus,
  memory_mb: slots.memoryMb,
  disk_gb: slots.diskGb,
});
