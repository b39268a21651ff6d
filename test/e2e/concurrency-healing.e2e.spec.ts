/**
 * Healing racing with clients: 12 clients create, grow and delete host and instance leases through two
 * API processes while hosts fail one after another; two reactor processes heal (at once when a host goes
 * down, and every second; healing window: every future reservation), so the two healers race each other as well.
 * Afterwards the log, replayed on its own, shows every reservation holding exactly what the calendars
 * say, no host shared or over capacity, no failed host replaced twice, and every reservation still on
 * a down host flagged missing_resources (nothing was free to replace it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservedHostIds } from '#plugins/reservation-holdings.js';
import { type LedgerEvent, readLedger } from '../helpers/ledger-replay.js';
import { api, blazarDate, hostReservation } from '../helpers/http.js';
import { reportHostDown } from '../helpers/host-health.js';
import { allHolds, ledgerFile, overCapacityInstants, replayLedger, wholeHostClashes } from '../helpers/ledger-replay.js';
import { RaceRecord, type RaceAction, createLease } from '../helpers/race-clients.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const CLIENTS = 12;
const ROUNDS = 6;
const ENV = { LEASEHOLD_HEALING_CHECK_SECONDS: '1', LEASEHOLD_HEALING_INTERVAL_MINUTES: '0' };
const HOSTS = Array.from({ length: 8 }, (_, i) => ({ name: `race-heal-${i + 1}`, vcpus: 4, memory_mb: 8192, local_gb: 80 }));
const FAILING = 3;
const SMALL = { vcpus: 1, memory_mb: 1024, disk_gb: 10 };

const KINDS = ['whole-host', 'packed', 'affine', 'anti-affine', 'grow', 'delete'] as const;
type Kind = (typeof KINDS)[number];

const instances = (amount: number, affinity: boolean | null) => ({
  resource_type: 'virtual:instance',
  amount,
  ...SMALL,
  affinity,
  resource_properties: '',
});

describe('12 clients racing with host failures and two healers, through two API processes and two reactors', () => {
  let first: RunningSystem;
  let second: RunningSystem;
  const hostIds: string[] = [];
  const race = new RaceRecord<Kind>(KINDS);

  const body = (kind: Kind, name: string, start: number, client: number) => ({
    name,
    start_date: blazarDate(start),
    end_date: blazarDate(start + 120),
    reservations: {
      'whole-host': [hostReservation(1, 1 + (client % 2))],
      packed: [instances(2 + (client % 3), null)],
      affine: [instances(2, true)],
      'anti-affine': [instances(2, false)],
      grow: [instances(1, null)],
      delete: [hostReservation(1, 1)],
    }[kind],
    events: [],
  });

  const actionFor = (kind: Kind, mine: readonly string[]): RaceAction | null => {
    if (kind === 'delete') return mine[0] === undefined ? null : { method: 'DELETE', path: `/v1/leases/${mine[0]}`, expected: 204 };
    if (kind !== 'grow') return null;
    for (const leaseId of [...mine].reverse()) {
      const reservation = race.latest.get(leaseId)?.reservations.find((r: any) => r.resource_type === 'virtual:instance');
      if (reservation !== undefined)
        return {
          method: 'PUT',
          path: `/v1/leases/${leaseId}`,
          body: { reservations: [{ id: reservation.id, amount: reservation.amount + 1 }] },
          expected: 200,
        };
    }
    return null;
  };

  const runClient = async (client: number): Promise<void> => {
    const http = api(client % 2 === 0 ? first.url : second.url);
    const mine: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const kind = KINDS[(client + round) % KINDS.length]!;
      // 2 h windows from 1 h to 6 h ahead: all pending, all within the healing window
      const start = 60 + ((client * 7 + round * 5) % 6) * 60;
      await race.play(
        http,
        kind,
        actionFor(kind, mine) ?? createLease(body(kind, `race-heal-${client}-${round}`, start, client)),
        mine,
        `client ${client} round ${round}`,
      );
    }
  };

  const failHosts = async (): Promise<void> => {
    for (const hostId of hostIds.slice(0, FAILING)) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await reportHostDown(first.dataDir, hostId);
    }
  };

  const events = (): LedgerEvent[] => readLedger(ledgerFile(first.dataDir));
  const down = (): Set<string> =>
    new Set(
      events()
        .filter((e) => e.type === 'Host.WentDown')
        .map((e) => e.data.hostId as string),
    );

  /** Reservations of live leases still holding a down host, and whether their latest healing flagged it missing. */
  const onDownHosts = (): { reservationId: string; flagged: boolean }[] => {
    const all = events();
    const failed = down();
    const { fold } = replayLedger(first.dataDir);
    const healed = all.filter((e) => e.type === 'Reservation.Healed');
    return [...fold.leases.values()]
      .filter((lease) => !lease.deleted)
      .flatMap((lease) => lease.reservations)
      .filter((r) => reservedHostIds(r).some((hostId) => failed.has(hostId)))
      .map((r) => ({
        reservationId: r.id,
        flagged: healed.some((e) => e.data.reservation.id === r.id && e.data.missingResources === true),
      }));
  };

  beforeAll(async () => {
    first = await startSystem({ apps: ['api', 'projector', 'reactor'], env: ENV });
    second = await startSystem({ apps: ['api', 'reactor'], dataDir: first.dataDir, env: ENV });
    const admin = api(first.url);
    for (const host of HOSTS) {
      const response = await admin.post('/v1/os-hosts', host);
      expect(response.status).toBe(201);
      hostIds.push(response.body.host.id);
    }
    await Promise.all([...Array.from({ length: CLIENTS }, (_, client) => runClient(client)), failHosts()]);
    // healing settles: every reservation still on a down host is one nothing could replace, and says so
    await eventually(async () => (onDownHosts().every((r) => r.flagged) ? true : undefined), 30_000, 'healing to settle');
  }, 120_000);

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('raced: clients were accepted and refused, hosts failed, reservations were healed', () => {
    expect(race.unexpected).toEqual([]);
    expect(race.accepted, race.summary()).toBeGreaterThan(0);
    expect(race.refused, race.summary()).toBeGreaterThan(0);
    expect(down().size).toBe(FAILING);
    expect(events().filter((e) => e.type === 'Reservation.Healed').length).toBeGreaterThan(0);
  });

  it('replaces no failed host of a reservation twice, though two healers raced', () => {
    const replaced = events()
      .filter((e) => e.type === 'Reservation.Healed')
      .flatMap((e) => e.data.replacements.map((r: { hostId: string }) => `${e.data.reservation.id} ${r.hostId}`));
    expect(replaced.length).toBeGreaterThan(0);
    expect(replaced.filter((key, i) => replaced.indexOf(key) !== i)).toEqual([]);
  });

  it('leaves no reservation on a down host unless nothing could replace it, and then flags it', () => {
    expect(onDownHosts().filter((r) => !r.flagged)).toEqual([]);
  });

  it('replayed on its own, the log shows each reservation holding exactly its calendars, no host shared or over capacity', () => {
    const { fold } = replayLedger(first.dataDir);
    expect(fold.misfiled).toEqual([]);
    const holds = allHolds(fold.hostHolds);
    expect(wholeHostClashes(holds, 0)).toEqual([]);
    expect(overCapacityInstants(fold.hosts, holds, { cpu: 1, ram: 1, disk: 1 })).toEqual([]);
    for (const lease of fold.leases.values()) {
      for (const reservation of lease.reservations) {
        const holders = holds.filter((h) => h.reservationId === reservation.id);
        if (lease.deleted) {
          expect(holders, `holds of deleted lease ${lease.leaseId}`).toEqual([]);
          continue;
        }
        expect(holders.map((h) => h.resourceId).sort(), `hosts of ${reservation.id}`).toEqual([...reservedHostIds(reservation)].sort());
        if (reservation.resourceType !== 'physical:host') {
          const counts = new Map<string, number>(
            reservation.allocations.map((a: { hostId: string; count: number }) => [a.hostId, a.count]),
          );
          for (const h of holders) expect(h.slots?.count, `slots of ${reservation.id} on ${h.resourceId}`).toBe(counts.get(h.resourceId));
          expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(reservation.amount);
        }
      }
    }
  });
});
