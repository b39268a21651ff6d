import type { InstanceReservation } from './instance.reservation.js';

const numberField = (source: Record<string, unknown>, ...keys: string[]): number | null => {
  const value = keys.map((key) => source[key]).find((candidate) => typeof candidate === 'number');
  return typeof value === 'number' ? value : null;
};

/**
 * The root and ephemeral disk of an instance reservation's private flavor: a flavor:instance copies
 * its source flavor's from the stored JSON dump (upstream's resource_properties; the reservation's
 * disk_gb is their sum), a virtual:instance has only a root disk.
 */
export const privateFlavorDisks = (reservation: InstanceReservation): { readonly disk: number; readonly ephemeral: number } => {
  const fallback = { disk: reservation.diskGb, ephemeral: 0 };
  if (reservation.resourceType !== 'flavor:instance') return fallback;
  try {
    const dump: unknown = JSON.parse(reservation.resourceProperties);
    if (typeof dump !== 'object' || dump === null) return fallback;
    const source = dump as Record<string, unknown>;
    return {
      disk: numberField(source, 'disk') ?? fallback.disk,
      ephemeral: numberField(source, 'OS-FLV-EXT-DATA:ephemeral', 'ephemeral') ?? 0,
    };
  } catch {
    return fallback;
  }
};
