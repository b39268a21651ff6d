import { describe, expect, it } from 'vitest';
import type { LeaseTrusts } from '#plugins/ports/lease-trusts.port.js';
import { at, hostBooked, hostRegistered } from '../testing/calendars.fixture.js';
import { trustLedger } from '../testing/trust-ledger.fixture.js';
import { applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import type { CommandMetadata } from '../command.js';
import { LeaseUseCases } from '../leases/lease.use-cases.js';
import { type LeaseRequestInput, LeaseRequestUseCases } from './lease-request.use-cases.js';

const NOW = at(9);
const member = commandMetadata(testCaller('member', 'project-1', 'member-user'), NOW);
const reader = commandMetadata(testCaller('reader', 'project-1', 'reader-user'), NOW);
const stranger = commandMetadata(testCaller('member', 'project-2', 'other-user'), NOW);

const specWith = (trusts?: LeaseTrusts) =>
  applicationSpecification((context) => new LeaseRequestUseCases(context, new LeaseUseCases(context, trusts)));

const oneHost = {
  resourceType: 'physical:host',
  values: { min: 1, max: 1, hypervisorProperties: '', resourceProperties: '', beforeEnd: null },
};
const input = (fields: Partial<LeaseRequestInput> = {}): LeaseRequestInput => ({
  name: 'queued',
  reservations: [oneHost],
  durationMinutes: 120,
  notBefore: at(10),
  startBy: at(20),
  ...fields,
});
const submit =
  (metadata: CommandMetadata, fields: Partial<LeaseRequestInput> = {}) =>
  (requests: LeaseRequestUseCases) =>
    requests.submit({ type: 'SubmitLeaseRequest', data: input(fields), metadata });

describe('submit a lease request', () => {
  it('one that fits at its not_before becomes that lease in the same append, the request admitted after the lease', async () => {
    const { calls, trusts } = trustLedger();
    const written = await specWith(trusts)
      .given([hostRegistered('1')])
      .when(submit(member))
      .then([
        expect.objectContaining({
          type: 'Lease.Created',
          data: expect.objectContaining({ startDate: at(10), endDate: at(12), trustId: 'trust-1', projectId: 'project-1' }),
        }),
        expect.objectContaining({ type: 'Host.Booked' }),
        expect.objectContaining({ streamId: 'leaserequest-id-1', type: 'LeaseRequest.Submitted' }),
        expect.objectContaining({
          streamId: 'leaserequest-id-1',
          type: 'LeaseRequest.Admitted',
          data: expect.objectContaining({ leaseId: 'id-2' }),
        }),
      ]);
    expect(written.detail).toMatchObject({ state: { status: 'Admitted', leaseId: 'id-2' }, position: null, predictedStart: null });
    expect(calls).toEqual(['create']);
  });

  it('one refused for capacity waits: only its submission is written, the trust made for the try taken back', async () => {
    const { calls, trusts } = trustLedger();
    const written = await specWith(trusts)
      .given([hostRegistered('1'), hostBooked('1', 'other', { leaseId: 'lease-0', start: 8, end: 14 })])
      .when(submit(member))
      .then([expect.objectContaining({ streamId: 'leaserequest-id-1', type: 'LeaseRequest.Submitted' })]);
    expect(written.detail).toMatchObject({ state: { status: 'Queued' }, position: 1, predictedStart: at(14) });
    expect(calls).toEqual(['create', 'discard trust-1']);
  });

  it.each<[string, CommandMetadata, Partial<LeaseRequestInput>, Record<string, unknown>]>([
    ['a reader (members and admins may)', reader, {}, { code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' }],
    ['start_by before not_before', member, { startBy: at(9) }, { code: 'START_BY_BEFORE_NOT_BEFORE', kind: 'invalid' }],
    [
      'a reservation its type refuses (parsed by the type as a lease would be)',
      member,
      { reservations: [{ ...oneHost, values: { ...oneHost.values, min: 0 } }] },
      { code: 'MALFORMED_PARAMETER', kind: 'invalid' },
    ],
  ])('refuses %s, writing nothing', async (_, metadata, fields, matching) => {
    await specWith()
      .given([hostRegistered('1')])
      .when(submit(metadata, fields))
      .thenThrows(matching);
  });
});

describe('withdraw and read lease requests', () => {
  const queued = [hostRegistered('1'), hostBooked('1', 'other', { leaseId: 'lease-0', start: 8, end: 23 })];

  it('ranks the queued requests first come first served; a withdrawn one leaves the queue', async () => {
    await specWith()
      .given(queued)
      .when(async (requests) => {
        const ids: string[] = [];
        for (const name of ['a', 'b', 'c']) ids.push((await submit(member, { name })(requests)).detail.state.request.requestId);
        await requests.withdraw({ type: 'WithdrawLeaseRequest', data: { requestId: ids[1] as string }, metadata: member });
        const listed = await requests.list(member.actor);
        expect(listed.map(({ state, position }) => [state.request.name, state.status, position])).toEqual([
          ['a', 'Queued', 1],
          ['b', 'Withdrawn', null],
          ['c', 'Queued', 2],
        ]);
        expect(await requests.list(stranger.actor)).toEqual([]);
        await expect(requests.detail(stranger.actor, ids[0] as string, NOW)).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
        const refused = requests.withdraw({ type: 'WithdrawLeaseRequest', data: { requestId: ids[1] as string }, metadata: member });
        await expect(refused).rejects.toMatchObject({ code: 'LEASE_REQUEST_NOT_QUEUED', kind: 'conflict' });
        const foreign = requests.withdraw({ type: 'WithdrawLeaseRequest', data: { requestId: ids[0] as string }, metadata: stranger });
        await expect(foreign).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
      })
      .then([
        expect.objectContaining({ type: 'LeaseRequest.Submitted', data: expect.objectContaining({ name: 'a' }) }),
        expect.objectContaining({ type: 'LeaseRequest.Submitted', data: expect.objectContaining({ name: 'b' }) }),
        expect.objectContaining({ type: 'LeaseRequest.Submitted', data: expect.objectContaining({ name: 'c' }) }),
        expect.objectContaining({ type: 'LeaseRequest.Withdrawn' }),
      ]);
  });
});
