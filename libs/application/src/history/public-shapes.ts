import type { Capabilities, EffectRecord, HostInfo, Reservation, SlotDemand } from '#domain/index.js';
import type { PublicObject } from '#plugins/reservation-type.js';
import { reservationType } from '#plugins/reservation-types.js';

/** A reservation in the public events (docs/events.md): its id and type, then what its type's module shows of it. */
export const publicReservation = (reservation: Reservation): PublicObject => ({
  id: reservation.id,
  resource_type: reservation.resourceType,
  ...reservationType(reservation.resourceType).events.publicShape(reservation),
});

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
