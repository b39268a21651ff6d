import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMinutes } from '../helpers/api-fixtures.js';
import { api, blazarDate, hostReservation } from '../helpers/http.js';
import {
  type Ratios,
  allHolds,
  apiHostHolds,
  freshBody,
  holdKeys,
  hostTotalsOf,
  overCapacityInstants,
  replayLedger,
  reservationsById,
  slotCountsOf,
  upToDate,
  wholeHostClashes,
} from '../helpers/ledger-replay.js';
import { RaceRecord, type RaceAction, createLease, requestDate } from '../helpers/race-clients.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const CLIENTS = 16;
const ROUNDS = 6;
const CLEANING_MINUTES = 30;
const RATIOS: Ratios = { cpu: 2, ram: 1.5, disk: 1 };
const ENV = {
  LEASEHOLD_CLEANING_TIME_MINUTES: String(CLEANING_MINUTES),
  LEASEHOLD_CPU_ALLOCATION_RATIO: String(RATIOS.cpu),
  LEASEHOLD_RAM_ALLOCATION_RATIO: String(RATIOS.ram),
  LEASEHOLD_DISK_ALLOCATION_RATIO: String(RATIOS.disk),
};

/** Small hosts, each bound by a different resource: 36 vcpus in all against ~80 asked for at any hour. */
const HOSTS = [
  { name: 'slots-1', vcpus: 4, memory_mb: 4096, local_gb: 40 },
  { name: 'slots-2', vcpus: 2, memory_mb: 8192, local_gb: 20 },
  { name: 'slots-3', vcpus: 8, memory_mb: 2048, local_gb: 100 },
  { name: 'slots-4', vcpus: 4, memory_mb: 4096, local_gb: 10 },
];
const SMALL = { vcpus: 1, memory_mb: 512, disk_gb: 5 };
const MEDIUM = { vcpus: 2, memory_mb: 1024, disk_gb: 10 };
const LARGE = { vcpus: 3, memory_mb: 2048, disk_gb: 10 };

const KINDS = ['packed', 'affine', 'anti-affine', 'flavor', 'whole-host', 'two-reservations', 'grow', 'extend', 'delete'] as const;
type Kind = (typeof KINDS)[number];

const instances = (amount: number, size: typeof SMALL, affinity: boolean | null) => ({
  resource_type: 'virtual:instance',
  amount,
  ...size,
  affinity,
  resource_properties: '',
});

const isInstance = (r: { resource_type: string }): boolean =>
  r.resource_type === 'virtual:instance' || r.resource_type === 'flavor:instance';

