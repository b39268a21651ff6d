import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EffectRecord } from '#domain/index.js';
import type { EffectContext, EffectsRegistry } from '#plugins/effects.port.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { reservationResourceClass } from '#plugins/instance/standalone/instance.standalone-effects.js';
import type { FloatingIpReservation } from '#plugins/floating-ip/floating-ip.reservation.js';
import {
  World,
  atSecond,
  createLease,
  floatingIpReservation,
  instanceReservation,
  leaseEvents,
  registerHosts,
  typesOf,
  waitForEvent,
} from './reactor.fixtures.js';

const HOUR = 3_600_000;
const NET = 'net-public';
const aMinuteAgo = (): string => new Date(Date.now() - 60_000).toISOString();
const effectsOf = (event: RecordedEvent): readonly EffectRecord[] => (event.data as { effects: readonly EffectRecord[] }).effects;

let world: World;

beforeEach(async () => {
  world = new World();
  await registerHosts(world.store, ['host1', 'host2']);
});

afterEach(async () => {
  await world.close();
});

/** An instance lease (2 slots on host1, 1 on host2) and a floating-IP lease, both started a moment ago. */
const activeLeases = async () => {
  const window = { startDate: atSecond(Date.now() - 1000), endDate: atSecond(Date.now() + HOUR), now: aMinuteAgo() };
  const instances = await createLease(world.store, {
    ...window,
    reservation: instanceReservation([
      { hostId: '1', count: 2 },
      { hostId: '2', count: 1 },
    ]),
  });
  const addresses = await createLease(world.store, { ...window, reservation: floatingIpReservation(NET, ['172.24.4.10', '172.24.4.11']) });
  await waitForEvent(world.store, instances.leaseId, 'Lease.Started');
  await waitForEvent(world.store, addresses.leaseId, 'Lease.Started');
  return { instances, addresses };
};

