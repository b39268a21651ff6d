import type { Decider } from '../shared/decider.js';
import { conflict, invalid } from '../shared/errors.js';
import { MINUTE_MS, toMs } from '../shared/interval.js';
import { LAST_INSTANT_MS } from '../shared/limits.js';
import { truncateToMinute } from '../lease/lease.rules.js';
import type { AdmitLeaseRequest, LeaseRequestCommand, SubmitLeaseRequest, WithdrawLeaseRequest } from './lease-request.commands.js';
import type { LeaseRequestEvent, RequestOwner } from './lease-request.events.js';
import { type LeaseRequestState, type SubmittedRequest, initialLeaseRequestState, requireRequest } from './lease-request.state.js';

/** The dates of a request, judged as a lease's are: nothing in the past, and every start it allows has a representable end. */
const checkWindow = ({ durationMinutes, notBefore, startBy, now }: SubmitLeaseRequest['data']): void => {
  if (!Number.isInteger(durationMinutes) || durationMinutes < 1) {
    throw invalid('MALFORMED_PARAMETER', 'Malformed parameter duration (whole minutes, at least 1)');
  }
  if (toMs(notBefore) < truncateToMinute(now)) throw invalid('NOT_BEFORE_IN_PAST', 'not_before must not be earlier than the current date');
  if (toMs(startBy) < toMs(notBefore)) throw invalid('START_BY_BEFORE_NOT_BEFORE', 'start_by must not be earlier than not_before');
  if (toMs(startBy) + durationMinutes * MINUTE_MS > LAST_INSTANT_MS) {
    throw invalid('END_TOO_LATE', 'start_by plus duration must not pass 9999-12-31 23:59');
  }
};

const submit = ({ data }: SubmitLeaseRequest, state: LeaseRequestState): LeaseRequestEvent[] => {
  if (state.status !== 'Initial') throw conflict('LEASE_REQUEST_EXISTS', `Lease request ${data.requestId} already exists`);
  if (data.reservations.length === 0) throw invalid('MALFORMED_PARAMETER', 'Malformed parameter reservations (at least one reservation)');
  checkWindow(data);
  const { now, ...request } = data;
  return [{ type: 'LeaseRequest.Submitted', data: { ...request, submittedAt: now } }];
};

const ownerOf = ({ requestId, projectId, userId }: SubmittedRequest): RequestOwner => ({ requestId, projectId, userId });

/** The request as it waits; one admitted or withdrawn is over (409: nothing left to admit or withdraw). */
const queued = (state: LeaseRequestState, requestId: string): SubmittedRequest => {
  const existing = requireRequest(state, requestId);
  if (existing.status !== 'Queued') {
    throw conflict('LEASE_REQUEST_NOT_QUEUED', `Lease request ${requestId} is ${existing.status.toLowerCase()}, no longer queued`);
  }
  return existing.request;
};

const admit = ({ data }: AdmitLeaseRequest, state: LeaseRequestState): LeaseRequestEvent[] => [
  {
    type: 'LeaseRequest.Admitted',
    data: { ...ownerOf(queued(state, data.requestId)), leaseId: data.leaseId, admittedAt: data.now },
  },
];

const withdraw = ({ data }: WithdrawLeaseRequest, state: LeaseRequestState): LeaseRequestEvent[] => [
  { type: 'LeaseRequest.Withdrawn', data: { ...ownerOf(queued(state, data.requestId)), withdrawnAt: data.now } },
];

const evolve = (state: LeaseRequestState, event: LeaseRequestEvent): LeaseRequestState => {
  switch (event.type) {
    case 'LeaseRequest.Submitted':
      return { status: 'Queued', request: event.data };
    case 'LeaseRequest.Admitted':
      return state.status === 'Initial'
        ? state
        : { status: 'Admitted', request: state.request, leaseId: event.data.leaseId, admittedAt: event.data.admittedAt };
    case 'LeaseRequest.Withdrawn':
      return state.status === 'Initial' ? state : { status: 'Withdrawn', request: state.request, withdrawnAt: event.data.withdrawnAt };
    default: {
      const _never: never = event;
      return _never;
    }
  }
};

/** A lease request (docs/queue.md): submitted, then admitted as a lease or withdrawn. */
export const leaseRequestDecider: Decider<LeaseRequestState, LeaseRequestCommand, LeaseRequestEvent> = {
  initialState: initialLeaseRequestState,
  decide: (command, state) => {
    switch (command.type) {
      case 'SubmitLeaseRequest':
        return submit(command, state);
      case 'AdmitLeaseRequest':
        return admit(command, state);
      case 'WithdrawLeaseRequest':
        return withdraw(command, state);
      default: {
        const _never: never = command;
        return _never;
      }
    }
  },
  evolve,
};
