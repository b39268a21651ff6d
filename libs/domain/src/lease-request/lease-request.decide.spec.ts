import { describe, it } from 'vitest';
import { DeciderSpecification } from '../shared/specification.js';
import type { SubmitLeaseRequest } from './lease-request.commands.js';
import { leaseRequestDecider } from './lease-request.decide.js';
import type { LeaseRequestAdmitted, LeaseRequestEvent, LeaseRequestSubmitted, LeaseRequestWithdrawn } from './lease-request.events.js';

const given = DeciderSpecification.for(leaseRequestDecider);

const NOW = '2030-01-01T09:00:30.000Z';
const OWNER = { requestId: 'req-1', projectId: 'project-a', userId: 'user-a' };
const HOSTS = { resourceType: 'physical:host', values: { min: 1, max: 1 } };
const SLOTS = { resourceType: 'virtual:instance', values: { amount: 2, vcpus: 1 } };

type SubmitData = SubmitLeaseRequest['data'];

const submit = (overrides: Partial<SubmitData> = {}): SubmitLeaseRequest => ({
  type: 'SubmitLeaseRequest',
  data: {
    ...OWNER,
    name: 'queued',
    reservations: [HOSTS, SLOTS],
    durationMinutes: 120,
    notBefore: '2030-01-01T09:00:00.000Z',
    startBy: '2030-01-02T09:00:00.000Z',
    now: NOW,
    ...overrides,
  },
});

const submitted: LeaseRequestSubmitted = {
  type: 'LeaseRequest.Submitted',
  data: {
    ...OWNER,
    name: 'queued',
    reservations: [HOSTS, SLOTS],
    durationMinutes: 120,
    notBefore: '2030-01-01T09:00:00.000Z',
    startBy: '2030-01-02T09:00:00.000Z',
    submittedAt: NOW,
  },
};
const admitted: LeaseRequestAdmitted = { type: 'LeaseRequest.Admitted', data: { ...OWNER, leaseId: 'lease-1', admittedAt: NOW } };
const withdrawn: LeaseRequestWithdrawn = { type: 'LeaseRequest.Withdrawn', data: { ...OWNER, withdrawnAt: NOW } };

describe('lease request decider: submit', () => {
  it('records the request with every reservation, mixed types kept as asked', () => {
    given([]).when(submit()).then([submitted]);
  });

  it('accepts a window of one instant (start_by = not_before) and a not_before in the current minute', () => {
    const at = '2030-01-01T09:00:00.000Z';
    given([])
      .when(submit({ notBefore: at, startBy: at }))
      .then([{ ...submitted, data: { ...submitted.data, notBefore: at, startBy: at } }]);
  });

  it.each<[string, Partial<SubmitData>, string]>([
    ['no reservation', { reservations: [] }, 'MALFORMED_PARAMETER'],
    ['a duration of 0 minutes', { durationMinutes: 0 }, 'MALFORMED_PARAMETER'],
    ['a duration that is not whole minutes', { durationMinutes: 1.5 }, 'MALFORMED_PARAMETER'],
    ['not_before in a past minute', { notBefore: '2030-01-01T08:59:00.000Z' }, 'NOT_BEFORE_IN_PAST'],
    ['start_by before not_before', { startBy: '2030-01-01T08:59:59.000Z' }, 'START_BY_BEFORE_NOT_BEFORE'],
    ['an end past the last instant', { startBy: '9999-12-31T23:00:00.000Z', durationMinutes: 61 }, 'END_TOO_LATE'],
  ])('refuses %s', (_, overrides, code) => {
    given([]).when(submit(overrides)).thenThrows(code);
  });

  it('refuses a second submission on the same id (409)', () => {
    given([submitted]).when(submit()).thenThrows('LEASE_REQUEST_EXISTS');
  });
});

describe('lease request decider: admit and withdraw', () => {
  const admit = { type: 'AdmitLeaseRequest', data: { requestId: 'req-1', leaseId: 'lease-1', now: NOW } } as const;
  const withdraw = { type: 'WithdrawLeaseRequest', data: { requestId: 'req-1', now: NOW } } as const;

  it('admits a queued request, naming its lease and owner', () => {
    given([submitted]).when(admit).then([admitted]);
  });

  it('withdraws a queued request', () => {
    given([submitted]).when(withdraw).then([withdrawn]);
  });

  it.each<[string, readonly LeaseRequestEvent[]]>([
    ['admitted', [submitted, admitted]],
    ['withdrawn', [submitted, withdrawn]],
  ])('refuses to admit or withdraw a request already %s (409)', (status, history) => {
    given(history).when(admit).thenThrows('LEASE_REQUEST_NOT_QUEUED', status);
    given(history).when(withdraw).thenThrows('LEASE_REQUEST_NOT_QUEUED', status);
  });

  it('answers 404 for a request never submitted', () => {
    given([]).when(admit).thenThrows('LEASE_REQUEST_NOT_FOUND');
    given([]).when(withdraw).thenThrows('LEASE_REQUEST_NOT_FOUND');
  });
});
