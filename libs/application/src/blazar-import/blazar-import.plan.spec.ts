import { describe, expect, it } from 'vitest';
import { foldEvents, leaseStream } from '#domain/index.js';
import type { LeaseEvent } from '#domain/index.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import { planImport, readBlazarState } from './blazar-import.plan.js';
import { BLAZAR_TABLES, type BlazarRow, type BlazarRows } from './blazar-source.port.js';

/** Given Blazar's rows (a few, built here), when planned, then the events the service would have recorded. */
const T = (day: number, hour = 0) => `2030-01-${String(day).padStart(2, '0')} ${String(hour).padStart(2, '0')}:00:00.000000`;
const ISO = (day: number, hour = 0) => `2030-01-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000Z`;

const host = (id: string): BlazarRow => ({
  id,
  created_at: T(1),
  vcpus: 8,
  cpu_info: '{}',
  hypervisor_type: 'QEMU',
  hypervisor_version: 1,
  hypervisor_hostname: `compute-${id}`,
  service_name: null,
  memory_mb: 8192,
  local_gb: 100,
  availability_zone: 'nova',
  trust_id: 't',
  reservable: 1,
});

interface LeaseRows {
  readonly id: string;
  readonly days: readonly [number, number];
  readonly created?: number;
  readonly statuses?: readonly [string, string];
  readonly reservationStatus?: string;
  readonly hosts?: readonly string[];
}

const hostLease = ({ id, days, created = 1, statuses = ['UNDONE', 'UNDONE'], reservationStatus = 'pending', hosts = ['1'] }: LeaseRows) => {
  const [start, end] = days;
  const event = (type: string, day: number, status: string): BlazarRow => ({
    id: `${id}-${type}`,
    lease_id: id,
    event_type: type,
    time: T(day),
    status,
    created_at: T(created),
    updated_at: status === 'UNDONE' ? null : T(day, 1),
  });
  return {
    leases: [
      { id, name: id, user_id: 'u', project_id: 'p', start_date: T(start), end_date: T(end), status: 'PENDING', created_at: T(created) },
    ],
    events: [event('start_lease', start, statuses[0]), event('end_lease', end, statuses[1])],
    reservations: [
      {
        id: `${id}-r`,
        lease_id: id,
        resource_id: `${id}-chr`,
        resource_type: 'physical:host',
        status: reservationStatus,
        created_at: T(created),
      },
    ],
    computehost_reservations: [
      { id: `${id}-chr`, reservation_id: `${id}-r`, count_range: `${hosts.length}-${hosts.length}`, before_end: 'default' },
    ],
    computehost_allocations: hosts.map((h, i) => ({ id: `${id}-a${i}`, compute_host_id: h, reservation_id: `${id}-r` })),
  };
};

const rowsOf = (...parts: readonly Partial<Record<keyof BlazarRows, readonly BlazarRow[]>>[]): BlazarRows => {
  const rows = Object.fromEntries(BLAZAR_TABLES.map((table) => [table, [] as BlazarRow[]])) as Record<keyof BlazarRows, BlazarRow[]>;
  for (const part of parts) for (const [table, list] of Object.entries(part)) rows[table as keyof BlazarRows].push(...list);
  return rows;
};

const plan = (rows: BlazarRows, policy: 'refuse' | 'keep-first' | 'skip-all' = 'refuse') =>
  planImport(readBlazarState(rows, '02e2f2186d98'), policy);

const leaseEvents = (planned: ReturnType<typeof plan>, leaseId: string): LeaseEvent[] =>
  planned.appends.appends
    .flat()
    .filter((r) => r.streamId === leaseStream(leaseId))
    .flatMap((r) => r.events.map((e) => ({ type: e.type, data: e.data }) as LeaseEvent));

