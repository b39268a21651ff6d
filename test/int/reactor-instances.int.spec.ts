import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EffectRecord } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { EffectContext, EffectsRegistry } from '#plugins/effects.port.js';
import { StandaloneInstanceEffects, reservationResourceClass } from '#plugins/instance/standalone/instance.standalone-effects.js';
import type { VirtualInstanceReservation } from '#plugins/instance/instance.reservation.js';
import {
  World,
  atSecond,
  changeReservation,
  createLease,
  find,
  floatingIpReservation,
  instanceReservation,
  leaseEvents,
  registerHosts,
  typesOf,
  waitFor,
  waitForEvent,
} from './reactor.fixtures.js';

const HOUR = 3_600_000;
const NET = 'net-public';
const ms = (iso: string): number => Date.parse(iso);
const aMinuteAgo = (): string => new Date(Date.now() - 60_000).toISOString();
const effectsOf = (event: RecordedEvent): readonly EffectRecord[] => (event.data as { effects: readonly EffectRecord[] }).effects;
const appliedAt = (events: readonly RecordedEvent[], phase: string): RecordedEvent => {
  const found = events.find((e) => e.type === 'Reservation.EffectsApplied' && (e.data as { phase: string }).phase === phase);
  if (found === undefined) throw new Error(`no ${phase} effects in ${typesOf(events).join(', ')}`);
  return found;
};
const updatesOf = (events: readonly RecordedEvent[]): number[] =>
  events.filter((e) => e.type === 'Reservation.UpdateApplied').map((e) => (e.data as { sequence: number }).sequence);

let world: World;

/** Inventory totals of the reservation's class on the fake Placement, by provider name. */
const totals = (reservationId: string): Record<string, number> =>
  Object.fromEntries(
    world.cloud.placement
      .providersWithInventory(reservationResourceClass(reservationId))
      .map(({ provider, inventory }) => [provider.name, inventory.total]),
  );

const addresses = (reservationId: string): string[] =>
  world.cloud.neutron.floatingIpsTagged(`reservation:${reservationId}`).map((fip) => `${fip.projectId} ${fip.floatingIpAddress}`);

beforeEach(async () => {
  world = new World();
  await registerHosts(world.store, ['host1', 'host2']);
});

afterEach(async () => {
  await world.close();
});

