import { floatingIpBlazarReader } from '../floating-ip/floating-ip.blazar.js';
import { flavorInstanceBlazarReader, virtualInstanceBlazarReader } from '../instance/instance.blazar.js';
import { hostBlazarReader } from '../physical-host/host.blazar.js';
import type { BlazarReservationReader } from './blazar-reservation.reader.js';

/** The types upstream Blazar's database holds, each read by its own module (network segments are not upstream's). */
const READERS: readonly BlazarReservationReader[] = [
  hostBlazarReader,
  virtualInstanceBlazarReader,
  flavorInstanceBlazarReader,
  floatingIpBlazarReader,
];

/** The reader of a Blazar `resource_type`, or null for one the import does not read. */
export const blazarReader = (resourceType: string): BlazarReservationReader | null =>
  READERS.find((reader) => reader.resourceType === resourceType) ?? null;
