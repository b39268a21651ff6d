/**
 * Lease-end reclamation, checked: after a lease ended, the reactor's reconciliation round asks the
 * (standalone FAKE) cloud what of the lease is still there and records it on the lease once per finding.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LeftoverKind } from '#domain/index.js';
import { SqliteSnapshotStore } from '#event-store/snapshots/sqlite-snapshot-store.js';
import {
  World,
  atSecond,
  createLease,
  floatingIpReservation,
  leaseEvents,
  registerHosts,
  typesOf,
  waitForEvent,
} from './reactor.fixtures.js';

const MINUTE = 60_000;
const NET = 'net-public';

let world: World;

beforeEach(async () => {
  world = new World();
  await registerHosts(world.store, ['host1', 'host2']);
});

afterEach(async () => {
  await world.close();
});

/** A lease created three minutes ago for [2 minutes ago, 1 minute ago): the reactor starts and ends it at once. */
const pastWindow = () => ({
  startDate: atSecond(Date.now() - 2 * MINUTE),
  endDate: atSecond(Date.now() - MINUTE),
  now: new Date(Date.now() - 3 * MINUTE).toISOString(),
});

describe('what an ended lease left in the cloud', () => {
  it('records a leftover aggregate once, nothing on the next look, and its clearing when it is gone; the gauge follows', async () => {
    const seen: Record<LeftoverKind, number>[] = [];
    const reactor = await world.startReactor({ leftoversObserved: (counts) => seen.push({ ...counts }) });
    const lease = await createLease(world.store, pastWindow());
    await waitForEvent(world.store, lease.leaseId, 'Lease.Ended');
    expect(world.cloud.nova.getAggregate(lease.reservationId)).toBeNull();
    expect(await reactor.reclaimOnce()).toEqual({ checked: 1, leftovers: 0, recorded: 0, skipped: 0 });

    // behind the ledger's back, the reservation's aggregate is back (an operator's script, a half-failed end elsewhere)
    world.cloud.nova.ensureAggregate(lease.reservationId, { availabilityZone: null, metadata: {} });
    expect(await reactor.reclaimOnce()).toEqual({ checked: 1, leftovers: 1, recorded: 1, skipped: 0 });
    const found = (await leaseEvents(world.store, lease.leaseId)).at(-1);
    expect(found).toMatchObject({
      type: 'Lease.LeftoversFound',
      data: { leaseId: lease.leaseId, leftovers: [{ reservationId: lease.reservationId, kind: 'aggregate', id: lease.reservationId }] },
      metadata: { reaction: 'reclamation' },
    });
    expect(seen.at(-1)).toEqual({ server: 0, aggregate: 1, flavor: 0, floating_ip: 0, network: 0 });

    const before = (await leaseEvents(world.store, lease.leaseId)).length;
    expect(await reactor.reclaimOnce()).toMatchObject({ leftovers: 1, recorded: 0 });
    expect(await leaseEvents(world.store, lease.leaseId)).toHaveLength(before);

    world.cloud.nova.deleteAggregate(lease.reservationId);
    expect(await reactor.reclaimOnce()).toMatchObject({ leftovers: 0, recorded: 1 });
    expect(typesOf(await leaseEvents(world.store, lease.leaseId)).slice(-2)).toEqual(['Lease.LeftoversFound', 'Lease.LeftoversCleared']);
    expect(seen.at(-1)).toEqual({ server: 0, aggregate: 0, flavor: 0, floating_ip: 0, network: 0 });
  });

  it('names a floating IP still allocated under the reservation after its end', async () => {
    const reactor = await world.startReactor();
    const lease = await createLease(world.store, { ...pastWindow(), reservation: floatingIpReservation(NET, ['172.24.4.20']) });
    await waitForEvent(world.store, lease.leaseId, 'Lease.Ended');
    const { floatingIp } = world.cloud.neutron.ensureFloatingIp({
      floatingNetworkId: NET,
      floatingIpAddress: '172.24.4.20',
      projectId: 'project-1',
      tags: ['blazar', `reservation:${lease.reservationId}`],
    });
    expect(await reactor.reclaimOnce()).toMatchObject({ leftovers: 1, recorded: 1 });
    expect((await leaseEvents(world.store, lease.leaseId)).at(-1)?.data).toMatchObject({
      leftovers: [{ kind: 'floating_ip', id: floatingIp.id }],
    });
  });

  it('a reactor started after the end watches the lease too (the timeline hands over what finished while catching up)', async () => {
    await world.startReactor();
    const lease = await createLease(world.store, pastWindow());
    await waitForEvent(world.store, lease.leaseId, 'Lease.Ended');
    await world.stopReactors();
    world.cloud.nova.ensureAggregate(lease.reservationId, { availabilityZone: null, metadata: {} });
    const second = await world.startReactor();
    expect(await second.reclaimOnce()).toMatchObject({ checked: 1, recorded: 1 });
  });

  it('a reactor started from its snapshot watches the leases it watched (those are not folded again)', async () => {
    const snapshots = SqliteSnapshotStore.open(world.eventsFile);
    const config = { snapshots: { store: snapshots, config: { everyMs: 3_600_000, everyEvents: 1 } } };
    try {
      await world.startReactor(config);
      const lease = await createLease(world.store, pastWindow());
      await waitForEvent(world.store, lease.leaseId, 'Lease.Ended');
      await world.stopReactors();
      world.cloud.nova.ensureAggregate(lease.reservationId, { availabilityZone: null, metadata: {} });
      const second = await world.startReactor(config);
      expect(world.logs.filter((entry) => entry.event === 'start').at(-1)).toMatchObject({ snapshot: expect.any(Number) as unknown });
      expect(await second.reclaimOnce()).toMatchObject({ checked: 1, recorded: 1 });
    } finally {
      await world.stopReactors();
      await snapshots.close();
    }
  });

  it('leaves alone a lease that ended before the window', async () => {
    const reactor = await world.startReactor({ reclamationWindowMs: 30_000 });
    const lease = await createLease(world.store, pastWindow());
    await waitForEvent(world.store, lease.leaseId, 'Lease.Ended');
    world.cloud.nova.ensureAggregate(lease.reservationId, { availabilityZone: null, metadata: {} });
    expect(await reactor.reclaimOnce()).toEqual({ checked: 0, leftovers: 0, recorded: 0, skipped: 0 });
  });
});
