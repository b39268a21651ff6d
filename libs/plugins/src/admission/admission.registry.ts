import type { Reservation, ResourceType } from '#domain/index.js';
import type { FloatingIpReservationRequest } from '../floating-ip/floating-ip-reservation.request.js';
import { floatingIpAdmission } from '../floating-ip/floating-ip.admission.js';
import type { FlavorInstanceReservationRequest, InstanceReservationRequest } from '../instance/instance-reservation.request.js';
import { flavorInstanceAdmission, virtualInstanceAdmission } from '../instance/instance.admission.js';
import type { HostReservationRequest } from '../physical-host/host-reservation.request.js';
import { hostAdmission } from '../physical-host/host.admission.js';
import type { AdmissionContext, Healing, ReservationAdmission, ReservationSupply } from './admission.port.js';
import { type ReservationPatch, checkPatchFields } from './reservation-patch.js';

/** A validated request for a new reservation, of any type. */
export type ReservationRequest =
  HostReservationRequest | InstanceReservationRequest | FlavorInstanceReservationRequest | FloatingIpReservationRequest;

type ReservationOf<T extends ResourceType> = Extract<Reservation, { readonly resourceType: T }>;
type RequestOf<T extends ResourceType> = Extract<ReservationRequest, { readonly resourceType: T }>;

/** Each resource type's admission, keyed by the type (as EffectsRegistry is for effects). */
export type AdmissionRegistry = { readonly [T in ResourceType]: ReservationAdmission<ReservationOf<T>, RequestOf<T>> };

export const ADMISSION_REGISTRY: AdmissionRegistry = {
  'physical:host': hostAdmission,
  'virtual:instance': virtualInstanceAdmission,
  'flavor:instance': flavorInstanceAdmission,
  'virtual:floatingip': floatingIpAdmission,
};

/**
 * The admission of `type`, for a reservation or request of that type. The registry's mapped type
 * guarantees the pairing; TypeScript cannot follow it through a union, hence the one widening here.
 */
const admissionOf = (registry: AdmissionRegistry, type: ResourceType): ReservationAdmission<Reservation, ReservationRequest> =>
  registry[type];

/** Dispatches each reservation to its type's admission. */
export class Admissions {
  constructor(private readonly registry: AdmissionRegistry = ADMISSION_REGISTRY) {}

  admit(context: AdmissionContext, request: ReservationRequest): Reservation {
    return admissionOf(this.registry, request.resourceType).admit(context, request);
  }

  supply(context: AdmissionContext, request: ReservationRequest): ReservationSupply {
    return admissionOf(this.registry, request.resourceType).supply(context, request);
  }

  /** A patch may only carry the fields its reservation's type accepts (400), then the type readmits. */
  readmit(context: AdmissionContext, reservation: Reservation, patch: ReservationPatch | undefined, started: boolean): Reservation {
    const admission = admissionOf(this.registry, reservation.resourceType);
    if (patch !== undefined) checkPatchFields(reservation.resourceType, admission.patchFields, patch);
    return admission.readmit(context, reservation, patch, started);
  }

  heal(context: AdmissionContext, reservation: Reservation, down: ReadonlySet<string>): Healing | null {
    return admissionOf(this.registry, reservation.resourceType).heal(context, reservation, down);
  }

  release(context: AdmissionContext, reservation: Reservation): void {
    admissionOf(this.registry, reservation.resourceType).release(context, reservation);
  }
}
