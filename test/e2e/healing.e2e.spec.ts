/**
 * Healing of reservations on a failed host (upstream's resource monitor + heal_reservations) through
 * the running system: the test plays the reactor's host monitor and records `Host.WentDown` in the
 * log, as the Nova notification consumer or the polling monitor would; the reactor's healing then
 * replaces the host in every reservation within the healing window (active ones are acted out by the
 * reactor like any other change), keeps what it cannot replace and flags it, leaves reservations
 * beyond the window alone, and the log replayed on its own still shows no double booking.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservedHostIds } from '#plugins/reservation-holdings.js';
import { hostsWith, ledgerCount, ledgerEvents } from '../helpers/api-fixtures.js';
import { api, blazarDate, instanceReservation } from '../helpers/http.js';
import { reportHostDown } from '../helpers/host-health.js';
import { type Client, describeBody, leaseClient } from '../helpers/lease-client.js';
import { allHolds, overCapacityInstants, replayLedger, wholeHostClashes } from '../helpers/ledger-replay.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const BIG = { vcpus: 8, memory_mb: 16384, local_gb: 200 };
const SMALL = { vcpus: 2, memory_mb: 2048, disk_gb: 20 };

describe('healing reservations on a failed host (api + projector + reactor)', () => {
  let system: RunningSystem;
  let client: Client;
  const hostIds: Record<string, string> = {};
  const hostNames: Record<string, string> = {};
  const { createLease, showLease, updateLease } = leaseClient(
    () => system,
    () => client,
  );

  const register = async (name: string, pool: string): Promise<void> => {
    const response = await client.post('/v1/os-hosts', { name, ...BIG, pool });
    expect(response.status, describeBody(response)).toBe(201);
    hostIds[name] = response.body.host.id;
    hostNames[response.body.host.id] = name;
  };

  /** Names of the hosts holding the reservation, from GET /v1/os-hosts/allocations. */
  const hostsOf = async (reservationId: string): Promise<string[]> => {
    const response = await client.get(`/v1/os-hosts/allocations?reservation_id=${reservationId}`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.allocations
      .filter((a: { reservations: unknown[] }) => a.reservations.length > 0)
      .map((a: { resource_id: string }) => hostNames[a.resource_id] ?? a.resource_id)
      .sort();
  };

  const reportDown = (name: string): Promise<void> => reportHostDown(system.dataDir, hostIds[name] ?? '');

  const healedEvents = (leaseId: string) => ledgerEvents(system.dataDir, `lease-${leaseId}`).filter((e) => e.type === 'Reservation.Healed');

  beforeAll(async () => {
    system = await startSystem({ env: { LEASEHOLD_HEALING_CHECK_SECONDS: '1', LEASEHOLD_HEALING_INTERVAL_MINUTES: '60' } });
    client = api(system.url);
    for (const name of ['heal-1', 'heal-2', 'heal-3', 'heal-4']) await register(name, 'heal');
    await register('solo-1', 'solo');
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  it(
    'replaces failed hosts within the healing window, flags what it cannot replace, and leaves later reservations alone',
    { timeout: 60_000 },
    async () => {
      // instance slots from 30 minutes on: packed on heal-1 (lowest id)
      const slots = await createLease('heal-slots', blazarDate(30), blazarDate(150), [
        instanceReservation(2, SMALL, { resource_properties: JSON.stringify(['==', '$pool', 'heal']) }),
      ]);
      const slotsReservation = slots.reservations[0].id;
      expect(await hostsOf(slotsReservation)).toEqual(['heal-1']);
      // a whole host from now: heal-1 carries slots in the window, so heal-2
      const active = await createLease('heal-active', 'now', blazarDate(120), [hostsWith('pool', 'heal')]);
      const activeReservation = active.reservations[0].id;
      expect(await hostsOf(activeReservation)).toEqual(['heal-2']);
      await eventually(async () => ((await showLease(active.id)).status === 'ACTIVE' ? true : undefined), 20_000, 'the lease to start');
      // beyond the 60-minute healing window: heal-1 is free then
      const later = await createLease('heal-later', '2033-05-01 10:00', '2033-05-01 12:00', [hostsWith('pool', 'heal')]);
      expect(await hostsOf(later.reservations[0].id)).toEqual(['heal-1']);
      // nothing can replace the only host of its pool
      const alone = await createLease('heal-alone', blazarDate(20), blazarDate(80), [hostsWith('pool', 'solo')]);
      expect(await hostsOf(alone.reservations[0].id)).toEqual(['solo-1']);

      for (const name of ['heal-1', 'heal-2', 'solo-1']) await reportDown(name);

      // the active reservation and the slots move to heal-3 and heal-4 (which gets which depends on the pass's order)
      const moved = await eventually(
        async () => {
          const [a, s] = [await hostsOf(activeReservation), await hostsOf(slotsReservation)];
          return a[0] !== 'heal-2' && s[0] !== 'heal-1' ? { a, s } : undefined;
        },
        20_000,
        'healing of the active and slot reservations',
      );
      expect([...moved.a, ...moved.s].sort()).toEqual(['heal-3', 'heal-4']);

      const activeView = await showLease(active.id);
      expect(activeView).toMatchObject({ status: 'ACTIVE', degraded: true });
      expect(activeView.reservations[0]).toMatchObject({ missing_resources: false, resources_changed: true, status: 'active' });
      const slotsView = await showLease(slots.id);
      // upstream flags resources_changed only for started reservations
      expect(slotsView).toMatchObject({ status: 'PENDING', degraded: false });
      expect(slotsView.reservations[0]).toMatchObject({ missing_resources: false, resources_changed: false, amount: 2 });

      const aloneView = await eventually(
        async () => {
          const view = await showLease(alone.id);
          return view.degraded === true ? view : undefined;
        },
        20_000,
        'the unhealable lease to be flagged',
      );
      expect(aloneView.reservations[0]).toMatchObject({ missing_resources: true, resources_changed: false });
      expect(await hostsOf(alone.reservations[0].id)).toEqual(['solo-1']);

      const laterView = await showLease(later.id);
      expect(laterView).toMatchObject({ degraded: false });
      expect(await hostsOf(later.reservations[0].id)).toEqual(['heal-1']);
      expect(healedEvents(later.id)).toEqual([]);

      // the log says who and why: the service, because of the down hosts
      const [healed] = healedEvents(active.id);
      expect(healed?.data).toMatchObject({
        replacements: [{ hostId: hostIds['heal-2'], by: [hostIds[moved.a[0] ?? '']] }],
        unhealedHostIds: [],
        resourcesChanged: true,
      });
      expect(healed?.metadata).toMatchObject({ actor: null, reason: 'host_down' });

      // the reactor acts the active reservation's new host out, like any change of an active reservation
      await eventually(
        async () =>
          ledgerEvents(system.dataDir, `lease-${active.id}`).some((e) => e.type === 'Reservation.UpdateApplied') ? true : undefined,
        20_000,
        'the reactor to apply the healed reservation',
      );
      const applied = ledgerEvents(system.dataDir, `lease-${active.id}`).find((e) => e.type === 'Reservation.UpdateApplied');
      expect((applied?.data as { effects: unknown[] }).effects).toEqual(
        expect.arrayContaining([
          { operation: 'aggregate.add_host', aggregate: activeReservation, host: moved.a[0] },
          { operation: 'aggregate.remove_host', aggregate: activeReservation, host: 'heal-2' },
        ]),
      );

      // later passes record nothing more: healed reservations no longer hold the down hosts, the unhealable one is flagged once
      const before = ledgerCount(system.dataDir);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(ledgerCount(system.dataDir)).toBe(before);
      expect(healedEvents(alone.id)).toHaveLength(1);

      // the log on its own: every lease's reservations hold exactly the hosts whose calendars carry them, and no host is double-booked
      const { fold } = replayLedger(system.dataDir);
      for (const lease of fold.leases.values()) {
        for (const reservation of lease.reservations) {
          const holders = [...fold.hostHolds.entries()]
            .filter(([, holds]) => holds.has(reservation.id))
            .map(([hostId]) => hostId)
            .sort();
          expect(holders, `hosts holding ${reservation.id}`).toEqual([...reservedHostIds(reservation)].sort());
        }
      }
      const holds = allHolds(fold.hostHolds);
      expect(wholeHostClashes(holds, 0)).toEqual([]);
      expect(overCapacityInstants(fold.hosts, holds, { cpu: 1, ram: 1, disk: 1 })).toEqual([]);
    },
  );

  it(
    "a healed running lease can still be changed: its replacement is booked from when it joined, not over another lease's past",
    { timeout: 180_000 },
    async () => {
      for (const [name, tag] of [
        ['past-a', 'a'],
        ['past-b', 'b'],
      ] as const) {
        const response = await client.post('/v1/os-hosts', { name, ...BIG, pool: 'past', tag });
        expect(response.status, describeBody(response)).toBe(201);
        hostIds[name] = response.body.host.id;
        hostNames[response.body.host.id] = name;
      }
      // past-b is someone else's until the next minute (at least 15 s into the running lease, which gets past-a)
      if (Date.now() % 60_000 > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 100));
      const earlier = await createLease('past-earlier', 'now', blazarDate(1), [hostsWith('tag', 'b')]);
      const running = await createLease('past-running', 'now', blazarDate(120), [hostsWith('pool', 'past')]);
      const reservationId = running.reservations[0].id;
      expect(await hostsOf(reservationId)).toEqual(['past-a']);
      await eventually(
        async () => ((await showLease(earlier.id)).status === 'TERMINATED' ? true : undefined),
        90_000,
        'the earlier lease to end',
      );
      expect((await showLease(running.id)).status).toBe('ACTIVE');

      await reportDown('past-a');
      await eventually(async () => ((await hostsOf(reservationId))[0] === 'past-b' ? true : undefined), 20_000, 'past-b to replace past-a');

      // prolonging readmits the running reservation: past-b keeps the booking it got at the healing
      const prolonged = await updateLease(running.id, { end_date: blazarDate(180) });
      expect(prolonged.reservations[0]).toMatchObject({ status: 'active', resources_changed: true });
      expect(await hostsOf(reservationId)).toEqual(['past-b']);
      // and ending it at once ("now" is the current minute, maybe before the healing) ends the replacement's booking too
      await updateLease(running.id, { end_date: 'now' });
      await eventually(
        async () => ((await showLease(running.id)).status === 'TERMINATED' ? true : undefined),
        20_000,
        'the healed lease to end',
      );
      const { fold } = replayLedger(system.dataDir);
      expect(wholeHostClashes(allHolds(fold.hostHolds), 0)).toEqual([]);
    },
  );
});
