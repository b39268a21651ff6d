import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { EffectContext, EffectsRegistry } from '#plugins/effects.port.js';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import {
  World,
  atSecond,
  createLease,
  decideAndAppend,
  find,
  leaseEvents,
  registerHosts,
  typesOf,
  waitFor,
  waitForEvent,
} from './reactor.fixtures.js';

const HOUR = 3_600_000;
const ms = (iso: string): number => Date.parse(iso);
/** How long after its due date an event was recorded. */
const lateness = (events: readonly RecordedEvent[], type: string, due: string): number => ms(find(events, type).recordedAt) - ms(due);
const position = (events: readonly RecordedEvent[], type: string): number => find(events, type).position;
/** A creation time a minute back, so that a test can create leases whose dates have passed. */
const aMinuteAgo = (): string => new Date(Date.now() - 60_000).toISOString();

let world: World;

beforeEach(async () => {
  world = new World();
  await registerHosts(world.store, ['host1', 'host2']);
});

afterEach(async () => {
  await world.close();
});

describe('reactor (standalone effects, real SQLite store)', () => {
  it('starts and ends leases within a second of their dates; back-to-back leases hand their host over', async () => {
    await world.startReactor();
    const start = atSecond(Date.now() + 3000);
    const end = atSecond(ms(start) + 3000);
    const next = atSecond(ms(end) + 3000);
    const first = await createLease(world.store, { startDate: start, endDate: end });
    const second = await createLease(world.store, { startDate: end, endDate: next });

    await waitForEvent(world.store, first.leaseId, 'Lease.Started');
    expect(world.cloud.nova.aggregatesOf('host1')).toEqual([first.reservationId]);
    const firstEvents = await waitForEvent(world.store, first.leaseId, 'Lease.Ended');
    const secondEvents = await waitForEvent(world.store, second.leaseId, 'Lease.Ended');

    const measured = [
      lateness(firstEvents, 'Lease.StartRequested', start),
      lateness(firstEvents, 'Lease.EndRequested', end),
      lateness(secondEvents, 'Lease.StartRequested', end),
      lateness(secondEvents, 'Lease.EndRequested', next),
    ];
    console.info(`timer lateness (ms): ${measured.join(', ')}`);
    for (const value of measured) expect(value).toBeGreaterThanOrEqual(0);
    for (const value of measured) expect(value).toBeLessThan(1000);
    expect(position(firstEvents, 'Lease.Ended')).toBeLessThan(position(secondEvents, 'Lease.StartRequested'));
    expect(typesOf(secondEvents)).toContain('Lease.Started');
    expect(world.cloud.nova.aggregatesOf('host1')).toEqual(['freepool']);
    expect(world.cloud.nova.getAggregate(first.reservationId)).toBeNull();
  });

  it('catches up after downtime: overdue phases run in order, an ending lease frees its host before the next start', async () => {
    const now = Date.now();
    const past = await createLease(world.store, {
      startDate: atSecond(now - 30_000),
      beforeEndDate: atSecond(now - 25_000),
      endDate: atSecond(now - 20_000),
      beforeEnd: 'snapshot',
      now: aMinuteAgo(),
    });
    const following = await createLease(world.store, {
      startDate: atSecond(now - 20_000),
      endDate: atSecond(now + HOUR),
      now: aMinuteAgo(),
    });
    const started = await createLease(world.store, {
      startDate: atSecond(now - 10_000),
      endDate: atSecond(now + HOUR),
      hostIds: ['2'],
      now: aMinuteAgo(),
    });

    await world.startReactor();
    const pastEvents = await waitForEvent(world.store, past.leaseId, 'Lease.Ended');
    const followingEvents = await waitForEvent(world.store, following.leaseId, 'Lease.Started');
    await waitForEvent(world.store, started.leaseId, 'Lease.Started');

    expect(typesOf(pastEvents)).toEqual([
      'Lease.Created',
      ...['Lease.StartRequested', 'Reservation.EffectsApplied', 'Lease.Started'],
      ...['Lease.BeforeEndRequested', 'Reservation.EffectsApplied', 'Lease.BeforeEndCompleted'],
      ...['Lease.EndRequested', 'Reservation.EffectsApplied', 'Lease.Ended'],
    ]);
    const snapshot = pastEvents.find(
      (e) => e.type === 'Reservation.EffectsApplied' && (e.data as { phase: string }).phase === 'before_end',
    );
    expect((snapshot?.data as { effects: unknown }).effects).toEqual([{ operation: 'servers.snapshot', host: 'host1', servers: 0 }]);
    expect(position(pastEvents, 'Lease.Ended')).toBeLessThan(position(followingEvents, 'Lease.StartRequested'));
    expect(world.cloud.nova.aggregatesOf('host1')).toEqual([following.reservationId]);
    expect(world.cloud.nova.aggregatesOf('host2')).toEqual([started.reservationId]);
  });

  it('completes a start begun before a crash exactly once, finishing the effects left half done', async () => {
    const now = Date.now();
    const lease = await createLease(world.store, { startDate: atSecond(now - 5000), endDate: atSecond(now + HOUR), now: aMinuteAgo() });
    await decideAndAppend(world.store, lease.leaseId, {
      type: 'BeginLeasePhase',
      data: { leaseId: lease.leaseId, phase: 'start', now: new Date().toISOString() },
    });
    world.cloud.nova.ensureAggregate(lease.reservationId, {
      availabilityZone: `blazar_${lease.reservationId}`,
      metadata: { 'blazar:owner': 'project-1' },
    });
    world.cloud.nova.addHost(lease.reservationId, 'host1');

    await world.startReactor();
    await waitForEvent(world.store, lease.leaseId, 'Lease.Started');
    await world.stopReactors();

    const events = await leaseEvents(world.store, lease.leaseId);
    expect(typesOf(events)).toEqual(['Lease.Created', 'Lease.StartRequested', 'Reservation.EffectsApplied', 'Lease.Started']);
    const applied = find(events, 'Reservation.EffectsApplied');
    const begin = find(events, 'Lease.StartRequested');
    expect(applied.metadata).toMatchObject({
      correlationId: `test-${lease.leaseId}`,
      causationId: begin.id,
      actor: null,
      reaction: 'complete-lease-phase',
    });
    expect((applied.data as { effects: unknown[] }).effects).toContainEqual({
      operation: 'aggregate.add_host',
      aggregate: lease.reservationId,
      host: 'host1',
      already: true,
    });
  });

  it('completes a start begun before the wall clock stepped back, without waiting for the clock to reach the start again', async () => {
    const now = Date.now();
    const lease = await createLease(world.store, { startDate: atSecond(now - 5000), endDate: atSecond(now + HOUR), now: aMinuteAgo() });
    await decideAndAppend(world.store, lease.leaseId, {
      type: 'BeginLeasePhase',
      data: { leaseId: lease.leaseId, phase: 'start', now: new Date().toISOString() },
    });

    await world.startReactor({ clock: () => new Date(Date.now() - 2 * HOUR) });
    await waitForEvent(world.store, lease.leaseId, 'Lease.Started');
    await world.stopReactors();

    const events = await leaseEvents(world.store, lease.leaseId);
    expect(typesOf(events)).toEqual(['Lease.Created', 'Lease.StartRequested', 'Reservation.EffectsApplied', 'Lease.Started']);
    expect(world.cloud.nova.aggregatesOf('host1')).toEqual([lease.reservationId]);
  });

  it('runs the whole life of a lease whose end was moved onto its start before another lease starting then takes its host', async () => {
    const now = Date.now();
    const at = atSecond(now + 2000);
    // ids that put the other lease first when two starts of one instant are ordered by id alone
    const instant = await createLease(world.store, {
      leaseId: 'ffffffff-0000-4000-8000-000000000000',
      startDate: at,
      endDate: atSecond(now + HOUR),
    });
    const endNow = {
      leaseId: instant.leaseId,
      name: null,
      startDate: null,
      endDate: at,
      beforeEndDate: null,
      reservationIds: [],
      reservations: [],
      now: new Date().toISOString(),
    };
    await decideAndAppend(world.store, instant.leaseId, { type: 'UpdateLease', data: endNow });
    const next = await createLease(world.store, {
      leaseId: '00000000-0000-4000-8000-000000000000',
      startDate: at,
      endDate: atSecond(now + HOUR),
    });

    await world.startReactor();
    const nextEvents = await waitForEvent(world.store, next.leaseId, 'Lease.Started');
    const instantEvents = await waitForEvent(world.store, instant.leaseId, 'Lease.Ended');

    expect(typesOf(instantEvents)).toEqual([
      'Lease.Created',
      'Lease.Rescheduled',
      ...['Lease.StartRequested', 'Reservation.EffectsApplied', 'Lease.Started'],
      ...['Lease.EndRequested', 'Reservation.EffectsApplied', 'Lease.Ended'],
    ]);
    expect(position(instantEvents, 'Lease.Ended')).toBeLessThan(position(nextEvents, 'Lease.StartRequested'));
    expect(typesOf(nextEvents)).not.toContain('Lease.StartFailed');
    expect(world.cloud.nova.aggregatesOf('host1')).toEqual([next.reservationId]);
  });

  it("starts a lease on a host healing took from an active lease only once that lease's owed update gave it back, though the start is due first and the update is retried", async () => {
    const healed = await createLease(world.store, {
      startDate: atSecond(Date.now() - 30_000),
      endDate: atSecond(Date.now() + HOUR),
      now: aMinuteAgo(),
    });
    await world.startReactor();
    const [created] = await waitForEvent(world.store, healed.leaseId, 'Lease.Started');
    await world.stopReactors();
    // while the reactor is down, host1 fails and healing moves the reservation to host2 (the ledger frees host1 at once) ...
    const [held] = (created?.data as { reservations: HostReservation[] }).reservations;
    const reservation = { ...(held as HostReservation), hostIds: ['2'] };
    const heal = {
      leaseId: healed.leaseId,
      reservation,
      replacements: [{ hostId: '1', by: ['2'] }],
      unhealedHostIds: [],
      now: new Date().toISOString(),
    };
    await decideAndAppend(world.store, healed.leaseId, { type: 'HealReservation', data: heal });
    // ... host1 comes back, and a lease takes it from the minute's start (what "now" is), before the healing's date
    const taker = await createLease(world.store, {
      startDate: atSecond(Date.now() - 20_000),
      endDate: atSecond(Date.now() + HOUR),
      now: aMinuteAgo(),
    });
    let failures = 0;
    const wrap = (effects: EffectsRegistry): EffectsRegistry => {
      const inner = effects['physical:host'];
      const onUpdate = async (context: EffectContext, updated: HostReservation) => {
        if (context.leaseId === healed.leaseId && failures++ === 0) throw new Error('compute API unavailable');
        return inner.onUpdate(context, updated);
      };
      const host = {
        onStart: inner.onStart.bind(inner),
        beforeEnd: inner.beforeEnd.bind(inner),
        onEnd: inner.onEnd.bind(inner),
        onUpdate,
        leftovers: inner.leftovers.bind(inner),
      };
      return { ...effects, 'physical:host': host };
    };
    await world.startReactor({ wrap, retryBaseMs: 200 });

    const takerEvents = await waitFor(
      () => leaseEvents(world.store, taker.leaseId),
      (events) => events.some((event) => event.type === 'Lease.Started' || event.type === 'Lease.StartFailed'),
    );
    expect(typesOf(takerEvents)).toEqual(['Lease.Created', 'Lease.StartRequested', 'Reservation.EffectsApplied', 'Lease.Started']);
    expect(position(await leaseEvents(world.store, healed.leaseId), 'Reservation.UpdateApplied')).toBeLessThan(
      position(takerEvents, 'Lease.StartRequested'),
    );
    expect(failures).toBe(2);
    expect(world.cloud.nova.aggregatesOf('host1')).toEqual([taker.reservationId]);
    expect(world.cloud.nova.aggregatesOf('host2')).toEqual([healed.reservationId]);
  });

  it('runs every phase of every lease once when two reactors share the store', async () => {
    const now = Date.now();
    const overdue = await createLease(world.store, { startDate: atSecond(now - 5000), endDate: atSecond(now + 3000), now: aMinuteAgo() });
    const upcoming = await createLease(world.store, { startDate: atSecond(now + 2000), endDate: atSecond(now + 4000), hostIds: ['2'] });
    await Promise.all([world.startReactor(), world.startReactor()]);
    await waitForEvent(world.store, overdue.leaseId, 'Lease.Ended');
    await waitForEvent(world.store, upcoming.leaseId, 'Lease.Ended');
    await world.stopReactors();

    for (const lease of [overdue, upcoming]) {
      const events = await leaseEvents(world.store, lease.leaseId);
      const phased = events.map((e) => `${e.type}${e.type.startsWith('Reservation.') ? `:${(e.data as { phase: string }).phase}` : ''}`);
      expect(phased).toEqual([
        'Lease.Created',
        ...['Lease.StartRequested', 'Reservation.EffectsApplied:start', 'Lease.Started'],
        ...['Lease.EndRequested', 'Reservation.EffectsApplied:end', 'Lease.Ended'],
      ]);
    }
    expect(world.logs.filter((entry) => entry.event === 'start')).toHaveLength(2);
  });

  it('records a failed start, moves nothing, and still ends the lease at its end date', async () => {
    world.cloud.nova.ensureAggregate('maintenance', { availabilityZone: null, metadata: {} });
    world.cloud.nova.addHost('maintenance', 'host1');
    await world.startReactor();
    const start = atSecond(Date.now() + 2000);
    const end = atSecond(ms(start) + 2000);
    const lease = await createLease(world.store, { startDate: start, endDate: end });

    const events = await waitForEvent(world.store, lease.leaseId, 'Lease.Ended');
    expect(typesOf(events)).toEqual([
      'Lease.Created',
      ...['Lease.StartRequested', 'Reservation.EffectsFailed', 'Lease.StartFailed'],
      ...['Lease.EndRequested', 'Reservation.EffectsApplied', 'Lease.Ended'],
    ]);
    expect(find(events, 'Reservation.EffectsFailed').data).toMatchObject({ phase: 'start', error: 'Host host1 is not in the freepool' });
    expect(find(events, 'Lease.StartFailed').data).toMatchObject({ reason: `${lease.reservationId}: Host host1 is not in the freepool` });
    expect(lateness(events, 'Lease.EndRequested', end)).toBeLessThan(1000);
    expect(world.cloud.nova.aggregatesOf('host1')).toEqual(['maintenance']);
    expect(world.cloud.nova.getAggregate(lease.reservationId)).toBeNull();
  });

  it('ends a lease deleted while active and returns its host to the freepool', async () => {
    await world.startReactor();
    const lease = await createLease(world.store, {
      startDate: atSecond(Date.now() - 1000),
      endDate: atSecond(Date.now() + HOUR),
      now: aMinuteAgo(),
    });
    await waitForEvent(world.store, lease.leaseId, 'Lease.Started');
    expect(world.cloud.nova.aggregatesOf('host1')).toEqual([lease.reservationId]);

    await decideAndAppend(world.store, lease.leaseId, {
      type: 'DeleteLease',
      data: { leaseId: lease.leaseId, now: new Date().toISOString() },
    });
    const events = await waitForEvent(world.store, lease.leaseId, 'Lease.Ended');
    expect(typesOf(events).slice(4)).toEqual(['Lease.EndRequested', 'Lease.Deleted', 'Reservation.EffectsApplied', 'Lease.Ended']);
    expect(world.cloud.nova.aggregatesOf('host1')).toEqual(['freepool']);
    expect(world.cloud.nova.getAggregate(lease.reservationId)).toBeNull();
  });

  it('retries a transient effects failure with backoff, without holding up other leases, and records one outcome', async () => {
    const failing = await createLease(world.store, {
      startDate: atSecond(Date.now() - 2000),
      endDate: atSecond(Date.now() + HOUR),
      now: aMinuteAgo(),
    });
    const other = await createLease(world.store, {
      startDate: atSecond(Date.now() - 1000),
      endDate: atSecond(Date.now() + HOUR),
      hostIds: ['2'],
      now: aMinuteAgo(),
    });
    let failures = 0;
    const wrap = (effects: EffectsRegistry): EffectsRegistry => {
      const inner = effects['physical:host'];
      const onStart = async (context: EffectContext, reservation: HostReservation) => {
        if (context.leaseId === failing.leaseId && failures < 2) {
          failures += 1;
          throw new Error('compute API unavailable');
        }
        return inner.onStart(context, reservation);
      };
      const host = {
        onStart,
        beforeEnd: inner.beforeEnd.bind(inner),
        onEnd: inner.onEnd.bind(inner),
        onUpdate: inner.onUpdate.bind(inner),
        leftovers: inner.leftovers.bind(inner),
      };
      return { ...effects, 'physical:host': host };
    };
    await world.startReactor({ wrap });

    const events = await waitForEvent(world.store, failing.leaseId, 'Lease.Started');
    const otherEvents = await leaseEvents(world.store, other.leaseId);
    expect(typesOf(events)).toEqual(['Lease.Created', 'Lease.StartRequested', 'Reservation.EffectsApplied', 'Lease.Started']);
    const retries = world.logs.filter((entry) => entry.event === 'retry' && entry.leaseId === failing.leaseId);
    expect(retries.map((entry) => entry.inMs)).toEqual([1000, 2000]);
    expect(position(otherEvents, 'Lease.Started')).toBeLessThan(position(events, 'Reservation.EffectsApplied'));
  });
});
