import type { RequestedReservation } from '#domain/index.js';
import type { LeaseRequestDetail, LeaseRequestRecord } from '#application/lease-requests/lease-request.use-cases.js';
import { isResourceType, reservationType } from '#plugins/reservation-types.js';
import { toBlazarDate, toBlazarTimestamp } from '#read-model/index.js';

/** A request as the routes answer it: Blazar's names and date forms, as a lease's. */
export interface LeaseRequestView {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  readonly user_id: string;
  readonly status: 'queued' | 'admitted' | 'withdrawn';
  readonly reservations: readonly Readonly<Record<string, unknown>>[];
  /** Minutes. */
  readonly duration: number;
  readonly not_before: string;
  readonly start_by: string;
  /** Rank in the queue, 1 for the head; null once admitted or withdrawn. */
  readonly position: number | null;
  readonly lease_id: string | null;
  readonly created_at: string;
  readonly updated_at: string | null;
}

export interface LeaseRequestDetailView extends LeaseRequestView {
  readonly predicted_start: string | null;
}

/** A reservation as it was asked for: its type and the fields it gave, by Blazar's names. */
const reservationView = ({ resourceType, values }: RequestedReservation): Readonly<Record<string, unknown>> => {
  const fields = isResourceType(resourceType) ? reservationType(resourceType).wire.fields : [];
  const given = fields.flatMap(({ name, field }): [string, unknown][] => {
    const value = values[field];
    return value === null || value === undefined ? [] : [[name, value]];
  });
  return { resource_type: resourceType, ...Object.fromEntries(given) };
};

export const leaseRequestView = ({ state, position }: LeaseRequestRecord): LeaseRequestView => {
  const { request } = state;
  const ended = state.status === 'Admitted' ? state.admittedAt : state.status === 'Withdrawn' ? state.withdrawnAt : null;
  return {
    id: request.requestId,
    name: request.name,
    project_id: request.projectId,
    user_id: request.userId,
    status: state.status === 'Queued' ? 'queued' : state.status === 'Admitted' ? 'admitted' : 'withdrawn',
    reservations: request.reservations.map(reservationView),
    duration: request.durationMinutes,
    not_before: toBlazarDate(request.notBefore),
    start_by: toBlazarDate(request.startBy),
    position,
    lease_id: state.status === 'Admitted' ? state.leaseId : null,
    created_at: toBlazarTimestamp(request.submittedAt),
    updated_at: ended === null ? null : toBlazarTimestamp(ended),
  };
};

export const leaseRequestDetailView = (detail: LeaseRequestDetail): LeaseRequestDetailView => ({
  ...leaseRequestView(detail),
  predicted_start: detail.predictedStart === null ? null : toBlazarDate(detail.predictedStart),
});
