import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOST_CATEGORY, LEASE_CATEGORY } from '#domain/index.js';
import { encodeState, decodeState } from '#application/snapshots/state-codec.js';
import type { SnapshotStore } from '#event-store/snapshots/snapshot-store.port.js';
import { SqliteSnapshotStore } from '#event-store/snapshots/sqlite-snapshot-store.js';
import { LeaseTimeline, type TimelinePayload } from '#reactor/lease-timeline.js';
import { TIMELINE_SCHEMA_VERSION, TIMELINE_SNAPSHOT_KIND } from '#reactor/timeline-snapshots.js';
import { World, atSecond, createLease, leaseEvents, registerHosts, typesOf, waitForEvent } from './reactor.fixtures.js';

const SECOND = 1000;
/** Written at the reactor's stop (and once after its start), never on a timer during a test. */
const CONFIG = { everyMs: 3_600_000, everyEvents: 1 };

let world: World;
let hosts: string[];
let snapshots: SnapshotStore;

beforeEach(async () => {
  world = new World();
  hosts = await registerHosts(world.store, ['host1', 'host2', 'host3']);
  snapshots = SqliteSnapshotStore.open(world.eventsFile);
});

afterEach(async () => {
  await world.stopReactors();
  await snapshots.close();
  await world.close();
});

const startEntries = (): Record<string, unknown>[] => world.logs.filter((entry) => entry.event === 'start');

const count = (types: readonly string[], type: string): number => types.filter((t) => t === type).length;

describe('reactor started from its timeline snapshot', () => {
  it('starts from the snapshot its stop wrote and still runs every timer due, those of leases made while it was down included', async () => {
    const now = Date.now();
    await world.startReactor({ snapshots: { store: snapshots, config: CONFIG } });
    const ended = await createLease(world.store, {
      startDate: atSecond(now - 30 * SECOND),
      endDate: atSecond(now - 20 * SECOND),
      now: new Date(now - 60 * SECOND).toISOString(),
      hostIds: [hosts[0] as string],
    });
    const pending = await createLease(world.store, {
      startDate: atSecond(now + 8 * SECOND),
      endDate: atSecond(now + 10 * SECOND),
      hostIds: [hosts[1] as string],
    });
    await waitForEvent(world.store, ended.leaseId, 'Lease.Ended');
    await world.stopReactors();
    const written = await snapshots.load(TIMELINE_SNAPSHOT_KIND, TIMELINE_SCHEMA_VERSION);
    expect(written?.position).toBe(await world.store.headPosition());

    const whileDown = await createLease(world.store, {
      startDate: atSecond(Date.now() + 1 * SECOND),
      endDate: atSecond(Date.now() + 3 * SECOND),
      hostIds: [hosts[2] as string],
    });
    await world.startReactor({ snapshots: { store: snapshots, config: CONFIG } });
    expect(startEntries().at(-1)).toMatchObject({ snapshot: written?.position });

    await waitForEvent(world.store, pending.leaseId, 'Lease.Ended');
    await waitForEvent(world.store, whileDown.leaseId, 'Lease.Ended');
    // the lease that ended before the snapshot is not run again
    const endedTypes = typesOf(await leaseEvents(world.store, ended.leaseId));
    expect([count(endedTypes, 'Lease.Started'), count(endedTypes, 'Lease.Ended')]).toEqual([1, 1]);
    expect(world.cloud.nova.aggregatesOf('host2')).toEqual(['freepool']);
  });

  it('holds, restored at any position of the log and fed the rest, what a fold of the whole log holds', async () => {
    const now = Date.now();
    await world.startReactor();
    const leases = [];
    for (const [i, hostId] of hosts.entries()) {
      // ended, running, and to come, on each host
      leases.push(
        await createLease(world.store, {
          startDate: atSecond(now - 40 * SECOND),
          endDate: atSecond(now - 30 * SECOND),
          now: new Date(now - 60 * SECOND).toISOString(),
          hostIds: [hostId],
        }),
      );
      leases.push(
        await createLease(world.store, {
          startDate: atSecond(now - 20 * SECOND),
          endDate: atSecond(now + 600 * SECOND + i),
          now: new Date(now - 60 * SECOND).toISOString(),
          hostIds: [hostId],
        }),
      );
      await createLease(world.store, {
        startDate: atSecond(now + 900 * SECOND),
        endDate: atSecond(now + 1000 * SECOND),
        hostIds: [hostId],
      });
    }
    for (const [i, lease] of leases.entries())
      await waitForEvent(world.store, lease.leaseId, i % 2 === 0 ? 'Lease.Ended' : 'Lease.Started');
    await world.stopReactors();

    const events = await world.store.readAll({ from: 0, filter: { categories: [LEASE_CATEGORY, HOST_CATEGORY] } });
    // a small memory of finished leases, so that forgetting them is restored too
    const timeline = (): LeaseTimeline => new LeaseTimeline(world.store, () => undefined, 2);
    const whole = timeline();
    await whole.ingest(events);
    expect(whole.sizes()).toEqual({ leases: 6, finished: 2 });
    for (let cut = 0; cut <= events.length; cut++) {
      const before = timeline();
      await before.ingest(events.slice(0, cut));
      const restored = timeline();
      restored.restore(decodeState(encodeState(before.capture())) as TimelinePayload);
      await restored.ingest(events.slice(cut));
      expect(restored.capture(), `cut at ${cut}`).toEqual(whole.capture());
      expect(restored.queue.dueBy(Number.MAX_SAFE_INTEGER), `cut at ${cut}`).toEqual(whole.queue.dueBy(Number.MAX_SAFE_INTEGER));
    }
  });

  it('folds the whole log, and says why, when the stored snapshot is of an older schema', async () => {
    await snapshots.save({
      kind: TIMELINE_SNAPSHOT_KIND,
      schemaVersion: TIMELINE_SCHEMA_VERSION - 1,
      position: await world.store.headPosition(),
      payload: '{"an": "older shape"}',
    });
    const due = await createLease(world.store, {
      startDate: atSecond(Date.now() + 1 * SECOND),
      endDate: atSecond(Date.now() + 2 * SECOND),
      hostIds: [hosts[0] as string],
    });
    await world.startReactor({ snapshots: { store: snapshots, config: CONFIG } });
    expect(startEntries().at(-1)).toMatchObject({ snapshot: null, rebuilt: `no snapshot of schema version ${TIMELINE_SCHEMA_VERSION}` });
    await waitForEvent(world.store, due.leaseId, 'Lease.Ended');
  });
});
