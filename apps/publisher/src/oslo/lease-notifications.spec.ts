import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { PUBLISHED_TYPES, sampleOf } from '#application/outbound/testing/published-samples.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import type { LeaseEvent } from '#domain/index.js';
import { LeaseStreamFold, leaseNotifications as notificationsOf, leasePayload } from './lease-notifications.js';

const LEASE = 'lease-1';
type Step = readonly [type: Parameters<typeof sampleOf>[0], data?: Record<string, unknown>, causationId?: string];

/** A lease stream of the given events (each its own command unless a causation id says otherwise). */
const streamOf = (steps: readonly Step[]): RecordedEvent[] =>
  steps.map(([type, overrides, causationId], revision) => {
    const { streamId, data } = sampleOf(type, LEASE);
    return {
      id: `ev-${revision}`,
      streamId,
      revision,
      position: 100 + revision,
      type,
      data: { ...(data as object), ...overrides },
      metadata: { correlationId: 'c', causationId: causationId ?? `cmd-${revision}`, actor: null },
      recordedAt: '2030-01-01T10:00:00.000Z',
    };
  });

const notify = (stream: readonly RecordedEvent[], eventId: string) => notificationsOf(new LeaseStreamFold(stream), eventId);

const typesAt = (stream: readonly RecordedEvent[], index: number): string[] => notify(stream, `ev-${index}`).map((n) => n.eventType);

const viewAfter = (stream: readonly RecordedEvent[], count: number) =>
  stream
    .slice(0, count)
    .reduce(
      (view, event) => evolveLeaseView(view, { type: event.type, data: event.data } as LeaseEvent),
      null as ReturnType<typeof evolveLeaseView>,
    );

const LIFECYCLE: readonly Step[] = [
  ['Lease.Created', { beforeEndDate: '2030-01-01T17:00:00.000Z' }],
  ['Lease.StartRequested'],
  ['Lease.Started'],
  ['Lease.BeforeEndRequested'],
  ['Lease.BeforeEndCompleted'],
  ['Lease.EndRequested'],
  ['Lease.Ended'],
  ['Lease.Deleted'],
];

