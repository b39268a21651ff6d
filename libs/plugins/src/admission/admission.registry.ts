import type { Reservation, ResourceType } from '#domain/index.js';
import type { ReservationOf } from '../reservation-type.js';
import { type ChangeOfType, RESERVATION_TYPES, type ReservationChange, type ReservationRequest } from '../reservation-types.js';
import type { AdmissionContext, Healing, ReservationAdmission, ReservationSupply } from './admission.port.js';
import { type ReservationPatch, changeOf } from './reservation-patch.js';

type RequestOf<T extends ResourceType> = Extract<ReservationRequest, { readonly resourceType: T }>;

/** Each resource type's admission, keyed by the type (as EffectsRegistry is for effects). */
export type AdmissionRegistry = {
  readonly [T in ResourceType]: ReservationAdmission<ReservationOf<T>, RequestOf<T>, ChangeOfType<T>>;
};

/** The registered types' admissions (reservation-types.ts), keyed by type. */
export const ADMISSION_REGISTRY = Object.fromEntries(
  RESERVATION_TYPES.map((module) => [module.resourceType, module.admission]),
) as unknown as AdmissionRegistry;

/**
 * The admission of `type`, for a reservation or request of that type. The registry's mapped type
 * guarantees the pairing; TypeScript cannot follow it through a union, hence the one widening here.
 */
const admissionOf = (
  registry: AdmissionRegistry,
  type: ResourceType,
): ReservationAdmission<Reservation, ReservationRequest, ReservationChange> => registry[type];

/** Dispatches each reservation to its type's admission. */
export class Admissions {
  constructor(private readonly registry: AdmissionRegistry = ADMISSION_REGISTRY) {}

  admit(context: AdmissionContext, request: ReservationRequest): Reservation {
    return admissionOf(this.registry, request.resourceType).admit(context, request);
  }

  supply(context: AdmissionContext, request: ReservationRequest): ReservationSupply {
    return admissionOf(this.registry, request.resourceType).supply(context, request);
  }

  /** A patch may only carry the fields its reservation's type takes (400), then the type readmits with its change. */
  readmit(context: AdmissionContext, reservation: Reservation, patch: ReservationPatch | undefined, started: boolean): Reservation {
    const change = patch === undefined ? undefined : changeOf(reservation.resourceType, patch);
    return admissionOf(this.registry, reservation.resourceType).readmit(context, reservation, change, started);
  }

  heal(context: AdmissionContext, reservation: Reservation, down: ReadonlySet<string>): Healing | null {
    return admissionOf(this.registry, reservation.resourceType).heal(context, reservation, down);
  }

  release(context: AdmissionContext, reservation: Reservation): void {
    admissionOf(this.registry, reservation.resourceType).release(context, reservation);
  }
}
