import { notFound } from '../shared/errors.js';
import type { LeaseRequestSubmitted } from './lease-request.events.js';

/** The request as submitted. */
export type SubmittedRequest = LeaseRequestSubmitted['data'];

/**
 * A request waits (Queued) until it is admitted or withdrawn; both end it. An expiry at `startBy` will be one more end
 * (docs/queue.md).
 */
export type LeaseRequestState =
  | { readonly status: 'Initial' }
  | { readonly status: 'Queued'; readonly request: SubmittedRequest }
  | { readonly status: 'Admitted'; readonly request: SubmittedRequest; readonly leaseId: string; readonly admittedAt: string }
  | { readonly status: 'Withdrawn'; readonly request: SubmittedRequest; readonly withdrawnAt: string };

export type ExistingLeaseRequest = Exclude<LeaseRequestState, { readonly status: 'Initial' }>;

export const initialLeaseRequestState = (): LeaseRequestState => ({ status: 'Initial' });

export const leaseRequestNotFound = (requestId: string) =>
  notFound('LEASE_REQUEST_NOT_FOUND', `Lease request ${requestId} could not be found`);

export const requireRequest = (state: LeaseRequestState, requestId: string): ExistingLeaseRequest => {
  if (state.status === 'Initial') throw leaseRequestNotFound(requestId);
  return state;
};
