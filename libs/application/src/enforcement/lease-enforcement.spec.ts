import { describe, expect, it } from 'vitest';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import type { LeaseTrusts } from '#plugins/ports/lease-trusts.port.js';
import { LeaseUseCases } from '../leases/lease.use-cases.js';
import { at, hostRegistered } from '../testing/calendars.fixture.js';
import { applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import { enforcementConfigFromEnv } from './enforcement.config.js';
import { indexResources } from './index-resources.js';
import { usageEnforcement } from './usage-enforcement.js';

const member = commandMetadata(testCaller('member', 'project-1', 'member-user'), at(9));
const exempt = commandMetadata(testCaller('member', 'project-x', 'exempt-user'), at(9));
const oneHost = buildHostRequest({ min: 1, max: 1, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default' });
const lease = (endHour: number) => ({
  name: 'lease',
  startDate: at(10),
  endDate: at(endHour),
  beforeEndDate: null,
  reservations: [oneHost],
});

/** What Keystone was asked: a refused lease must not have made a trust. */
const trustCalls = () => {
  const calls: string[] = [];
  const trusts: LeaseTrusts = {
    create: () => (calls.push('create'), Promise.resolve('trust-1')),
    discard: () => (calls.push('discard'), Promise.resolve()),
    release: () => Promise.resolve(),
  };
  return { calls, trusts };
};

/** max_lease_duration of 4 hours, project-x exempt. */
const enforced = (trusts?: LeaseTrusts) =>
  applicationSpecification((context) => {
    const env = {
      LEASEHOLD_ENFORCEMENT_FILTERS: 'max_lease_duration',
      LEASEHOLD_MAX_LEASE_DURATION_SECONDS: '14400',
      LEASEHOLD_MAX_LEASE_DURATION_EXEMPT_PROJECTS: 'project-x',
    };
    const enforcement = usageEnforcement({
      config: enforcementConfigFromEnv(env),
      service: null,
      resources: indexResources(context.index),
      warn: () => undefined,
    });
    return new LeaseUseCases(context, trusts, enforcement);
  });

describe('usage enforcement on lease writes', () => {
  it('Given a 4-hour maximum, When a member asks for 8 hours, Then a 403 names the filter and both durations, nothing is recorded and no trust is made', async () => {
    const { calls, trusts } = trustCalls();
    await enforced(trusts)
      .given([hostRegistered('1')])
      .when((leases) => leases.create({ type: 'CreateLease', data: lease(18), metadata: member }))
      .thenThrows({
        code: 'ENFORCEMENT_MAX_LEASE_DURATION',
        kind: 'forbidden',
        message: 'Lease duration of 28800 seconds must be less than or equal to the maximum of 14400 seconds.',
      });
    expect(calls).toEqual([]);
  });

  it('Given a 4-hour maximum, When an exempt project asks for 8 hours, Then the lease is booked', async () => {
    await enforced()
      .given([hostRegistered('1')])
      .when((leases) => leases.create({ type: 'CreateLease', data: lease(18), metadata: exempt }))
      .then([expect.objectContaining({ type: 'Lease.Created' }), expect.objectContaining({ type: 'Host.Booked' })]);
  });

  it('Given a 4-hour lease, When it is prolonged to 8 hours, Then the update is refused and nothing is recorded', async () => {
    await enforced()
      .given([hostRegistered('1')])
      .when(async (leases) => {
        const { leaseId } = await leases.create({ type: 'CreateLease', data: lease(14), metadata: member });
        const changes = { name: null, startDate: null, endDate: at(18), beforeEndDate: null, reservations: [] };
        return leases.update({ type: 'UpdateLease', data: { leaseId, changes }, metadata: member }).then(
          () => 'updated',
          (error: unknown) => error,
        );
      })
      .then([expect.objectContaining({ type: 'Lease.Created' }), expect.objectContaining({ type: 'Host.Booked' })])
      .then((answer) => expect(answer).toMatchObject({ code: 'ENFORCEMENT_MAX_LEASE_DURATION', kind: 'forbidden' }));
  });
});