describe('reactor with instance and floating-IP reservations (standalone effects, real SQLite store)', () => {
  it('gives an instance lease its flavor, group, aggregate and inventory exactly while it lasts', async () => {
    await world.startReactor();
    const start = atSecond(Date.now() + 2000);
    const end = atSecond(ms(start) + 2000);
    const reservation = instanceReservation([
      { hostId: '1', count: 2 },
      { hostId: '2', count: 1 },
    ]);
    const lease = await createLease(world.store, { startDate: start, endDate: end, reservation });
    const id = lease.reservationId;
    expect(world.cloud.nova.getFlavor(id)).toBeNull();

    const started = await waitForEvent(world.store, lease.leaseId, 'Lease.Started');
    expect(world.cloud.nova.getFlavor(id)).toMatchObject({ name: `reservation:${id}`, isPublic: false, vcpus: 1, ram: 1024, disk: 10 });
    expect(world.cloud.nova.flavorAccess(id)).toEqual(['project-1']);
    expect(world.cloud.nova.membersOf(id)).toEqual(['host1', 'host2']);
    expect(totals(id)).toEqual({ blazar_host1: 2, blazar_host2: 1 });
    const group = world.cloud.nova.findServerGroup('project-1', `reservation:${id}`);
    expect(group?.policy).toBe('anti-affinity');
    const startEffects = effectsOf(appliedAt(started, 'start'));
    expect(startEffects).toContainEqual(
      expect.objectContaining({ operation: 'aggregate.create', aggregate: id, aggregate_id: world.cloud.nova.getAggregate(id)?.id }),
    );
    expect(startEffects).toContainEqual(expect.objectContaining({ operation: 'server_group.create', server_group_id: group?.id }));

    const ended = await waitForEvent(world.store, lease.leaseId, 'Lease.Ended');
    expect(typesOf(ended)).toEqual([
      'Lease.Created',
      ...['Lease.StartRequested', 'Reservation.EffectsApplied', 'Lease.Started'],
      ...['Lease.EndRequested', 'Reservation.EffectsApplied', 'Lease.Ended'],
    ]);
    expect(world.cloud.nova.getFlavor(id)).toBeNull();
    expect(world.cloud.nova.findServerGroup('project-1', `reservation:${id}`)).toBeNull();
    expect(world.cloud.nova.getAggregate(id)).toBeNull();
    expect(totals(id)).toEqual({});
    expect(world.cloud.placement.resourceClassExists(reservationResourceClass(id))).toBe(false);
  });

  it("gives a floating-IP lease its addresses in the lease's project exactly while it lasts, and hands one over back to back", async () => {
    await world.startReactor();
    const start = atSecond(Date.now() + 2000);
    const end = atSecond(ms(start) + 2000);
    const lease = await createLease(world.store, {
      startDate: start,
      endDate: end,
      reservation: floatingIpReservation(NET, ['172.24.4.10', '172.24.4.11']),
    });
    const next = await createLease(world.store, {
      startDate: end,
      endDate: atSecond(ms(end) + HOUR),
      reservation: floatingIpReservation(NET, ['172.24.4.11']),
    });
    expect(addresses(lease.reservationId)).toEqual([]);

    const started = await waitForEvent(world.store, lease.leaseId, 'Lease.Started');
    expect(addresses(lease.reservationId)).toEqual(['project-1 172.24.4.10', 'project-1 172.24.4.11']);
    expect(effectsOf(appliedAt(started, 'start')).map((record) => record.operation)).toEqual(['floatingip.create', 'floatingip.create']);

    const ended = await waitForEvent(world.store, lease.leaseId, 'Lease.Ended');
    expect(effectsOf(appliedAt(ended, 'end')).map((record) => record.operation)).toEqual([
      'floatingip.disassociate',
      'floatingip.delete',
      'floatingip.disassociate',
      'floatingip.delete',
    ]);
    expect(addresses(lease.reservationId)).toEqual([]);
    const nextEvents = await waitForEvent(world.store, next.leaseId, 'Lease.Started');
    expect(find(ended, 'Lease.Ended').position).toBeLessThan(find(nextEvents, 'Lease.StartRequested').position);
    expect(addresses(next.reservationId)).toEqual(['project-1 172.24.4.11']);
  });

  it("acts out an active instance reservation's amount increase and records it as applied", async () => {
    await world.startReactor();
    const initial = instanceReservation([{ hostId: '1', count: 1 }]);
    const lease = await createLease(world.store, {
      startDate: atSecond(Date.now() - 1000),
      endDate: atSecond(Date.now() + HOUR),
      reservation: initial,
      now: aMinuteAgo(),
    });
    await waitForEvent(world.store, lease.leaseId, 'Lease.Started');
    const id = lease.reservationId;
    expect(totals(id)).toEqual({ blazar_host1: 1 });

    await changeReservation(
      world.store,
      lease.leaseId,
      instanceReservation([
        { hostId: '1', count: 3 },
        { hostId: '2', count: 2 },
      ])(id),
    );
    const events = await waitForEvent(world.store, lease.leaseId, 'Reservation.UpdateApplied');
    expect(typesOf(events).slice(4)).toEqual(['Reservation.Changed', 'Reservation.UpdateApplied']);
    const applied = find(events, 'Reservation.UpdateApplied');
    expect(applied.data).toMatchObject({ leaseId: lease.leaseId, reservationId: id, sequence: 1 });
    const rc = reservationResourceClass(id);
    expect(effectsOf(applied)).toEqual([
      { operation: 'aggregate.add_host', aggregate: id, host: 'host1', already: true },
      { operation: 'inventory.set', resource_provider: 'blazar_host1', resource_class: rc, total: 3 },
      { operation: 'aggregate.add_host', aggregate: id, host: 'host2' },
      { operation: 'resource_provider.create', resource_provider: 'blazar_host2', host: 'host2' },
      { operation: 'inventory.set', resource_provider: 'blazar_host2', resource_class: rc, total: 2 },
    ]);
    expect(applied.metadata).toMatchObject({
      causationId: find(events, 'Reservation.Changed').id,
      actor: null,
      reaction: 'complete-reservation-updates',
    });
    expect(totals(id)).toEqual({ blazar_host1: 3, blazar_host2: 2 });
    expect(world.cloud.nova.membersOf(id)).toEqual(['host1', 'host2']);
  });

  it('creates the addresses an active floating-IP reservation gained', async () => {
    await world.startReactor();
    const lease = await createLease(world.store, {
      startDate: atSecond(Date.now() - 1000),
      endDate: atSecond(Date.now() + HOUR),
      reservation: floatingIpReservation(NET, ['172.24.4.10']),
      now: aMinuteAgo(),
    });
    await waitForEvent(world.store, lease.leaseId, 'Lease.Started');
    await changeReservation(world.store, lease.leaseId, floatingIpReservation(NET, ['172.24.4.10', '172.24.4.12'])(lease.reservationId));
    const events = await waitForEvent(world.store, lease.leaseId, 'Reservation.UpdateApplied');
    expect(
      effectsOf(find(events, 'Reservation.UpdateApplied')).map(
        (r) => `${r.operation} ${String(r.address)}${r.already === true ? ' (already)' : ''}`,
      ),
    ).toEqual(['floatingip.create 172.24.4.10 (already)', 'floatingip.create 172.24.4.12']);
    expect(addresses(lease.reservationId)).toEqual(['project-1 172.24.4.10', 'project-1 172.24.4.12']);
  });

  it('records an update whose effects were done before a crash once, finding them done', async () => {
    const lease = await createLease(world.store, {
      startDate: atSecond(Date.now() - 1000),
      endDate: atSecond(Date.now() + HOUR),
      reservation: instanceReservation([{ hostId: '1', count: 1 }]),
      now: aMinuteAgo(),
    });
    await world.startReactor();
    await waitForEvent(world.store, lease.leaseId, 'Lease.Started');
    await world.stopReactors();
    const grown = instanceReservation([{ hostId: '1', count: 2 }])(lease.reservationId);
    await changeReservation(world.store, lease.leaseId, grown);
    const context = {
      idempotencyKey: 'crashed',
      leaseId: lease.leaseId,
      projectId: 'project-1',
      phase: 'update',
      resourceNames: { '1': 'host1' },
    } as const;
    await new StandaloneInstanceEffects(world.cloud).onUpdate(context, grown);

    await world.startReactor();
    const events = await waitForEvent(world.store, lease.leaseId, 'Reservation.UpdateApplied');
    await world.stopReactors();
    expect(updatesOf(await leaseEvents(world.store, lease.leaseId))).toEqual([1]);
    expect(effectsOf(find(events, 'Reservation.UpdateApplied')).every((record) => record.already === true)).toBe(true);
    expect(totals(lease.reservationId)).toEqual({ blazar_host1: 2 });
  });

  it('records each update exactly once when two reactors share the store', async () => {
    await Promise.all([world.startReactor(), world.startReactor()]);
    const past = { startDate: atSecond(Date.now() - 1000), endDate: atSecond(Date.now() + HOUR), now: aMinuteAgo() };
    const instances = await createLease(world.store, { ...past, reservation: instanceReservation([{ hostId: '1', count: 1 }]) });
    const fips = await createLease(world.store, { ...past, reservation: floatingIpReservation(NET, ['172.24.4.10']) });
    await waitForEvent(world.store, instances.leaseId, 'Lease.Started');
    await waitForEvent(world.store, fips.leaseId, 'Lease.Started');

    for (let count = 2; count <= 4; count++) {
      await changeReservation(
        world.store,
        instances.leaseId,
        instanceReservation([
          { hostId: '1', count },
          { hostId: '2', count: count - 1 },
        ])(instances.reservationId),
      );
      await changeReservation(
        world.store,
        fips.leaseId,
        floatingIpReservation(NET, ['172.24.4.10', `172.24.4.${10 + count}`])(fips.reservationId),
      );
      const recorded = (events: readonly RecordedEvent[]): boolean => updatesOf(events).includes(count - 1);
      await waitFor(() => leaseEvents(world.store, instances.leaseId), recorded);
      await waitFor(() => leaseEvents(world.store, fips.leaseId), recorded);
    }
    await world.stopReactors();

    for (const lease of [instances, fips]) {
      const events = await leaseEvents(world.store, lease.leaseId);
      expect(typesOf(events)).toEqual([
        'Lease.Created',
        ...['Lease.StartRequested', 'Reservation.EffectsApplied', 'Lease.Started'],
        ...['Reservation.Changed', 'Reservation.UpdateApplied'],
        ...['Reservation.Changed', 'Reservation.UpdateApplied'],
        ...['Reservation.Changed', 'Reservation.UpdateApplied'],
      ]);
      expect(updatesOf(events)).toEqual([1, 2, 3]);
    }
    expect(totals(instances.reservationId)).toEqual({ blazar_host1: 4, blazar_host2: 3 });
    expect(addresses(fips.reservationId)).toEqual(['project-1 172.24.4.10', 'project-1 172.24.4.14']);
    expect(world.logs.filter((entry) => entry.event === 'start')).toHaveLength(2);
  });

  it('after a burst of changes records the latest, none twice, and the cloud ends up as the latest says', async () => {
    await Promise.all([world.startReactor(), world.startReactor()]);
    const lease = await createLease(world.store, {
      startDate: atSecond(Date.now() - 1000),
      endDate: atSecond(Date.now() + HOUR),
      reservation: instanceReservation([{ hostId: '1', count: 1 }]),
      now: aMinuteAgo(),
    });
    await waitForEvent(world.store, lease.leaseId, 'Lease.Started');
    for (let count = 2; count <= 6; count++) {
      await changeReservation(world.store, lease.leaseId, instanceReservation([{ hostId: '2', count }])(lease.reservationId));
    }
    await waitFor(
      () => leaseEvents(world.store, lease.leaseId),
      (events) => updatesOf(events).includes(5),
    );
    await world.stopReactors();

    const outcomes = (await leaseEvents(world.store, lease.leaseId)).filter((e) => e.type.startsWith('Reservation.Update'));
    const sequences = outcomes.map((e) => (e.data as { sequence: number }).sequence);
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(sequences.at(-1)).toBe(5);
    expect(totals(lease.reservationId)).toEqual({ blazar_host2: 6 });
    expect(world.cloud.nova.membersOf(lease.reservationId)).toEqual(['host2']);
  });

  it('reapplies the latest change when its late effects of an older one landed after another reactor recorded a newer one', async () => {
    const lease = await createLease(world.store, {
      startDate: atSecond(Date.now() - 1000),
      endDate: atSecond(Date.now() + HOUR),
      reservation: instanceReservation([{ hostId: '1', count: 1 }]),
      now: aMinuteAgo(),
    });
    const id = lease.reservationId;
    let lateEntered = false;
    let lateApplied = false;
    const isChange1 = (reservation: VirtualInstanceReservation): boolean => reservation.allocations[0]?.count === 2;
    /** Reactor A takes change 1 but applies it only once reactor B has recorded change 2; B waits for A to have taken it. */
    const withUpdate =
      (
        onUpdate: (
          inner: EffectsRegistry['virtual:instance'],
          c: EffectContext,
          r: VirtualInstanceReservation,
        ) => Promise<readonly EffectRecord[]>,
      ) =>
      (effects: EffectsRegistry): EffectsRegistry => {
        const inner = effects['virtual:instance'];
        const adapter = {
          onStart: inner.onStart.bind(inner),
          beforeEnd: inner.beforeEnd.bind(inner),
          onEnd: inner.onEnd.bind(inner),
          leftovers: inner.leftovers.bind(inner),
        };
        return { ...effects, 'virtual:instance': { ...adapter, onUpdate: (c, r) => onUpdate(inner, c, r) } };
      };
    const late = withUpdate(async (inner, context, reservation) => {
      if (lateApplied || !isChange1(reservation)) return inner.onUpdate(context, reservation);
      lateEntered = true;
      await waitFor(
        () => leaseEvents(world.store, lease.leaseId),
        (events) => updatesOf(events).includes(2),
      );
      const records = await inner.onUpdate(context, reservation);
      lateApplied = true;
      return records;
    });
    const prompt = withUpdate(async (inner, context, reservation) => {
      if (isChange1(reservation))
        await waitFor(
          async () => lateEntered,
          (entered) => entered,
        );
      return inner.onUpdate(context, reservation);
    });
    await world.startReactor({ wrap: late });
    await world.startReactor({ wrap: prompt });
    await waitForEvent(world.store, lease.leaseId, 'Lease.Started');

    await changeReservation(world.store, lease.leaseId, instanceReservation([{ hostId: '1', count: 2 }])(id));
    await waitFor(
      () => leaseEvents(world.store, lease.leaseId),
      (events) => updatesOf(events).includes(1),
    );
    await changeReservation(world.store, lease.leaseId, instanceReservation([{ hostId: '1', count: 3 }])(id));
    await waitFor(
      async () => lateApplied && totals(id).blazar_host1 === 3,
      (converged) => converged,
    );
    await world.stopReactors();

    expect(updatesOf(await leaseEvents(world.store, lease.leaseId))).toEqual([1, 2]);
    expect(totals(id)).toEqual({ blazar_host1: 3 });
    expect(world.logs).toContainEqual(
      expect.objectContaining({ event: 'done', phase: 'update', result: `superseded; reapplied the latest change of ${id}` }),
    );
  });
});