describe('which lease events upstream notifies, with what lease', () => {
  it('a lease lifecycle: create, start, before-end, end, delete; requests send nothing', () => {
    const stream = streamOf(LIFECYCLE);
    expect(stream.map((_, index) => typesAt(stream, index))).toEqual([
      ['lease.create'],
      [],
      ['lease.event.start_lease'],
      [],
      ['lease.event.before_end_lease'],
      [],
      ['lease.event.end_lease'],
      ['lease.delete'],
    ]);
  });

  it('each carries the lease as that event left it; the delete, the lease as it last stood', () => {
    const stream = streamOf(LIFECYCLE);
    const [created] = notify(stream, 'ev-0');
    expect(created?.payload).toMatchObject({
      lease_id: LEASE,
      status: 'PENDING',
      name: `lease ${LEASE}`,
      user_id: 'user-1',
      project_id: 'project-1',
      trust_id: null,
      degraded: false,
    });
    expect(notify(stream, 'ev-2')[0]?.payload).toEqual(leasePayload(viewAfter(stream, 3) ?? expect.fail('no lease')));
    expect(notify(stream, 'ev-2')[0]?.payload.status).toBe('ACTIVE');
    expect(notify(stream, 'ev-6')[0]?.payload.status).toBe('TERMINATED');
    // upstream reads the lease after its decorator set DELETING
    expect(notify(stream, 'ev-7')[0]?.payload).toEqual({
      ...notify(stream, 'ev-6')[0]?.payload,
      status: 'DELETING',
      updated_at: '2030-01-01 10:00:00',
    });
  });

  it("deleting a running lease: the lease before the delete's own end request, DELETING", () => {
    const stream = streamOf([
      ['Lease.Created'],
      ['Lease.Started'],
      ['Lease.EndRequested', { reason: 'deleted' }, 'del'],
      ['Lease.Deleted', undefined, 'del'],
    ]);
    const [deleted] = notify(stream, 'ev-3');
    expect(deleted?.payload.status).toBe('DELETING');
    expect(deleted?.payload.events.find((e) => e.event_type === 'end_lease')?.status).toBe('UNDONE');
    expect(deleted?.payload.reservations.map((r) => r.status)).toEqual(['active']);
  });

  it("upstream's payload keys, in its order, and reservations without Leasehold's end_action", () => {
    const [created] = notify(streamOf(LIFECYCLE), 'ev-0');
    expect(Object.keys(created?.payload ?? {})).toEqual([
      'lease_id',
      'user_id',
      'project_id',
      'trust_id',
      'start_date',
      'end_date',
      'status',
      'reservations',
      'events',
      'name',
      'created_at',
      'updated_at',
      'degraded',
    ]);
    expect(created?.payload.reservations[0]).not.toHaveProperty('end_action');
    expect(created?.payload.reservations[0]).toMatchObject({ resource_type: 'physical:host', min: 1, max: 1, status: 'pending' });
    expect(created?.payload.start_date).toBe('2030-01-01T10:00:00.000000');
  });

  it('one update of several events: one lease.update, on its last event, with the whole update applied', () => {
    const stream = streamOf([
      ['Lease.Created'],
      ['Lease.Renamed', { name: 'new name' }, 'put-1'],
      ['Lease.Rescheduled', { endDate: '2030-01-01T20:00:00.000Z' }, 'put-1'],
      ['Reservation.Changed', undefined, 'put-1'],
    ]);
    expect([1, 2, 3].map((index) => typesAt(stream, index))).toEqual([[], [], ['lease.update']]);
    expect(notify(stream, 'ev-3')[0]?.payload).toMatchObject({ name: 'new name', end_date: '2030-01-01T20:00:00.000000' });
  });

  it('a rename alone sends nothing, as upstream; two updates in a row each send one', () => {
    const stream = streamOf([
      ['Lease.Created'],
      ['Lease.Renamed', { name: 'n2' }, 'put-1'],
      ['Lease.Rescheduled', { endDate: '2030-01-01T20:00:00.000Z' }, 'put-2'],
      ['Lease.Rescheduled', { endDate: '2030-01-01T21:00:00.000Z' }, 'put-3'],
    ]);
    expect([1, 2, 3].map((index) => typesAt(stream, index))).toEqual([[], ['lease.update'], ['lease.update']]);
  });

  it('an update that re-arms a before-end that ran adds before_end_lease.stop after lease.update, same lease', () => {
    const ran: Step[] = [['Lease.Created', { beforeEndDate: '2030-01-01T17:00:00.000Z' }], ['Lease.Started'], ['Lease.BeforeEndCompleted']];
    const stream = streamOf([
      ...ran,
      ['Lease.Rescheduled', { endDate: '2030-01-01T20:00:00.000Z', beforeEndDate: '2030-01-01T19:00:00.000Z' }, 'put-1'],
    ]);
    const notifications = notify(stream, 'ev-3');
    expect(notifications.map((n) => n.eventType)).toEqual(['lease.update', 'lease.event.before_end_lease.stop']);
    expect(notifications[1]?.payload).toBe(notifications[0]?.payload);
    expect(notifications[0]?.payload.events.find((e) => e.event_type === 'before_end_lease')?.status).toBe('UNDONE');
    // one whose before-end had not run yet: no stop
    const pending = streamOf([
      ran[0] as Step,
      ['Lease.Rescheduled', { endDate: '2030-01-01T20:00:00.000Z', beforeEndDate: '2030-01-01T19:00:00.000Z' }, 'put-1'],
    ]);
    expect(typesAt(pending, 1)).toEqual(['lease.update']);
  });

  it('a deleted lease ending afterwards (the reactor freeing its resources) sends no end_lease: the delete covered it', () => {
    const stream = streamOf([
      ['Lease.Created'],
      ['Lease.Started'],
      ['Lease.EndRequested', { reason: 'deleted' }, 'del'],
      ['Lease.Deleted', undefined, 'del'],
      ['Lease.Ended'],
    ]);
    expect([2, 3, 4].map((index) => typesAt(stream, index))).toEqual([[], ['lease.delete'], []]);
  });

  it('failures, healing and effects have no upstream notification', () => {
    const silent = PUBLISHED_TYPES.filter(
      (type) =>
        type.startsWith('Reservation.Effects') ||
        type.startsWith('Reservation.Update') ||
        type.endsWith('Failed') ||
        type === 'Reservation.Healed' ||
        type === 'Reservation.DriftRepaired',
    );
    expect(silent.length).toBeGreaterThanOrEqual(9);
    for (const type of silent) {
      const stream = streamOf([['Lease.Created'], ['Lease.Started'], [type]]);
      expect(typesAt(stream, 2), type).toEqual([]);
    }
  });

  it('one fold serves every event of a batch: the same answers as a fold per event', () => {
    const stream = streamOf(LIFECYCLE);
    const shared = new LeaseStreamFold(stream);
    expect([...stream].reverse().map((event) => notificationsOf(shared, event.id))).toEqual(
      [...stream].reverse().map((event) => notify(stream, event.id)),
    );
  });

  it('the same stream always gives the same notifications (a replay after a crash sends what the first run sent)', () => {
    const stream = streamOf(LIFECYCLE);
    expect(stream.map((event) => notify(stream, event.id))).toEqual(streamOf(LIFECYCLE).map((event) => notify(stream, event.id)));
    // and later events do not change an earlier one's lease
    expect(notify(stream.slice(0, 3), 'ev-2')).toEqual(notify(stream, 'ev-2'));
  });

  it('an event that is not in the stream is an error, not a silent skip', () => {
    expect(() => notify(streamOf(LIFECYCLE), 'missing')).toThrow(/not in its lease stream/);
  });
});
