import { describe, expect, it } from 'vitest';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { LeaseUseCases } from '../leases/lease.use-cases.js';
import { at, hostBooked, hostRegistered } from '../testing/calendars.fixture.js';
import { applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import { CapacityRefused } from './counter-offer.js';

const member = commandMetadata(testCaller('member'), at(9));
const twoHosts = buildHostRequest({ min: 2, max: 2, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default' });
const create = (app: LeaseUseCases, start: number, end: number) =>
  app.create({
    type: 'CreateLease',
    data: { name: 'wanted', startDate: at(start), endDate: at(end), beforeEndDate: null, reservations: [twoHosts] },
    metadata: member,
  });

const spec = applicationSpecification((context) => new LeaseUseCases(context));

describe('counter-offers', () => {
  it('a create refused for lack of hosts keeps its code and message and offers the earliest windows of its length from its start', async () => {
    const refusal = await spec
      .given([hostRegistered('1'), hostRegistered('2'), hostBooked('2', 'r0', { start: 10, end: 12 })])
      .when((app) =>
        create(app, 11, 13).then(
          () => null,
          (error: unknown) => error,
        ),
      )
      .then([]);
    expect(refusal).toBeInstanceOf(CapacityRefused);
    expect(refusal).toMatchObject({
      code: 'NOT_ENOUGH_HOSTS',
      kind: 'conflict',
      message:
        'Not enough hosts available: 2 reservable hosts match the requested properties and 1 of them is free for the whole lease (cleaning time included), 2 requested (min). Earliest alternative: 2030-01-01 12:00 to 2030-01-01 14:00.',
      alternatives: [
        { startDate: at(12), endDate: at(14) },
        { startDate: at(14), endDate: at(16) },
        { startDate: at(16), endDate: at(18) },
      ],
    });
  });

  it('a refusal for another reason is left as it is', async () => {
    const refusal = await spec
      .given([hostRegistered('1'), hostRegistered('2')])
      .when((app) =>
        app
          .create({
            type: 'CreateLease',
            data: { name: 'x', startDate: at(11), endDate: at(13), beforeEndDate: null, reservations: [twoHosts] },
            metadata: commandMetadata(testCaller('reader'), at(9)),
          })
          .then(
            () => null,
            (error: unknown) => error,
          ),
      )
      .then([]);
    expect(refusal).toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    expect(refusal).not.toBeInstanceOf(CapacityRefused);
  });

  it('offers no window that would end after 9999-12-31 23:59, the last instant a date may be', async () => {
    const lastDay = (time: string) => `9999-12-31T${time}:00.000Z`;
    const busy = {
      ...hostBooked('2', 'r0'),
      data: { ...(hostBooked('2', 'r0').data as object), startDate: lastDay('10:00'), endDate: lastDay('12:00') },
    };
    const refusal = await spec
      .given([hostRegistered('1'), hostRegistered('2'), busy])
      .when((app) =>
        app
          .create({
            type: 'CreateLease',
            data: { name: 'late', startDate: lastDay('11:00'), endDate: lastDay('17:00'), beforeEndDate: null, reservations: [twoHosts] },
            metadata: member,
          })
          .then(
            () => null,
            (error: unknown) => error,
          ),
      )
      .then([]);
    expect(refusal).toBeInstanceOf(CapacityRefused);
    expect(refusal).toMatchObject({ alternatives: [{ startDate: lastDay('12:00'), endDate: lastDay('18:00') }] });
  });
});
