import { describe, expect, it } from 'vitest';
import type { Reservation } from '#domain/index.js';
import { buildInstanceRequest } from '#plugins/instance/instance-reservation.request.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { patchOf } from '#plugins/testing/reservation-patch.fixture.js';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import type { VirtualInstanceReservation } from '#plugins/instance/instance.reservation.js';
import type { CommandMetadata } from '../command.js';
import { at, hostBooked, hostRegistered, slotsBooked } from '../testing/calendars.fixture.js';
import { trustLedger } from '../testing/trust-ledger.fixture.js';
import { type StreamEvent, applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import type { CreateLeaseRequest, UpdateLeaseRequest } from './lease.commands.js';
import { LeaseUseCases } from './lease.use-cases.js';

const NOW = at(9);
const member = commandMetadata(testCaller('member', 'project-1', 'member-user'), NOW);
const reader = commandMetadata(testCaller('reader', 'project-1', 'reader-user'), NOW);
const stranger = commandMetadata(testCaller('member', 'project-2', 'other-user'), NOW);
const admin = commandMetadata(testCaller('admin', 'project-9', 'admin-user'), NOW);

const spec = applicationSpecification((context) => new LeaseUseCases(context));

const oneHost = buildHostRequest({ min: 1, max: 1, hypervisorProperties: '', resourceProperties: '', beforeEnd: 'default' });
const newLease = (fields: Partial<CreateLeaseRequest> = {}): CreateLeaseRequest => ({
  name: 'lease',
  startDate: at(10),
  endDate: at(18),
  beforeEndDate: null,
  reservations: [oneHost],
  ...fields,
});
const changes = (fields: Partial<UpdateLeaseRequest> = {}): UpdateLeaseRequest => ({
  name: null,
  startDate: null,
  endDate: null,
  beforeEndDate: null,
  reservations: [],
  ...fields,
});

const hostReservation: HostReservation = {
  id: 'r1',
  resourceId: 'resource-r1',
  resourceType: 'physical:host',
  min: 1,
  max: 1,
  hypervisorProperties: '',
  resourceProperties: '',
  beforeEnd: 'default',
  hostIds: ['1'],
};
const SLOT = { vcpus: 2, memoryMb: 4096, diskGb: 20 };
const instances: VirtualInstanceReservation = {
  id: 'r2',
  resourceId: 'resource-r2',
  resourceType: 'virtual:instance',
  amount: 2,
  ...SLOT,
  affinity: null,
  resourceProperties: '',
  allocations: [{ hostId: '2', count: 2 }],
};

const leaseCreated = (reservations: readonly Reservation[], trustId: string | null = null): StreamEvent => ({
  streamId: 'lease-lease-1',
  type: 'Lease.Created',
  data: {
    leaseId: 'lease-1',
    name: 'lease',
    projectId: 'project-1',
    userId: 'member-user',
    trustId,
    startDate: at(10),
    endDate: at(18),
    beforeEndDate: at(17),
    reservations,
    eventIds: { start: 'e-start', end: 'e-end', beforeEnd: 'e-before-end' },
    createdAt: at(8),
  },
});
const startedAt = (hour: number): StreamEvent[] => [
  { streamId: 'lease-lease-1', type: 'Lease.StartRequested', data: { leaseId: 'lease-1', at: at(hour) } },
  { streamId: 'lease-lease-1', type: 'Lease.Started', data: { leaseId: 'lease-1', at: at(hour) } },
];
/** Host 1 held whole by r1, host 2 holding two slots of r2, host 3 free; lease-1 pending. */
const booked = (trustId: string | null = null): StreamEvent[] => [
  hostRegistered('1'),
  hostRegistered('2'),
  hostRegistered('3'),
  hostBooked('1', 'r1'),
  slotsBooked('2', 'r2', { count: 2, ...SLOT }),
  leaseCreated([hostReservation, instances], trustId),
];

const update =
  (metadata: CommandMetadata, data: UpdateLeaseRequest, leaseId = 'lease-1') =>
  (leases: LeaseUseCases) =>
    leases.update({ type: 'UpdateLease', data: { leaseId, changes: data }, metadata });
const remove =
  (metadata: CommandMetadata, leaseId = 'lease-1') =>
  (leases: LeaseUseCases) =>
    leases.delete({ type: 'DeleteLease', data: { leaseId }, metadata });

describe('create a lease', () => {
  it("a member's lease, booked on a free host: the lease and the host's calendar in one append, ids in order", async () => {
    const written = await spec
      .given([hostRegistered('1')])
      .when((leases) => leases.create({ type: 'CreateLease', data: newLease(), metadata: member }))
      .then([
        {
          streamId: 'lease-id-1',
          type: 'Lease.Created',
          data: {
            leaseId: 'id-1',
            name: 'lease',
            projectId: 'project-1',
            userId: 'member-user',
            trustId: null,
            startDate: at(10),
            endDate: at(18),
            beforeEndDate: at(17),
            reservations: [{ ...hostReservation, id: 'id-2', resourceId: 'id-3' }],
            eventIds: { start: 'id-4', end: 'id-5', beforeEnd: 'id-6' },
            createdAt: NOW,
          },
        },
        {
          streamId: 'host-1',
          type: 'Host.Booked',
          data: { hostId: '1', reservationId: 'id-2', leaseId: 'id-1', startDate: at(10), endDate: at(18), propertyNames: [] },
        },
      ]);
    expect(written).toMatchObject({ leaseId: 'id-1', events: [{ type: 'Lease.Created' }] });
    expect(written.position).toBeGreaterThan(0);
  });

  it('a reader may not (upstream policy: members and admins), and Keystone is not asked for a trust', async () => {
    const { calls, trusts } = trustLedger();
    await applicationSpecification((context) => new LeaseUseCases(context, trusts))
      .given([hostRegistered('1')])
      .when((leases) => leases.create({ type: 'CreateLease', data: newLease(), metadata: reader }))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
    expect(calls).toEqual([]);
  });

  it('a start in the past is refused (400), and the trust made for it is taken back', async () => {
    const { calls, trusts } = trustLedger();
    await applicationSpecification((context) => new LeaseUseCases(context, trusts))
      .given([hostRegistered('1')])
      .when((leases) => leases.create({ type: 'CreateLease', data: newLease({ startDate: at(8) }), metadata: member }))
      .thenThrows({ code: 'START_IN_PAST', kind: 'invalid' });
    expect(calls).toEqual(['create', 'discard trust-1']);
  });

  it('a lease needing more hosts than are free is refused (409), nothing booked', async () => {
    await spec
      .given([hostRegistered('1'), hostBooked('1', 'other', { leaseId: 'lease-0' })])
      .when((leases) => leases.create({ type: 'CreateLease', data: newLease(), metadata: member }))
      .thenThrows({ code: 'NOT_ENOUGH_HOSTS', kind: 'conflict' });
  });

  it('a lease with a trust records it', async () => {
    const { calls, trusts } = trustLedger();
    const written = await applicationSpecification((context) => new LeaseUseCases(context, trusts))
      .given([hostRegistered('1')])
      .when((leases) => leases.create({ type: 'CreateLease', data: newLease(), metadata: member }))
      .then([
        expect.objectContaining({ type: 'Lease.Created', data: expect.objectContaining({ trustId: 'trust-1' }) }),
        expect.objectContaining({ type: 'Host.Booked' }),
      ]);
    expect(written.leaseId).toBe('id-1');
    expect(calls).toEqual(['create']);
  });
});

describe('update a lease', () => {
  it('a rename records only the new name', async () => {
    await spec
      .given(booked())
      .when(update(member, changes({ name: 'renamed' })))
      .then([{ streamId: 'lease-lease-1', type: 'Lease.Renamed', data: { leaseId: 'lease-1', name: 'renamed', renamedAt: NOW } }]);
  });

  it('a later end moves the lease and every booking it holds, in one append', async () => {
    await spec
      .given(booked())
      .when(update(member, changes({ endDate: at(20) })))
      .then([
        {
          streamId: 'lease-lease-1',
          type: 'Lease.Rescheduled',
          data: { leaseId: 'lease-1', startDate: at(10), endDate: at(20), beforeEndDate: at(19), rescheduledAt: NOW },
        },
        {
          streamId: 'host-1',
          type: 'Host.BookingMoved',
          data: { hostId: '1', reservationId: 'r1', startDate: at(10), endDate: at(20), propertyNames: [] },
        },
        {
          streamId: 'host-2',
          type: 'Host.SlotsMoved',
          data: { hostId: '2', reservationId: 'r2', startDate: at(10), endDate: at(20), propertyNames: [], slots: { count: 2, ...SLOT } },
        },
      ]);
  });

  it("another project's member may not (403); an admin may", async () => {
    await spec
      .given(booked())
      .when(update(stranger, changes({ name: 'mine' })))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
    await spec
      .given(booked())
      .when(update(admin, changes({ name: 'ours' })))
      .then([expect.objectContaining({ type: 'Lease.Renamed' })]);
  });

  it('an unknown lease is not found (404), before the policy is asked', async () => {
    await spec
      .given(booked())
      .when(update(stranger, changes({ name: 'x' }), 'lease-9'))
      .thenThrows({ code: 'LEASE_NOT_FOUND', kind: 'not_found' });
  });

  it('a reservation the lease lacks is refused (400); one of another type (409)', async () => {
    await spec
      .given(booked())
      .when(update(member, changes({ reservations: [patchOf('r9', { amount: 1 })] })))
      .thenThrows({ code: 'INVALID_RESERVATION_IDS', kind: 'invalid' });
    await spec
      .given(booked())
      .when(update(member, changes({ reservations: [patchOf('r1', { resourceType: 'virtual:instance', min: 2 })] })))
      .thenThrows({ code: 'CANT_UPDATE_PARAMETER', kind: 'conflict' });
  });

  it('a field another type owns is refused (400)', async () => {
    await spec
      .given(booked())
      .when(update(member, changes({ reservations: [patchOf('r1', { amount: 2 })] })))
      .thenThrows({ code: 'INVALID_PARAMETER', kind: 'invalid' });
  });

  it('a started instance reservation may grow but not shrink (409)', async () => {
    const running = [...booked(), ...startedAt(10)];
    const at12 = commandMetadata(testCaller('member', 'project-1', 'member-user'), at(12));
    await spec
      .given(running)
      .when(update(at12, changes({ reservations: [patchOf('r2', { amount: 1 })] })))
      .thenThrows({ code: 'CANT_UPDATE_PARAMETER', kind: 'conflict' });
    await spec
      .given(running)
      .when(update(at12, changes({ reservations: [patchOf('r2', { amount: 3 })] })))
      .then([
        {
          streamId: 'lease-lease-1',
          type: 'Reservation.Changed',
          data: {
            leaseId: 'lease-1',
            reservation: { ...instances, amount: 3, allocations: [{ hostId: '2', count: 3 }] },
            changedAt: at(12),
          },
        },
        expect.objectContaining({ streamId: 'host-2', type: 'Host.SlotsMoved' }),
      ]);
  });

  it('more instances than the hosts have room for are refused (409), nothing recorded', async () => {
    const tooMany = buildInstanceRequest({ amount: 9, ...SLOT, affinity: null, resourceProperties: '' });
    await spec
      .given(booked())
      .when(update(member, changes({ reservations: [patchOf('r2', { amount: tooMany.amount })] })))
      .thenThrows({ code: 'NOT_ENOUGH_HOSTS', kind: 'conflict' });
  });
});

describe('delete a lease', () => {
  it('a pending lease: deleted, its bookings released, its trust released once recorded', async () => {
    const { calls, trusts } = trustLedger();
    await applicationSpecification((context) => new LeaseUseCases(context, trusts))
      .given(booked('trust-1'))
      .when(remove(member))
      .then([
        { streamId: 'lease-lease-1', type: 'Lease.Deleted', data: { leaseId: 'lease-1', at: NOW } },
        { streamId: 'host-1', type: 'Host.BookingReleased', data: { hostId: '1', reservationId: 'r1', leaseId: 'lease-1' } },
        { streamId: 'host-2', type: 'Host.BookingReleased', data: { hostId: '2', reservationId: 'r2', leaseId: 'lease-1' } },
      ]);
    expect(calls).toEqual(['release trust-1']);
  });

  it('a running lease: its end is requested with the delete (the reactor deletes the trust then)', async () => {
    const { calls, trusts } = trustLedger();
    const at12 = commandMetadata(testCaller('member', 'project-1', 'member-user'), at(12));
    await applicationSpecification((context) => new LeaseUseCases(context, trusts))
      .given([...booked('trust-1'), ...startedAt(10)])
      .when(remove(at12))
      .then([
        { streamId: 'lease-lease-1', type: 'Lease.EndRequested', data: { leaseId: 'lease-1', at: at(12), reason: 'deleted' } },
        { streamId: 'lease-lease-1', type: 'Lease.Deleted', data: { leaseId: 'lease-1', at: at(12) } },
        expect.objectContaining({ type: 'Host.BookingReleased' }),
        expect.objectContaining({ type: 'Host.BookingReleased' }),
      ]);
    expect(calls).toEqual([]);
  });

  it("another project's member may not (403); an unknown lease is not found (404); a lease starting now is busy (409)", async () => {
    await spec.given(booked()).when(remove(stranger)).thenThrows({ code: 'POLICY_NOT_AUTHORIZED', kind: 'forbidden' });
    await spec.given(booked()).when(remove(member, 'lease-9')).thenThrows({ code: 'LEASE_NOT_FOUND', kind: 'not_found' });
    await spec
      .given([...booked(), { streamId: 'lease-lease-1', type: 'Lease.StartRequested', data: { leaseId: 'lease-1', at: at(10) } }])
      .when(remove(member))
      .thenThrows({ code: 'LEASE_BUSY', kind: 'conflict' });
  });
});
