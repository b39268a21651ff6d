import { type ResourceType, invalidField } from '#domain/index.js';
import type { Affinity } from '../instance/instance.reservation.js';
import type { BeforeEndAction } from '../physical-host/host.reservation.js';

/** A field the request sets (`value` may itself be null, e.g. affinity) or leaves alone (null). */
export type Change<T> = { readonly value: T } | null;

/**
 * Changed fields of one existing reservation, keyed by its id; null fields keep their value. Which
 * fields a reservation type accepts is decided at admission (others are a 400).
 */
export interface ReservationPatch {
  readonly id: string;
  /** Sent by some clients; must match the reservation's type (it cannot change). */
  readonly resourceType: string | null;
  readonly min: number | null;
  readonly max: number | null;
  readonly hypervisorProperties: string | null;
  readonly resourceProperties: string | null;
  readonly beforeEnd: BeforeEndAction | null;
  readonly amount: number | null;
  readonly vcpus: number | null;
  readonly memoryMb: number | null;
  readonly diskGb: number | null;
  readonly affinity: Change<Affinity>;
  readonly flavorId: string | null;
  readonly networkId: string | null;
  readonly requiredFloatingIps: readonly string[] | null;
}

export type PatchField = Exclude<keyof ReservationPatch, 'id' | 'resourceType'>;

/** Every field a patch may set, in the order a patch's fields are judged. */
export const PATCH_FIELDS: readonly PatchField[] = [
  'min',
  'max',
  'hypervisorProperties',
  'resourceProperties',
  'beforeEnd',
  'amount',
  'vcpus',
  'memoryMb',
  'diskGb',
  'affinity',
  'flavorId',
  'networkId',
  'requiredFloatingIps',
];

/** A patch may only carry the fields its reservation's type accepts (400 for the first other one). */
export const checkPatchFields = (resourceType: ResourceType, accepted: readonly PatchField[], patch: ReservationPatch): void => {
  for (const field of PATCH_FIELDS) {
    if (patch[field] !== null && !accepted.includes(field)) {
      throw invalidField('INVALID_PARAMETER', `Parameter {field:${field}} cannot be set on a ${resourceType} reservation`);
    }
  }
};

/** The affinity a patch sets (possibly null: anywhere), or the reservation's own. */
export const patchedAffinity = (patch: ReservationPatch | undefined, current: Affinity): Affinity =>
  patch === undefined || patch.affinity === null ? current : patch.affinity.value;
