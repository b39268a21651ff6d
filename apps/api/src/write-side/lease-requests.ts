import type { BeforeEndAction, HostReservation } from '../../../../libs/domain/src/index.js';
import type { HostQuery } from '../../../../libs/plugins/src/query/blazar-query.js';

/** A validated physical:host reservation request (client strings already converted). */
export interface HostReservationRequest extends Omit<HostReservation, 'id' | 'resourceId' | 'hostIds'> {
  /** Both property queries, parsed and combined (AND), as upstream concatenates them. */
  readonly query: HostQuery;
  /** Capability names the reservation depends on. */
  readonly propertyNames: readonly string[];
}

export type ReservationRequest = HostReservationRequest;

export interface CreateLeaseRequest {
  readonly name: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly beforeEndDate: string | null;
  readonly reservations: readonly ReservationRequest[];
}

/** Changed fields of one existing reservation, keyed by its id; absent fields keep their value. */
export interface ReservationPatch {
  readonly id: string;
  /** Sent by some clients; must match the reservation's type (it cannot change). */
  readonly resourceType: string | null;
  readonly min: number | null;
  readonly max: number | null;
  readonly hypervisorProperties: string | null;
  readonly resourceProperties: string | null;
  readonly beforeEnd: BeforeEndAction | null;
}

export interface UpdateLeaseRequest {
  readonly name: string | null;
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly beforeEndDate: string | null;
  readonly reservations: readonly ReservationPatch[];
}