describe('16 parallel clients racing for instance slots on 4 small hosts, through two API processes', () => {
  let first: RunningSystem;
  let second: RunningSystem;
  let flavorId = '';
  const race = new RaceRecord<Kind>(KINDS);
  const { latest } = race;

  const createBody = (kind: Kind, name: string, start: number, client: number): Record<string, unknown> => {
    const reservations = {
      packed: [instances(1 + (client % 3), SMALL, null)],
      affine: [instances(2, MEDIUM, true)],
      'anti-affine': [instances(2, SMALL, false)],
      flavor: [{ resource_type: 'flavor:instance', flavor_id: flavorId, amount: 2, affinity: null }],
      'whole-host': [hostReservation(1, 1)],
      'two-reservations': [instances(1, LARGE, false), instances(2, SMALL, null)],
      grow: [instances(1, MEDIUM, null)],
      extend: [hostReservation(1, 1)],
      delete: [instances(1, LARGE, null)],
    }[kind];
    return { name, start_date: blazarDate(start), end_date: blazarDate(start + 180), reservations };
  };

  /**
   * Updates and deletes act on this client's own leases: grow an instance amount of the latest one,
   * end the latest one an hour later, delete the oldest one. Null when it has none (then it creates).
   */
  const actionFor = (kind: Kind, mine: readonly string[]): RaceAction | null => {
    if (kind === 'delete') return mine[0] === undefined ? null : { method: 'DELETE', path: `/v1/leases/${mine[0]}`, expected: 204 };
    if (kind !== 'grow' && kind !== 'extend') return null;
    for (const leaseId of [...mine].reverse()) {
      const lease = latest.get(leaseId);
      const path = `/v1/leases/${leaseId}`;
      if (kind === 'extend') return { method: 'PUT', path, body: { end_date: addMinutes(requestDate(lease.end_date), 60) }, expected: 200 };
      const reservation = lease.reservations.find(isInstance);
      if (reservation !== undefined)
        return { method: 'PUT', path, body: { reservations: [{ id: reservation.id, amount: reservation.amount + 1 }] }, expected: 200 };
    }
    return null;
  };

  const runClient = async (client: number): Promise<void> => {
    const http = api(client % 2 === 0 ? first.url : second.url);
    const mine: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const kind = KINDS[(client + 4 * round) % KINDS.length]!;
      // 3 h windows starting on twelve consecutive hours: each overlaps the two before and after it
      const start = 24 * 60 + ((client * 5 + round * 3) % 12) * 60;
      await race.play(
        http,
        kind,
        actionFor(kind, mine) ?? createLease(createBody(kind, `slots-${client}-${round}`, start, client)),
        mine,
        `client ${client} round ${round}`,
      );
    }
  };

  beforeAll(async () => {
    first = await startSystem({ apps: ['api', 'projector'], env: ENV });
    second = await startSystem({ apps: ['api'], dataDir: first.dataDir, env: ENV });
    const admin = api(first.url);
    for (const host of HOSTS) expect((await admin.post('/v1/os-hosts', host)).status).toBe(201);
    const flavor = await admin.post('/v1/flavors', { flavor: { name: 'race.medium', vcpus: 2, ram: 1024, disk: 5 } });
    expect(flavor.status).toBe(201);
    flavorId = flavor.body.flavor.id;
    await Promise.all(Array.from({ length: CLIENTS }, (_, client) => runClient(client)));
  }, 120_000);

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  const read = async (path: string, system = first): Promise<any> => freshBody(await api(system.url).get(path, upToDate(first.dataDir)));

  it('accepts what fits and refuses the rest with 409: the clients did contend', () => {
    expect(race.unexpected).toEqual([]);
    expect(race.accepted + race.refused).toBe(CLIENTS * ROUNDS);
    expect(race.accepted, race.summary()).toBeGreaterThan(0);
    expect(race.refused, race.summary()).toBeGreaterThan(0);
    const slotLeases = ['packed', 'affine', 'anti-affine', 'flavor', 'two-reservations'] as const;
    expect(slotLeases.reduce((n, k) => n + race.tally.get(k)!.accepted, 0)).toBeGreaterThan(0);
  });

  it('keeps every reservation of every accepted lease as last accepted, each on the hosts its affinity allows', async () => {
    const leases: any[] = (await read('/v1/leases')).leases;
    expect(leases.map((l) => l.id).sort()).toEqual([...latest.keys()].sort());
    const allocations: any[] = (await read('/v1/os-hosts/allocations')).allocations;
    const slotCounts = slotCountsOf(replayLedger(first.dataDir).fold);
    for (const lease of leases) {
      const accepted = latest.get(lease.id);
      expect([lease.start_date, lease.end_date]).toEqual([accepted.start_date, accepted.end_date]);
      const shape = (r: any) => ({
        id: r.id,
        type: r.resource_type,
        amount: r.amount ?? null,
        min: r.min ?? null,
        affinity: r.affinity ?? null,
      });
      expect(lease.reservations.map(shape)).toEqual(accepted.reservations.map(shape));
      for (const reservation of lease.reservations) {
        const held = allocations.flatMap((a) =>
          a.reservations.filter((r: any) => r.id === reservation.id).map((r: any) => ({ hostId: a.resource_id, ...r })),
        );
        for (const h of held) expect([h.start_date, h.end_date]).toEqual([lease.start_date, lease.end_date]);
        if (reservation.resource_type === 'physical:host') {
          expect(held).toHaveLength(1);
          continue;
        }
        const counts = held.map((h) => slotCounts.get(h.hostId)?.get(reservation.id) ?? 0);
        expect(
          counts.reduce((a, b) => a + b, 0),
          `slots of ${reservation.id}`,
        ).toBe(reservation.amount);
        if (reservation.affinity === true) expect(held).toHaveLength(1);
        if (reservation.affinity === false) expect(counts).toEqual(counts.map(() => 1));
      }
    }
  });

  it('never exceeds a host capacity nor shares a whole-host lease, as the API shows (slot counts from the log)', async () => {
    const hosts = hostTotalsOf((await read('/v1/os-hosts')).hosts);
    const reservations = reservationsById((await read('/v1/leases')).leases);
    const allocations = (await read('/v1/os-hosts/allocations')).allocations;
    const { holds, problems } = apiHostHolds(allocations, reservations, slotCountsOf(replayLedger(first.dataDir).fold));
    expect(problems).toEqual([]);
    expect(holds.filter((h) => h.slots !== null).length).toBeGreaterThan(0);
    expect(overCapacityInstants(hosts, holds, RATIOS)).toEqual([]);
    expect(wholeHostClashes(holds, CLEANING_MINUTES * 60_000)).toEqual([]);
  });

  it('never exceeds a host capacity nor shares a whole-host lease when the whole log is replayed', () => {
    const { fold } = replayLedger(first.dataDir);
    expect(fold.misfiled).toEqual([]);
    const live = [...fold.leases.values()].filter((l) => !l.deleted);
    expect(live.map((l) => l.leaseId).sort()).toEqual([...latest.keys()].sort());
    expect(
      [...fold.leases.values()]
        .filter((l) => l.deleted)
        .map((l) => l.leaseId)
        .sort(),
    ).toEqual([...race.deleted].sort());
    const holds = allHolds(fold.hostHolds);
    expect(overCapacityInstants(fold.hosts, holds, RATIOS)).toEqual([]);
    expect(wholeHostClashes(holds, CLEANING_MINUTES * 60_000)).toEqual([]);
    for (const lease of fold.leases.values()) {
      for (const reservation of lease.reservations) {
        const mine = holds.filter((h) => h.reservationId === reservation.id);
        if (lease.deleted) {
          expect(mine, `holds of deleted lease ${lease.leaseId}`).toEqual([]);
          continue;
        }
        for (const h of mine) expect([h.start, h.end]).toEqual([Date.parse(lease.startDate), Date.parse(lease.endDate)]);
        if (reservation.resourceType === 'physical:host') {
          expect(mine.map((h) => [h.resourceId, h.slots])).toEqual(reservation.hostIds.map((id: string) => [id, null]));
        } else {
          const booked = mine.map((h) => ({ hostId: h.resourceId, count: h.slots?.count }));
          expect(booked.sort((a, b) => a.hostId.localeCompare(b.hostId))).toEqual(
            [...reservation.allocations].sort((a: any, b: any) => a.hostId.localeCompare(b.hostId)),
          );
        }
      }
    }
  });

  it('has an auditor that does flag an over-capacity instant and a whole host shared with slots', () => {
    const hosts = new Map([['1', { vcpus: 2, memoryMb: 1024, localGb: 10 }]]);
    const at = (hour: number): number => Date.UTC(2030, 0, 1, hour);
    const slots = (reservationId: string, from: number, to: number) => ({
      resourceId: '1',
      reservationId,
      leaseId: reservationId,
      start: at(from),
      end: at(to),
      slots: { count: 2, vcpus: 1, memoryMb: 512, diskGb: 1 },
    });
    // with cpu ratio 2 the host takes 4 vcpus: a and b fit side by side, c makes 6 from 02:00 to 03:00
    const holds = [slots('a', 0, 3), slots('b', 1, 3), slots('c', 2, 4)];
    expect(overCapacityInstants(hosts, holds, { cpu: 2, ram: 2, disk: 1 }).map((o) => o.at)).toEqual([new Date(at(2)).toISOString()]);
    const whole = { ...slots('w', 4, 5), slots: null };
    expect(wholeHostClashes([...holds, whole], 0)).toEqual([]);
    expect(wholeHostClashes([...holds, whole], 30 * 60_000)).toHaveLength(1);
  });

  it('shows through the API exactly the holds the log records', async () => {
    const { fold } = replayLedger(first.dataDir);
    const reservations = reservationsById((await read('/v1/leases')).leases);
    const allocations = (await read('/v1/os-hosts/allocations')).allocations;
    const fromApi = apiHostHolds(allocations, reservations, slotCountsOf(fold)).holds;
    expect(holdKeys(fromApi)).toEqual(holdKeys(allHolds(fold.hostHolds)));
    expect(await read('/v1/os-hosts/allocations', second)).toEqual(await read('/v1/os-hosts/allocations'));
    expect(hostTotalsOf((await read('/v1/os-hosts')).hosts)).toEqual(fold.hosts);
  });
});