describe('Blazar import plan', () => {
  it('a lease Blazar started is created with its allocations, then started as the reactor records it', () => {
    const planned = plan(
      rowsOf(
        { computehosts: [host('1'), host('2')] },
        hostLease({ id: 'L', days: [2, 4], statuses: ['DONE', 'UNDONE'], hosts: ['2', '1'] }),
      ),
    );
    const events = leaseEvents(planned, 'L');
    expect(events.map((e) => e.type)).toEqual(['Lease.Created', 'Lease.StartRequested', 'Reservation.EffectsApplied', 'Lease.Started']);
    expect(events[0]?.data).toMatchObject({
      startDate: ISO(2),
      endDate: ISO(4),
      beforeEndDate: null,
      reservations: [{ hostIds: ['1', '2'], min: 2 }],
    });
    expect(events[1]?.data).toEqual({ leaseId: 'L', at: ISO(2, 1) });
    expect(foldEvents(leaseDecider, events).status).toBe('Active');
    // the bookings go with the creation, in the same append, as an admission writes them
    const first = planned.appends.appends.find((requests) => requests.some((r) => r.streamId === leaseStream('L')));
    expect(first?.map((r) => [r.streamId, r.events.map((e) => e.type)])).toEqual([
      ['lease-L', ['Lease.Created']],
      ['host-1', ['Host.Booked']],
      ['host-2', ['Host.Booked']],
    ]);
  });

  it('a start Blazar failed: the reservation it left in error failed, the lease StartFailed', () => {
    const rows = rowsOf(
      { computehosts: [host('1')] },
      hostLease({ id: 'L', days: [2, 4], statuses: ['ERROR', 'UNDONE'], reservationStatus: 'error' }),
    );
    const events = leaseEvents(plan(rows), 'L');
    expect(events.map((e) => e.type)).toEqual(['Lease.Created', 'Lease.StartRequested', 'Reservation.EffectsFailed', 'Lease.StartFailed']);
    expect(foldEvents(leaseDecider, events).status).toBe('StartFailed');
  });

  it('an end in progress is requested, not done: the reactor completes it', () => {
    const rows = rowsOf({ computehosts: [host('1')] }, hostLease({ id: 'L', days: [2, 4], statuses: ['DONE', 'IN_PROGRESS'] }));
    const events = leaseEvents(plan(rows), 'L');
    expect(events.slice(-1)).toEqual([{ type: 'Lease.EndRequested', data: { leaseId: 'L', at: ISO(4, 1), reason: 'scheduled' } }]);
    expect(foldEvents(leaseDecider, events).status).toBe('Ending');
  });

  it('an end done before any start cannot be told as events: the lease is reported and left out', () => {
    const planned = plan(
      rowsOf({ computehosts: [host('1')] }, hostLease({ id: 'L', days: [2, 4], statuses: ['UNDONE', 'DONE'] })),
      'keep-first',
    );
    expect(planned.state.problems).toEqual([expect.objectContaining({ kind: 'unreadable_row', leaseId: 'L' })]);
    expect(leaseEvents(planned, 'L')).toEqual([]);
  });

  it('an instance reservation holds as many slots on a host as Blazar wrote rows for it', () => {
    const lease = hostLease({ id: 'I', days: [2, 4] });
    const rows = rowsOf(
      { computehosts: [host('1'), host('2')] },
      { ...lease, reservations: [], computehost_reservations: [], computehost_allocations: [] },
      {
        reservations: [{ ...lease.reservations[0], resource_type: 'virtual:instance' }],
        instance_reservations: [{ id: 'ir', reservation_id: 'I-r', vcpus: 1, memory_mb: 512, disk_gb: 1, amount: 3, affinity: null }],
        computehost_allocations: ['2', '1', '2'].map((h, i) => ({ id: `a${i}`, compute_host_id: h, reservation_id: 'I-r' })),
      },
    );
    const created = leaseEvents(plan(rows), 'I')[0];
    expect(created?.data).toMatchObject({
      reservations: [
        {
          resourceType: 'virtual:instance',
          amount: 3,
          allocations: [
            { hostId: '1', count: 1 },
            { hostId: '2', count: 2 },
          ],
        },
      ],
    });
  });

  it('keep-first keeps each lease that collides with none kept before it', () => {
    const rows = rowsOf(
      { computehosts: [host('1'), host('2')] },
      hostLease({ id: 'A', days: [2, 4], created: 1, hosts: ['1'] }),
      hostLease({ id: 'B', days: [3, 6], created: 2, hosts: ['1', '2'] }),
      hostLease({ id: 'C', days: [5, 7], created: 3, hosts: ['2'] }),
    );
    expect(plan(rows).refused).toBe(true);
    expect(plan(rows).appends.appends).toEqual([]);
    expect([...plan(rows, 'keep-first').leftOut]).toEqual(['B']);
    expect([...plan(rows, 'skip-all').leftOut].sort()).toEqual(['A', 'B', 'C']);
  });

  it("a lease whose status Blazar's events do not explain is imported as its events say, and noted", () => {
    const lease = hostLease({ id: 'L', days: [2, 4] });
    const rows = rowsOf({ computehosts: [host('1')] }, { ...lease, leases: [{ ...lease.leases[0], status: 'ERROR' }] });
    const planned = plan(rows);
    expect(planned.state.notes).toEqual([{ message: 'lease L is ERROR in Blazar; its events make it PENDING in Leasehold' }]);
    expect(planned.state.problems).toEqual([]);
    expect(foldEvents(leaseDecider, leaseEvents(planned, 'L')).status).toBe('Pending');
  });

  it('leases that only touch (one ends as the next starts) are no double booking', () => {
    const rows = rowsOf(
      { computehosts: [host('1')] },
      hostLease({ id: 'A', days: [2, 4] }),
      hostLease({ id: 'B', days: [4, 6], created: 2 }),
    );
    expect(plan(rows).state.problems).toEqual([]);
  });

  it('the same rows plan the same event ids: a re-run appends what the store already holds', () => {
    const rows = rowsOf({ computehosts: [host('1')] }, hostLease({ id: 'A', days: [2, 4] }));
    const ids = (p: ReturnType<typeof plan>) => p.appends.appends.flat().flatMap((r) => r.events.map((e) => e.id));
    expect(ids(plan(rows))).toEqual(ids(plan(rows)));
    expect(new Set(ids(plan(rows))).size).toBe(ids(plan(rows)).length);
  });
});
