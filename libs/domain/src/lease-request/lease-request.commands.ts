import type { Command } from '../shared/decider.js';
import type { RequestOwner, RequestedReservation } from './lease-request.events.js';

export type SubmitLeaseRequest = Command<
  'SubmitLeaseRequest',
  RequestOwner & {
    readonly name: string;
    readonly reservations: readonly RequestedReservation[];
    readonly durationMinutes: number;
    readonly notBefore: string;
    readonly startBy: string;
    readonly now: string;
  }
>;
export type AdmitLeaseRequest = Command<
  'AdmitLeaseRequest',
  { readonly requestId: string; readonly leaseId: string; readonly now: string }
>;
export type WithdrawLeaseRequest = Command<'WithdrawLeaseRequest', { readonly requestId: string; readonly now: string }>;

export type LeaseRequestCommand = SubmitLeaseRequest | AdmitLeaseRequest | WithdrawLeaseRequest;
