import { describe, expect, it } from 'vitest';
import type { LeaseEvent } from '#domain/index.js';
import {
  LEASE_ID,
  at,
  created,
  deleted,
  endRequested,
  ended,
  flavorInstanceReservation,
  floatingIpReservation,
  reservation,
  startFailed,
  startRequested,
  started,
  virtualInstanceReservation,
} from '#domain/lease/testing/lease.fixtures.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import type { LeaseView } from './lease-view.js';

const fold = (events: readonly LeaseEvent[]): LeaseView | null => events.reduce<LeaseView | null>(evolveLeaseView, null);
const view = (events: readonly LeaseEvent[]): LeaseView => {
  const folded = fold(events);
  if (folded === null) throw new Error('no lease');
  return folded;
};

const hosts = reservation('res-1');
const instances = virtualInstanceReservation('res-2');
const flavored = flavorInstanceReservation('res-3');
const addresses = floatingIpReservation('res-4');
const createdWithAll = (): LeaseEvent => created({ reservations: [hosts, instances, flavored, addresses] });

describe('the lease as Blazar shows it, folded from the lease events', () => {
  it("a created lease: PENDING, its three events UNDONE, every reservation pending in its type's fields", () => {
    const lease = view([createdWithAll()]);
    expect(lease).toMatchObject({
      id: LEASE_ID,
      name: 'my-lease',
      user_id: 'user-1',
      project_id: 'project-1',
      start_date: '2030-01-01T10:00:00.000000',
      end_date: '2030-01-01T18:00:00.000000',
      created_at: '2029-12-31 12:00:00',
      updated_at: '2029-12-31 12:00:00',
      trust_id: null,
      status: 'PENDING',
      degraded: false,
    });
    expect(lease.events.map((e) => [e.event_type, e.time, e.status])).toEqual([
      ['start_lease', '2030-01-01T10:00:00.000000', 'UNDONE'],
      ['end_lease', '2030-01-01T18:00:00.000000', 'UNDONE'],
      ['before_end_lease', '2030-01-01T17:00:00.000000', 'UNDONE'],
    ]);
    expect(lease.reservations.map((r) => [r.id, r.resource_type, r.status, r.end_action])).toEqual([
      ['res-1', 'physical:host', 'pending', 'delete_servers_on_hosts'],
      ['res-2', 'virtual:instance', 'pending', 'delete_servers_using_flavor'],
      ['res-3', 'flavor:instance', 'pending', 'delete_servers_using_flavor'],
      ['res-4', 'virtual:floatingip', 'pending', 'release_addresses'],
    ]);
    expect(lease.reservations[1]).toMatchObject({
      vcpus: 2,
      memory_mb: 4096,
      disk_gb: 20,
      amount: 2,
      affinity: null,
      flavor_id: 'res-2',
      aggregate_id: null,
    });
    expect(lease.reservations[3]).toMatchObject({ network_id: 'net-ext', amount: 1, required_floatingips: [] });
  });

  it('a lease without a before-end date has no before-end event', () => {
    expect(view([created({ beforeEndDate: null })]).events.map((e) => e.event_type)).toEqual(['start_lease', 'end_lease']);
  });

  it('renamed and rescheduled: the events move with the dates; a done before-end event is armed again', () => {
    const lease = view([
      createdWithAll(),
      startRequested(),
      started(),
      { type: 'Lease.BeforeEndRequested', data: { leaseId: LEASE_ID, at: at(17) } },
      { type: 'Lease.BeforeEndCompleted', data: { leaseId: LEASE_ID, at: at(17) } },
      { type: 'Lease.Renamed', data: { leaseId: LEASE_ID, name: 'renamed', renamedAt: at(17, 10) } },
      {
        type: 'Lease.Rescheduled',
        data: { leaseId: LEASE_ID, startDate: at(10), endDate: at(20), beforeEndDate: at(19), rescheduledAt: at(17, 30) },
      },
    ]);
    expect(lease).toMatchObject({
      name: 'renamed',
      end_date: '2030-01-01T20:00:00.000000',
      updated_at: '2030-01-01 17:30:00',
      status: 'ACTIVE',
    });
    expect(lease.events.map((e) => [e.event_type, e.time, e.status])).toEqual([
      ['start_lease', '2030-01-01T10:00:00.000000', 'DONE'],
      ['end_lease', '2030-01-01T20:00:00.000000', 'UNDONE'],
      ['before_end_lease', '2030-01-01T19:00:00.000000', 'UNDONE'],
    ]);
  });

  it('through its life: STARTING, ACTIVE (reservations active), TERMINATING, TERMINATED (reservations deleted)', () => {
    const history = [createdWithAll(), startRequested()];
    expect(view(history).status).toBe('STARTING');
    history.push(started());
    expect(view(history)).toMatchObject({
      status: 'ACTIVE',
      reservations: [{ status: 'active' }, { status: 'active' }, { status: 'active' }, { status: 'active' }],
    });
    history.push(endRequested());
    expect(view(history).status).toBe('TERMINATING');
    history.push(ended());
    expect(view(history).status).toBe('TERMINATED');
    expect(view(history).reservations.every((r) => r.status === 'deleted')).toBe(true);
  });

  it('a failed start is ERROR', () => {
    expect(view([created(), startRequested(), startFailed()]).status).toBe('ERROR');
  });

  it("records the aggregate and server group an instance reservation's start effects created", () => {
    const effects = [
      { operation: 'aggregate.create', aggregate_id: 42 },
      { operation: 'server_group.create', server_group_id: 'sg-1' },
    ];
    const lease = view([
      createdWithAll(),
      startRequested(),
      { type: 'Reservation.EffectsApplied', data: { leaseId: LEASE_ID, reservationId: 'res-2', phase: 'start', effects, at: at(10) } },
    ]);
    expect(lease.reservations[1]).toMatchObject({ aggregate_id: 42, server_group_id: 'sg-1' });
    expect(lease.reservations[2]).toMatchObject({ aggregate_id: null, server_group_id: null });
  });

  it('a failed effect puts only its reservation in error', () => {
    const failed: LeaseEvent = {
      type: 'Reservation.EffectsFailed',
      data: { leaseId: LEASE_ID, reservationId: 'res-2', phase: 'start', error: 'boom', effects: [], at: at(10) },
    };
    expect(view([createdWithAll(), startRequested(), failed]).reservations.map((r) => r.status)).toEqual([
      'pending',
      'error',
      'pending',
      'pending',
    ]);
  });

  it('a change shows the new allocations and keeps status and creation time; a healing flags the reservation and degrades the lease', () => {
    const grown = { ...instances, amount: 3, allocations: [{ hostId: '7', count: 3 }] };
    const history: LeaseEvent[] = [
      createdWithAll(),
      startRequested(),
      started(),
      { type: 'Reservation.Changed', data: { leaseId: LEASE_ID, reservation: grown, changedAt: at(12) } },
    ];
    expect(view(history).reservations[1]).toMatchObject({
      amount: 3,
      status: 'active',
      created_at: '2029-12-31 12:00:00',
      updated_at: '2030-01-01 12:00:00',
    });
    expect(view(history).degraded).toBe(false);
    const replaced = { ...hosts, hostIds: ['8'] };
    history.push({
      type: 'Reservation.Healed',
      data: {
        leaseId: LEASE_ID,
        reservation: replaced,
        replacements: [{ hostId: '7', by: ['8'] }],
        unhealedHostIds: [],
        missingResources: false,
        resourcesChanged: true,
        at: at(13),
      },
    });
    expect(view(history).degraded).toBe(true);
    expect(view(history).reservations[0]).toMatchObject({ resources_changed: true, missing_resources: false, status: 'active' });
  });

  it('a deleted lease has no view, and later events do not bring it back', () => {
    expect(fold([created(), deleted()])).toBeNull();
    expect(fold([created(), deleted(), endRequested()])).toBeNull();
  });
});
