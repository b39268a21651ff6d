import type { ReservationPatch } from '../admission/reservation-patch.js';

/** A patch of reservation `id` setting only `fields`. */
export const patchOf = (id: string, fields: Partial<Omit<ReservationPatch, 'id'>> = {}): ReservationPatch => ({
  id,
  resourceType: null,
  min: null,
  max: null,
  hypervisorProperties: null,
  resourceProperties: null,
  beforeEnd: null,
  amount: null,
  vcpus: null,
  memoryMb: null,
  diskGb: null,
  affinity: null,
  flavorId: null,
  networkId: null,
  requiredFloatingIps: null,
  ...fields,
});