describe('reconciliation of active reservations with the (standalone) cloud', () => {
  it('records nothing while the cloud matches the ledger', async () => {
    const reactor = await world.startReactor();
    const { instances, addresses } = await activeLeases();
    const before = [(await leaseEvents(world.store, instances.leaseId)).length, (await leaseEvents(world.store, addresses.leaseId)).length];
    expect(await reactor.reconcileOnce()).toEqual({ checked: 2, drifted: 0, failed: 0, skipped: 0 });
    expect([
      (await leaseEvents(world.store, instances.leaseId)).length,
      (await leaseEvents(world.store, addresses.leaseId)).length,
    ]).toEqual(before);
  });

  it('finds drift, repairs it, records exactly the repairing steps, and is clean the next round', async () => {
    const reactor = await world.startReactor();
    const { instances, addresses } = await activeLeases();
    const rc = reservationResourceClass(instances.reservationId);
    // behind the ledger's back: an inventory deleted, a reserved address released
    const host2 = world.cloud.placement.getResourceProvider('blazar_host2');
    expect(host2).not.toBeNull();
    world.cloud.placement.deleteInventory(host2?.uuid ?? '', rc);
    const released = world.cloud.neutron.findFloatingIp(NET, '172.24.4.11');
    world.cloud.neutron.deleteFloatingIp(released?.id ?? '');

    expect(await reactor.reconcileOnce()).toEqual({ checked: 2, drifted: 2, failed: 0, skipped: 0 });

    const instanceEvents = await leaseEvents(world.store, instances.leaseId);
    expect(typesOf(instanceEvents).at(-1)).toBe('Reservation.DriftRepaired');
    expect(effectsOf(instanceEvents.at(-1) as RecordedEvent)).toEqual([
      { operation: 'inventory.set', resource_provider: 'blazar_host2', resource_class: rc, total: 1 },
    ]);
    expect(instanceEvents.at(-1)?.metadata).toMatchObject({ actor: null, reaction: 'reconcile' });
    const addressEvents = await leaseEvents(world.store, addresses.leaseId);
    expect(effectsOf(addressEvents.at(-1) as RecordedEvent)).toEqual([
      expect.objectContaining({ operation: 'floatingip.create', address: '172.24.4.11', project_id: 'project-1' }),
    ]);
    // the cloud is back in line
    expect(world.cloud.placement.getInventory(host2?.uuid ?? '', rc)?.total).toBe(1);
    expect(world.cloud.neutron.findFloatingIp(NET, '172.24.4.11')?.tags).toContain(`reservation:${addresses.reservationId}`);
    // and the next round is clean
    expect(await reactor.reconcileOnce()).toEqual({ checked: 2, drifted: 0, failed: 0, skipped: 0 });
  });

  it('records a failure with the cloud error when the drift cannot be repaired', async () => {
    const reactor = await world.startReactor();
    const { instances } = await activeLeases();
    // the reservation's aggregate is gone: the converge cannot put hosts back into it
    for (const host of world.cloud.nova.membersOf(instances.reservationId)) world.cloud.nova.removeHost(instances.reservationId, host);
    world.cloud.nova.deleteAggregate(instances.reservationId);
    const report = await reactor.reconcileOnce();
    expect(report).toMatchObject({ failed: 1 });
    const failed = (await leaseEvents(world.store, instances.leaseId)).at(-1);
    expect(failed?.type).toBe('Reservation.ReconciliationFailed');
    expect((failed?.data as { error: string }).error).toMatch(/aggregate/i);
  });

  it('two reactors reconciling in the same round record a finding once', async () => {
    const first = await world.startReactor({ reconcileIntervalMs: HOUR });
    const second = await world.startReactor({ reconcileIntervalMs: HOUR });
    const { addresses } = await activeLeases();
    const released = world.cloud.neutron.findFloatingIp(NET, '172.24.4.10');
    world.cloud.neutron.deleteFloatingIp(released?.id ?? '');
    await Promise.all([first.reconcileOnce(), second.reconcileOnce()]);
    const events = await leaseEvents(world.store, addresses.leaseId);
    expect(typesOf(events).filter((type) => type === 'Reservation.DriftRepaired')).toHaveLength(1);
  });

  it('does not put back the addresses of a lease whose end ran while the round checked another lease', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = '';
    /** The check of the first lease waits at the gate; everything else runs as it is. */
    const slowFirstCheck = (effects: EffectsRegistry): EffectsRegistry => {
      const inner = effects['virtual:floatingip'];
      const adapter = {
        onStart: inner.onStart.bind(inner),
        beforeEnd: inner.beforeEnd.bind(inner),
        onEnd: inner.onEnd.bind(inner),
        leftovers: inner.leftovers.bind(inner),
      };
      const onUpdate = async (context: EffectContext, reservation: FloatingIpReservation): Promise<readonly EffectRecord[]> => {
        if (held === '' || held === reservation.id) {
          held = reservation.id;
          await gate;
        }
        return inner.onUpdate(context, reservation);
      };
      return { ...effects, 'virtual:floatingip': { ...adapter, onUpdate } };
    };
    const reactor = await world.startReactor({ wrap: slowFirstCheck });
    const started = atSecond(Date.now() - 1000);
    const first = await createLease(world.store, {
      startDate: started,
      endDate: atSecond(Date.now() + HOUR),
      reservation: floatingIpReservation(NET, ['172.24.4.10']),
      now: aMinuteAgo(),
    });
    const ending = await createLease(world.store, {
      startDate: started,
      endDate: atSecond(Date.now() + 3_000),
      reservation: floatingIpReservation(NET, ['172.24.4.11']),
      now: aMinuteAgo(),
    });
    await waitForEvent(world.store, first.leaseId, 'Lease.Started');
    await waitForEvent(world.store, ending.leaseId, 'Lease.Started');

    // the round lists both leases, then waits on the first while the second ends and releases its address
    const round = reactor.reconcileOnce();
    await waitForEvent(world.store, ending.leaseId, 'Lease.Ended');
    expect(held).toBe(first.reservationId);
    expect(world.cloud.neutron.findFloatingIp(NET, '172.24.4.11')).toBeNull();
    release();

    const report = await round;
    expect(world.cloud.neutron.findFloatingIp(NET, '172.24.4.11'), "the ended lease's address, put back").toBeNull();
    expect(report).toEqual({ checked: 1, drifted: 0, failed: 0, skipped: 1 });
    expect(typesOf(await leaseEvents(world.store, ending.leaseId)).at(-1)).toBe('Lease.Ended');
  });
});
