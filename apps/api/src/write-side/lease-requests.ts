import type { Affinity, BeforeEndAction, HostReservation } from '../../../../libs/domain/src/index.js';
import type { HostQuery } from '../../../../libs/plugins/src/query/blazar-query.js';

/** A validated physical:host reservation request (client strings already converted). */
export interface HostReservationRequest extends Omit<HostReservation, 'id' | 'resourceId' | 'hostIds'> {
  /** Both property queries, parsed and combined (AND), as upstream concatenates them. */
  readonly query: HostQuery;
  /** Capability names the reservation depends on. */
  readonly propertyNames: readonly string[];
}

/** A validated virtual:instance reservation request. */
export interface InstanceReservationRequest {
  readonly resourceType: 'virtual:instance';
  readonly amount: number;
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly diskGb: number;
  readonly affinity: Affinity;
  readonly resourceProperties: string;
  readonly query: HostQuery;
  readonly propertyNames: readonly string[];
}

/** A validated flavor:instance reservation request; the flavor is looked up at admission. */
export interface FlavorInstanceReservationRequest {
  readonly resourceType: 'flavor:instance';
  readonly flavorId: string;
  readonly amount: number;
  readonly affinity: Affinity;
}

/** A validated virtual:floatingip reservation request (addresses canonical). */
export interface FloatingIpReservationRequest {
  readonly resourceType: 'virtual:floatingip';
  readonly networkId: string;
  readonly amount: number;
  readonly requiredFloatingIps: readonly string[];
}

export type ReservationRequest = HostReservationRequest | InstanceReservationRequest | FlavorInstanceReservationRequest | FloatingIpReservationRequest;

export interface CreateLeaseRequest {
  readonly name: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly beforeEndDate: string | null;
  readonly reservations: readonly ReservationRequest[];
}

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

export interface UpdateLeaseRequest {
  readonly name: string | null;
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly beforeEndDate: string | null;
  readonly reservations: readonly ReservationPatch[];
}
