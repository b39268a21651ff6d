import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { created, reservation } from '#domain/lease/testing/lease.fixtures.js';
import type { EventMetadata, EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { testCaller } from '../testing/application.specification.js';
import { HistoryQueries } from './history.queries.js';

const USER: EventMetadata = {
  correlationId: 'req-1',
  causationId: 'req-1',
  actor: { userId: 'user-1', projectId: 'project-1' },
  requestId: 'req-1',
};
const REACTOR: EventMetadata = { correlationId: 'req-1', causationId: 'evt-start', actor: null, system: 'reactor' };
const hold = { startDate: '2030-01-01T10:00:00.000Z', endDate: '2030-01-01T18:00:00.000Z', propertyNames: [] };
const hostInfo = {
  hypervisorHostname: 'h7',
  serviceName: 'h7',
  vcpus: 8,
  memoryMb: 1024,
  localGb: 10,
  cpuInfo: '',
  hypervisorType: 'QEMU',
  hypervisorVersion: 1,
  availabilityZone: 'nova',
};
const floatingIp = { floatingIpId: 'fip-1', networkId: 'net-1', subnetId: null, address: '203.0.113.5' };

let store: EventStore;
let queries: HistoryQueries;
let ids = 0;

const append = async (streamId: string, type: string, data: unknown, metadata: EventMetadata = USER): Promise<number> =>
  (await store.appendToStream(streamId, 'any', [{ id: `e-${++ids}`, type, data, metadata }])).position;

/**
 * lease-1 (project-1) holds host 7 for res-1, moves res-1 to host 8, and holds fip-1 for res-2;
 * host 7 also carries another lease's booking, and the registries list other resources.
 */
const givenLedger = async (): Promise<void> => {
  await append('hostregistry-main', 'HostRegistry.HostAdded', { hostId: '7', hypervisorHostname: 'h7' });
  await append('host-7', 'Host.Registered', { hostId: '7', info: hostInfo, capabilities: {}, registeredAt: hold.startDate });
  await append('hostregistry-main', 'HostRegistry.HostAdded', { hostId: '8', hypervisorHostname: 'h8' });
  await append('host-8', 'Host.Registered', {
    hostId: '8',
    info: { ...hostInfo, hypervisorHostname: 'h8' },
    capabilities: {},
    registeredAt: hold.startDate,
  });
  await append('floatingipregistry-main', 'FloatingIpRegistry.Added', {
    floatingIpId: 'fip-1',
    networkId: 'net-1',
    address: floatingIp.address,
  });
  await append('floatingip-fip-1', 'FloatingIp.Registered', { ...floatingIp, registeredAt: hold.startDate });
  const fipReservation = {
    id: 'res-2',
    resourceId: 'r-2',
    resourceType: 'virtual:floatingip',
    networkId: 'net-1',
    amount: 1,
    requiredFloatingIps: [],
    allocations: [{ floatingIpId: 'fip-1', address: floatingIp.address }],
  };
  await append(
    'lease-lease-1',
    'Lease.Created',
    created({ reservations: [reservation('res-1', { hostIds: ['7'] }), fipReservation as never] }).data,
  );
  await append('host-7', 'Host.Booked', { hostId: '7', reservationId: 'res-1', leaseId: 'lease-1', ...hold });
  await append('floatingip-fip-1', 'FloatingIp.Booked', {
    floatingIpId: 'fip-1',
    reservationId: 'res-2',
    leaseId: 'lease-1',
    startDate: hold.startDate,
    endDate: hold.endDate,
  });
  await append('host-7', 'Host.Booked', {
    hostId: '7',
    reservationId: 'res-other',
    leaseId: 'lease-other',
    ...hold,
    startDate: '2030-02-01T00:00:00.000Z',
    endDate: '2030-02-02T00:00:00.000Z',
  });
  await append('lease-lease-1', 'Reservation.Changed', {
    leaseId: 'lease-1',
    reservation: reservation('res-1', { hostIds: ['8'] }),
    changedAt: hold.startDate,
  });
  await append('host-7', 'Host.BookingReleased', { hostId: '7', reservationId: 'res-1', leaseId: 'lease-1' });
  await append('host-8', 'Host.Booked', { hostId: '8', reservationId: 'res-1', leaseId: 'lease-1', ...hold });
  await append(
    'hostactivity-7',
    'HostActivity.InstanceNotified',
    {
      hostId: '7',
      eventType: 'instance.create.end',
      instanceId: 'srv-1',
      projectId: 'project-1',
      flavorId: null,
      state: 'active',
      occurredAt: hold.startDate,
      messageId: 'm-1',
    },
    REACTOR,
  );
  await append('lease-lease-1', 'Lease.StartRequested', { leaseId: 'lease-1', at: hold.startDate }, REACTOR);
};

beforeEach(async () => {
  store = SqliteEventStore.open({ file: ':memory:' });
  queries = new HistoryQueries(store);
  ids = 0;
  await givenLedger();
});

afterEach(async () => {
  await store.close();
});

const typesOf = (entries: readonly { type: string }[]) => entries.map((entry) => entry.type);

describe('history of a lease', () => {
  it("lists its own events and its reservations' bookings on every host and address they held, in log order, and no one else's", async () => {
    const history = await queries.lease(testCaller('reader', 'project-1'), 'lease-1');
    expect(typesOf(history)).toEqual([
      'lease.created',
      'host.booked',
      'floating_ip.booked',
      'reservation.changed',
      'host.booking_released',
      'host.booked',
      'lease.start_requested',
    ]);
    const positions = history.map((entry) => entry.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(history.filter((entry) => entry.type === 'host.booked').map((entry) => entry.data['host_id'])).toEqual(['7', '8']);
    expect(JSON.stringify(history)).not.toContain('lease-other');
  });

  it('records who acted: the user of the request, or the reactor by name', async () => {
    const history = await queries.lease(testCaller('admin', 'admin-project'), 'lease-1');
    expect(history[0]).toMatchObject({
      actor: { user_id: 'user-1', project_id: 'project-1', system: null },
      request_id: 'req-1',
      causation_id: 'req-1',
    });
    expect(history.at(-1)).toMatchObject({
      actor: { user_id: null, project_id: null, system: 'reactor' },
      request_id: null,
      causation_id: 'evt-start',
    });
  });

  it('says what a change changed, with the values before and after, in the entry and its summary', async () => {
    await append('lease-lease-1', 'Lease.Renamed', { leaseId: 'lease-1', name: 'renamed', renamedAt: hold.startDate });
    await append('lease-lease-1', 'Lease.Rescheduled', {
      leaseId: 'lease-1',
      startDate: '2030-01-02T10:00:00.000Z',
      endDate: '2030-01-02T18:00:00.000Z',
      beforeEndDate: '2030-01-02T17:00:00.000Z',
      rescheduledAt: hold.startDate,
    });
    await append('lease-lease-1', 'Reservation.Changed', {
      leaseId: 'lease-1',
      reservation: reservation('res-1', { hostIds: ['8', '9'], min: 2, max: 2 }),
      changedAt: hold.startDate,
    });
    const history = await queries.lease(testCaller('reader', 'project-1'), 'lease-1');
    const changed = history.filter((entry) => entry.changes !== undefined);
    expect(changed.map((entry) => [entry.type, entry.changes])).toEqual([
      ['reservation.changed', [{ field: 'host_ids', before: ['7'], after: ['8'] }]],
      ['lease.renamed', [{ field: 'name', before: 'my-lease', after: 'renamed' }]],
      [
        'lease.rescheduled',
        [
          { field: 'start_date', before: '2030-01-01T10:00:00.000Z', after: '2030-01-02T10:00:00.000Z' },
          { field: 'end_date', before: '2030-01-01T18:00:00.000Z', after: '2030-01-02T18:00:00.000Z' },
          { field: 'before_end_date', before: '2030-01-01T17:00:00.000Z', after: '2030-01-02T17:00:00.000Z' },
        ],
      ],
      [
        'reservation.changed',
        [
          { field: 'min', before: 1, after: 2 },
          { field: 'max', before: 1, after: 2 },
          { field: 'host_ids', before: ['8'], after: ['8', '9'] },
        ],
      ],
    ]);
    expect(changed[0]?.summary).toBe('Reservation res-1 of lease lease-1 changed: host_ids ["7"] -> ["8"]');
    expect(changed[1]?.summary).toBe('Lease lease-1 renamed to renamed: name my-lease -> renamed');
    expect(changed[3]?.summary).toBe('Reservation res-1 of lease lease-1 changed: min 1 -> 2, max 1 -> 2, host_ids ["8"] -> ["8","9"]');
    expect(history.find((entry) => entry.type === 'host.booked')).not.toHaveProperty('changes');
  });

  it('is refused to another project (403) and unknown ids are 404, as reading the lease', async () => {
    await expect(queries.lease(testCaller('member', 'project-2'), 'lease-1')).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    await expect(queries.lease(testCaller('admin', 'admin-project'), 'lease-nope')).rejects.toMatchObject({ code: 'LEASE_NOT_FOUND' });
  });
});

describe('history of a host or floating IP', () => {
  it("lists a host's own stream, its Nova activity and its registry entries, every lease's bookings included", async () => {
    const history = await queries.host(testCaller('admin', 'admin-project'), '7');
    expect(typesOf(history)).toEqual([
      'host_registry.host_added',
      'host.registered',
      'host.booked',
      'host.booked',
      'host.booking_released',
      'host_activity.instance_notified',
    ]);
  });

  it("lists a floating IP's own stream and registry entries", async () => {
    const history = await queries.floatingIp(testCaller('admin', 'admin-project'), 'fip-1');
    expect(typesOf(history)).toEqual(['floating_ip_registry.added', 'floating_ip.registered', 'floating_ip.booked']);
  });

  it('is admin only, asked before the id is looked up; an unknown id is 404 for an admin', async () => {
    const member = testCaller('member', 'project-1');
    await expect(queries.host(member, '7')).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    await expect(queries.host(member, '99')).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    await expect(queries.floatingIp(member, 'fip-1')).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    const admin = testCaller('admin', 'admin-project');
    await expect(queries.host(admin, '99')).rejects.toMatchObject({ code: 'HOST_NOT_FOUND' });
    await expect(queries.floatingIp(admin, 'fip-nope')).rejects.toMatchObject({ code: 'FLOATING_IP_NOT_FOUND' });
  });
});
